"""Bedrock Runtime: the one place its boto3 client is built, and the Converse call under the turn's
deadline. Understanding (`duocthu.understanding.bedrock`), grounded answers, rerank and embeddings
all call Bedrock through this client.

Time: each turn has a deadline (the Lambda's remaining time minus a margin). The first attempt's
read timeout is what the deadline leaves after the connect timeout; botocore's retries reuse the
client, so before every attempt a hook refuses one that could not finish (connect + read) inside
the deadline. A hanging Bedrock therefore costs one attempt, not `max_attempts` full read timeouts,
and becomes `*_provider_unavailable` inside the request budget instead of a Lambda timeout.
Clients are built once per container (per timeout bucket) and reused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from duocthu.core.deadline import TURN_DEADLINE, Deadline, DeadlineExceeded, refuse_late_attempts
from duocthu.core.errors import ProviderUnavailable
from duocthu.settings import Settings

log = logging.getLogger(__name__)

MIN_TURN_S = 1.0  # below this, a model call cannot finish: fail fast
SLACK_S = 0.25  # between choosing an attempt's timeout and botocore's hook checking it
_TURN_DEADLINE = TURN_DEADLINE

# What a Bedrock call raises when Bedrock, not the program, failed: callers catch these, and never
# import botocore themselves.
BEDROCK_FAULTS = (ClientError, BotoCoreError, DeadlineExceeded)

__all__ = ["BEDROCK_FAULTS", "DeadlineExceeded", "bedrock_runtime_client", "converse"]


@lru_cache(maxsize=16)
def _client(region: str | None, connect_s: float, read_s: float, retry_mode: str, max_attempts: int) -> Any:
    config = Config(
        region_name=region,
        connect_timeout=connect_s,
        read_timeout=read_s,
        retries={"mode": retry_mode, "total_max_attempts": max_attempts},  # the first attempt included
        user_agent_extra="duocthu-understanding",
    )
    client = boto3.client("bedrock-runtime", config=config)
    # before-send runs before every attempt, retries included
    client.meta.events.register("before-send.bedrock-runtime", refuse_late_attempts(connect_s + read_s))
    return client


@dataclass(frozen=True)
class BedrockClients:
    """A client by read timeout (whole seconds): one client per bucket per container."""

    region: str | None
    connect_s: float
    retry_mode: str
    max_attempts: int

    def __call__(self, read_timeout_s: int) -> Any:
        return _client(self.region, self.connect_s, float(read_timeout_s), self.retry_mode, self.max_attempts)


def bedrock_runtime_client(settings: Settings) -> BedrockClients:
    return BedrockClients(
        settings.bedrock_region,
        settings.bedrock_connect_timeout_s,
        settings.bedrock_retry_mode,
        settings.bedrock_max_attempts,
    )


def attempt_read_timeout(client_for: Callable[[int], Any], deadline: Deadline, read_timeout_s: float) -> int:
    """The read timeout of the first attempt: the configured one, cut so that connect + read fits in
    what the deadline has left; ProviderUnavailable when not even `MIN_TURN_S` fits."""
    connect_s = client_for.connect_s if isinstance(client_for, BedrockClients) else 0.0
    left = deadline.remaining_s() - connect_s - SLACK_S
    if left < MIN_TURN_S:
        raise ProviderUnavailable(f"only {deadline.remaining_s():.2f}s left in the turn's deadline")
    return int(min(read_timeout_s, left))


def converse(
    client_for: Callable[[int], Any], request: dict[str, Any], deadline: Deadline, read_timeout_s: float
) -> Any:
    """One Converse call that ends inside the deadline: the read timeout cut to what is left, no
    retry started that could outlast it; any client fault is `ProviderUnavailable`."""
    read_s = attempt_read_timeout(client_for, deadline, read_timeout_s)
    token = TURN_DEADLINE.set(deadline)
    try:
        return client_for(read_s).converse(**request)
    except BEDROCK_FAULTS as err:
        raise ProviderUnavailable(f"{type(err).__name__}: {err}") from err
    finally:
        TURN_DEADLINE.reset(token)

"""Bedrock Runtime: the one place its boto3 client is built, and the Converse call under the turn's
deadline. Understanding (`duocthu.understanding.bedrock`), grounded answers, rerank and embeddings
all call Bedrock through this client.

Time: each turn has a deadline (the Lambda's remaining time minus a margin). The read timeout of an
attempt never exceeds what is left, and no retry starts after the deadline, so a slow provider
becomes `understanding_provider_unavailable` inside the request budget instead of a Lambda timeout.
Clients are built once per container (per timeout bucket) and reused.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from duocthu.core.deadline import Deadline
from duocthu.core.errors import ProviderUnavailable
from duocthu.settings import Settings

log = logging.getLogger(__name__)

MIN_TURN_S = 1.0  # below this, a model call cannot finish: fail fast
_TURN_DEADLINE: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "turn_deadline", default=None
)


class DeadlineExceeded(RuntimeError):
    """The turn's deadline passed before another attempt could start."""


# What a Bedrock call raises when Bedrock, not the program, failed: callers catch these, and never
# import botocore themselves.
BEDROCK_FAULTS = (ClientError, BotoCoreError, DeadlineExceeded)


def _stop_after_deadline(**_: Any) -> None:
    # before-send runs before every attempt, retries included; raising ends the call.
    deadline = _TURN_DEADLINE.get()
    if deadline is not None and deadline.remaining_s() <= 0:
        raise DeadlineExceeded("the turn's deadline passed before the next attempt")


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
    client.meta.events.register("before-send.bedrock-runtime.Converse", _stop_after_deadline)
    return client


def bedrock_runtime_client(settings: Settings) -> Callable[[int], Any]:
    """A client factory by read timeout (whole seconds): one client per bucket per container."""

    def client_for(read_timeout_s: int) -> Any:
        return _client(
            settings.bedrock_region,
            settings.bedrock_connect_timeout_s,
            float(read_timeout_s),
            settings.bedrock_retry_mode,
            settings.bedrock_max_attempts,
        )

    return client_for


def converse(
    client_for: Callable[[int], Any], request: dict[str, Any], deadline: Deadline, read_timeout_s: float
) -> Any:
    """One Converse call that ends inside the deadline: the read timeout cut to what is left, no
    retry started after it; any client fault is `ProviderUnavailable`."""
    remaining = deadline.remaining_s()
    if remaining < MIN_TURN_S:
        raise ProviderUnavailable(f"only {remaining:.2f}s left in the turn's deadline")
    token = _TURN_DEADLINE.set(deadline)
    try:
        client = client_for(max(1, int(min(read_timeout_s, remaining))))
        return client.converse(**request)
    except BEDROCK_FAULTS as err:
        raise ProviderUnavailable(f"{type(err).__name__}: {err}") from err
    finally:
        _TURN_DEADLINE.reset(token)

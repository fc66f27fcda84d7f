"""Bedrock Runtime: the Converse call that proposes a frame.

One call per turn, with one tool whose input schema is the QueryFrame's JSON Schema and a
`toolChoice` that forces it, so the model can only return a frame. The default model
(settings.DEFAULT_UNDERSTANDING_MODEL_ID) is one that supports a forced tool choice; Bedrock accepts
`toolChoice.tool` only for Anthropic Claude 3+ and Amazon Nova models.

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

from duocthu.providers import Deadline, MalformedOutput, ProviderUnavailable
from duocthu.settings import Settings
from duocthu.understanding.candidates import Turn
from duocthu.understanding.prompt import SYSTEM_PROMPT, TOOL_NAME, tool_config, user_message

log = logging.getLogger(__name__)

MIN_TURN_S = 1.0  # below this, a model call cannot finish: fail fast
_TURN_DEADLINE: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "turn_deadline", default=None
)


class DeadlineExceeded(RuntimeError):
    """The turn's deadline passed before another attempt could start."""


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


class BedrockFrameProvider:
    name = "bedrock"

    def __init__(
        self,
        client: Callable[[int], Any],
        model_id: str,
        max_tokens: int = 1024,
        read_timeout_s: float = 20.0,
    ):
        self.client_for = client
        self.model_id = model_id
        self.max_tokens = max_tokens
        self.read_timeout_s = read_timeout_s

    def request(self, turn: Turn) -> dict[str, Any]:
        """The Converse request for a turn (what the Stubber tests pin)."""
        text = user_message(turn.message, turn.history, turn.prior, turn.candidates)
        return {
            "modelId": self.model_id,
            "system": [{"text": SYSTEM_PROMPT}],
            "messages": [{"role": "user", "content": [{"text": text}]}],
            "toolConfig": tool_config(),
            "inferenceConfig": {"maxTokens": self.max_tokens, "temperature": 0.0},
        }

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        remaining = deadline.remaining_s()
        if remaining < MIN_TURN_S:
            raise ProviderUnavailable(f"only {remaining:.2f}s left in the turn's deadline")
        token = _TURN_DEADLINE.set(deadline)
        try:
            client = self.client_for(max(1, int(min(self.read_timeout_s, remaining))))
            response = client.converse(**self.request(turn))
        except (ClientError, BotoCoreError, DeadlineExceeded) as err:
            raise ProviderUnavailable(f"{type(err).__name__}: {err}") from err
        finally:
            _TURN_DEADLINE.reset(token)
        return parse_tool_input(response)


def parse_tool_input(response: dict[str, Any]) -> dict[str, Any]:
    """The forced tool's input from a Converse response; anything else is malformed output."""
    stop = response.get("stopReason")
    if stop == "max_tokens":
        raise MalformedOutput("the model ran out of tokens before finishing the frame")
    content = (response.get("output") or {}).get("message", {}).get("content") or []
    for block in content:
        use = block.get("toolUse") if isinstance(block, dict) else None
        if use and use.get("name") == TOOL_NAME:
            data = use.get("input")
            if isinstance(data, dict):
                return data
            raise MalformedOutput(f"the tool input is a {type(data).__name__}, not an object")
    raise MalformedOutput(f"no {TOOL_NAME} call in the response (stopReason={stop!r})")

"""The Bedrock understanding provider: one Converse call with the frame as a forced tool (the
prompt in `duocthu.understanding.prompt`), its tool input returned as the proposed frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput
from duocthu.providers.bedrock import converse
from duocthu.understanding.candidates import Turn
from duocthu.understanding.prompt import SYSTEM_PROMPT, TOOL_NAME, tool_config, user_message


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
        response = converse(self.client_for, self.request(turn), deadline, self.read_timeout_s)
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

"""The Converse exchange the Bedrock understanding tests pin with botocore Stubber: the request a
turn must send, written out from the prompt module's parts, and the response of a model that calls
the forced tool."""

from __future__ import annotations

from typing import Any

from duocthu.understanding.candidates import Turn
from duocthu.understanding.prompt import (
    SYSTEM_PROMPT,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    frame_tool_schema,
    user_message,
)


def converse_request(turn: Turn, model: str, max_tokens: int) -> dict[str, Any]:
    """The Converse request for a turn: the system prompt, the turn's four blocks, the frame as the
    one tool with the tool choice forcing it, no sampling."""
    text = user_message(turn.message, turn.history, turn.prior, turn.candidates)
    return {
        "modelId": model,
        "system": [{"text": SYSTEM_PROMPT}],
        "messages": [{"role": "user", "content": [{"text": text}]}],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": TOOL_NAME,
                        "description": TOOL_DESCRIPTION,
                        "inputSchema": {"json": frame_tool_schema()},
                    }
                }
            ],
            "toolChoice": {"tool": {"name": TOOL_NAME}},
        },
        "inferenceConfig": {"maxTokens": max_tokens, "temperature": 0.0},
    }


def tool_use(data: Any, stop: str = "tool_use") -> dict[str, Any]:
    """A Converse response whose one content block calls the forced tool with `data`."""
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": TOOL_NAME, "input": data}}],
            }
        },
        "stopReason": stop,
        "usage": {"inputTokens": 900, "outputTokens": 80, "totalTokens": 980},
        "metrics": {"latencyMs": 640},
    }

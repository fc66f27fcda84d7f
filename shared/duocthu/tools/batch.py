"""`duocthu batch`: JSON lines in, JSON lines out, one process for the whole batch."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

# (message, history of user turns) -> the output fields for that input
Answerer = Callable[[str, list[str]], dict[str, Any]]


def _parse(line: str) -> tuple[Any, str, list[str]]:
    request = json.loads(line)
    if not isinstance(request, dict):
        raise ValueError("each line must be a JSON object")
    message = request.get("message")
    if not isinstance(message, str) or not message.strip():
        raise ValueError("`message` must be a non-empty string")
    history = [
        str(turn.get("content", ""))
        for turn in request.get("history") or ()
        if isinstance(turn, dict) and turn.get("role") == "user"
    ]
    return request.get("id"), message, history


def run_batch(lines: Iterable[str], answer: Answerer) -> Iterator[str]:
    """For each input `{"id", "message", "history": [{"role", "content"}]}` one output line, in
    input order; the given history is the turn's history (no session store). A bad line yields an
    error line, never a stop."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        started = time.perf_counter()
        try:
            request_id, message, history = _parse(line)
        except ValueError as err:  # json.JSONDecodeError is a ValueError
            out: dict[str, Any] = {"id": None, "error": "invalid_input", "message": f"line {number}: {err}"}
        else:
            out = {"id": request_id, **answer(message, history)}
        out["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 2)
        yield json.dumps(out, ensure_ascii=False)

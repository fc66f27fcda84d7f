"""Parity: every gold message (with its history) answered through the state machine's steps, as
their direct invokes run them (LoadSession -> Understand -> Retrieve when the plan has an ask ->
Answer), returns the reply `POST /v1/chat`'s service gives for the same turn: the same blocks, the
same text, decision and citations. The largest state an execution would carry stays under
200 KB (the Express limit is 256 KB).

`make parity` runs every message (.ci/run calls it); `make test` runs every DUOCTHU_PARITY_STRIDE-th
(default 40) so a change that breaks the contract fails there too. Held-out rows are answered and
compared, never printed: a failure names the row's id only.
"""

from __future__ import annotations

import json
import os
from typing import Any

from duocthu.api.runtime import get_runtime
from duocthu.api.services.chat import chat_response, chat_service
from duocthu.api.turn_steps import run_step
from duocthu.tools.evals.manifest import gold_dir
from duocthu.tools.gold_batch import gold_messages

from tests.integration.test_handlers import LambdaContext, env, load_function  # noqa: F401 - env is a fixture

MAX_STATE_BYTES = 200_000
STRIDE = int(os.environ.get("DUOCTHU_PARITY_STRIDE", "40"))


def _requests() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in gold_messages(gold_dir())]
    return rows[::STRIDE] if STRIDE > 1 else rows


def _through_steps(message: str, history: list[str]) -> tuple[dict[str, Any], int]:
    """What an execution returns, and the size of the largest state it passes between states."""
    runtime = get_runtime()
    session = run_step(
        runtime, {"step": "load_session", "turn": {"message": message, "history": history}}, None
    )
    understand, retrieve = FUNCTIONS["understand"], FUNCTIONS["retrieve"]
    request = {k: session[k] for k in ("message", "history", "prior_frame", "subject_scope")}
    understood = understand.handler(request, LambdaContext())
    plan = understood["plan"]
    evidence = retrieve.handler({"plan": plan}, LambdaContext()) if plan["asks"] else None
    state = {"session": session, "understood": {"plan": plan}, "turn": {"evidence": evidence}}
    response = run_step(
        runtime, {"step": "answer", "session": session, "plan": plan, "evidence": evidence}, None
    )
    answered = {**state, "turn": {"response": response}}  # the reply takes the evidence's place
    largest = max(len(json.dumps(s, ensure_ascii=False).encode()) for s in (state, answered))
    return response, largest


FUNCTIONS: dict[str, Any] = {}


def test_every_gold_message_through_the_steps_is_answered_as_chat_answers_it(env: None) -> None:  # noqa: F811
    FUNCTIONS.update({name: load_function(name) for name in ("understand", "retrieve")})
    service = chat_service(get_runtime())
    differ: list[str] = []
    largest = (0, "")
    for request in _requests():
        history = [turn["content"] for turn in request["history"]]
        expected = chat_response(service.turn(request["message"], history=history)).model_dump(mode="json")
        got, size = _through_steps(request["message"], history)
        largest = max(largest, (size, request["id"]))
        keep = (
            "answer",
            "blocks",
            "decision",
            "reason",
            "citations",
            "quick_replies",
            "system_error",
            "bundle",
        )
        if {k: got[k] for k in keep} != {k: expected[k] for k in keep}:
            differ.append(request["id"])
    assert differ == [], f"{len(differ)} replies differ between the steps and chat: {differ[:20]}"
    assert largest[0] < MAX_STATE_BYTES, f"state of {largest[0]} bytes at {largest[1]}"

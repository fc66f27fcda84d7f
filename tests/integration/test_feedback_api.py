"""POST /v1/feedback through the chat function: a report on a turn is kept beside its session (in
the session store, surviving the next turn's save), counted in a metric, and refused for a session
this service did not issue."""

from __future__ import annotations

import json

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.store.sessions import ConversationUnavailable, get_conversation_store

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")


def test_a_report_is_kept_beside_its_session_and_counted(capsys: pytest.CaptureFixture[str]) -> None:
    chat = load_function("chat")
    status, turn, _ = call(chat, http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"}))
    assert status == 200 and turn["turn_id"]  # the request id the turn's logs carry
    report = {"session_id": turn["session_id"], "turn_id": turn["turn_id"], "note": " thiếu suy tim "}
    status, body, _ = call(chat, http_event("POST", "/v1/feedback", report))
    assert status == 201
    assert body == {"session_id": turn["session_id"], "turn_id": turn["turn_id"], "stored": True}
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert any(m.get("Feedback") == [1.0] for m in metrics)
    # a later turn of the same session keeps it
    follow_up = {"message": "còn thận trọng?", "session_id": turn["session_id"]}
    call(chat, http_event("POST", "/v1/chat", follow_up))
    state = get_conversation_store(get_runtime().settings).load(turn["session_id"])
    assert state and [(f.turn_id, f.note) for f in state.feedback] == [(turn["turn_id"], "thiếu suy tim")]
    assert len(state.turns) == 4


def test_a_report_on_a_session_not_issued_is_a_404() -> None:
    report = {"session_id": "alice", "turn_id": "t1"}
    status, body, _ = call(load_function("chat"), http_event("POST", "/v1/feedback", report))
    assert status == 404 and body["error"] == "session_not_found"


def test_a_store_that_cannot_answer_is_a_503_not_a_silent_drop(monkeypatch: pytest.MonkeyPatch) -> None:
    chat = load_function("chat")
    _, turn, _ = call(chat, http_event("POST", "/v1/chat", {"message": "Chỉ định của losartan?"}))
    store = get_conversation_store(get_runtime().settings)

    def down(*_: object) -> None:
        raise ConversationUnavailable("down")

    monkeypatch.setattr(store, "save", down)
    report = {"session_id": turn["session_id"], "turn_id": turn["turn_id"]}
    status, body, headers = call(chat, http_event("POST", "/v1/feedback", report))
    assert status == 503 and body["error"] == "conversation_store_unavailable" and headers["Retry-After"]


@pytest.mark.parametrize("bad", [{"turn_id": "t1"}, {"session_id": "s", "turn_id": "t1", "note": "x" * 1001}])
def test_a_malformed_report_is_a_422(bad: dict[str, str]) -> None:
    status, body, _ = call(load_function("chat"), http_event("POST", "/v1/feedback", bad))
    assert status == 422 and body["error"] == "invalid_request"

"""Sessions an attacker cannot borrow and an operator need not clean: an id is bound to the JWT
`sub` that started it (another principal's is a 404), a store that cannot save answers statelessly
and says so (never a 404 for the id it issued), session files expire with the TTL, and no user
text reaches an error message or the local access log."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest
from duocthu.api.body import InvalidInput, validated
from duocthu.api.models import UnderstandRequest
from duocthu.api.services import chat as chat_service
from duocthu.store.sessions import ConversationState, ConversationUnavailable, FileConversationStore

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")
QUESTION = "Chống chỉ định của ibuprofen?"


def turn(chat: Any, body: dict[str, Any], sub: str | None = None) -> tuple[int, dict[str, Any]]:
    event = http_event("POST", "/v1/chat", body)
    if sub is not None:
        event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": sub}, "scopes": None}}
    status, payload, _ = call(chat, event)
    return status, payload


def test_a_session_is_bound_to_the_principal_that_started_it() -> None:
    chat = load_function("chat")
    status, first = turn(chat, {"message": QUESTION}, sub="doctor-a")
    assert status == 200
    session = first["session_id"]
    status, other = turn(chat, {"message": "Còn liều dùng?", "session_id": session}, sub="doctor-b")
    assert status == 404 and other["error"] == "session_not_found" and session not in json.dumps(other)
    status, again = turn(chat, {"message": "Còn liều dùng?", "session_id": session}, sub="doctor-a")
    assert status == 200 and again["session_id"] == session and again["frame"]["drugs"] == ["ibuprofen"]
    status, _ = turn(chat, {"message": "Còn liều dùng?", "session_id": session})  # no principal
    assert status == 404


class ReadOnlyStore:
    """A session folder that reads and cannot write (a read-only mount)."""

    backend = "file"

    def load(self, session_id: str) -> ConversationState | None:
        return None

    def save(self, state: ConversationState) -> None:
        raise ConversationUnavailable("read-only file system")

    def ping(self) -> None:
        raise ConversationUnavailable("the sessions folder is not writable")


def test_a_store_that_cannot_save_answers_statelessly_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_service, "get_conversation_store", lambda _settings: ReadOnlyStore())
    chat = load_function("chat")
    status, first = turn(chat, {"message": QUESTION})
    assert status == 200 and first["system_error"] == "conversation_store_unavailable"
    status, second = turn(chat, {"message": QUESTION, "session_id": first["session_id"]})
    assert status == 200 and second["decision"] == "ANSWERABLE"  # not a 404 for the id it issued
    assert second["system_error"] == "conversation_store_unavailable"


def test_session_files_expire_with_the_ttl(tmp_path: Path) -> None:
    store = FileConversationStore(tmp_path / "sessions", ttl_s=60)
    store.save(ConversationState(session_id="old").with_turn("a private question", "answer", None))
    store.save(ConversationState(session_id="fresh").with_turn("another", "answer", None))
    stale = time.time() - 120
    os.utime(tmp_path / "sessions" / "old.json", (stale, stale))
    assert store.sweep() == 1
    assert not (tmp_path / "sessions" / "old.json").exists() and store.load("fresh") is not None
    store._swept_at = 0.0  # a save sweeps at most hourly; the first one after a start sweeps
    os.utime(tmp_path / "sessions" / "fresh.json", (stale, stale))
    store.save(ConversationState(session_id="new").with_turn("x", "y", None))
    assert sorted(p.name for p in (tmp_path / "sessions").glob("*.json")) == ["new.json"]


def test_a_bad_direct_input_names_fields_never_the_text() -> None:
    secret = "bệnh nhân Nguyễn Văn A, 62 tuổi, eGFR 38"
    with pytest.raises(InvalidInput) as caught:
        validated(UnderstandRequest, {"message": secret, "history": "not a list"})
    assert "history" in str(caught.value) and secret not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_the_local_access_log_has_no_query(caplog: pytest.LogCaptureFixture) -> None:
    import socket
    import threading

    from duocthu.tools.localserver import make_server

    httpd = make_server(port=0, workers=1)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        with caplog.at_level(logging.INFO, logger="duocthu.tools.localserver"):
            with socket.create_connection(httpd.server_address, timeout=10) as sock:
                sock.sendall(
                    b"GET /v1/drugs?q=secret-patient-name HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                while sock.recv(65536):
                    pass
            with socket.create_connection(httpd.server_address, timeout=10) as sock:
                sock.sendall(b"GET /v1/drugs?q=secret-patient-name HTTP/9.9\r\n\r\n")
                while sock.recv(65536):
                    pass
    finally:
        httpd.shutdown()
        httpd.server_close()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "GET /v1/drugs 200" in logged and "secret-patient-name" not in logged


def test_a_report_is_kept_only_on_the_reporters_own_session() -> None:
    chat = load_function("chat")
    _, first = turn(chat, {"message": QUESTION}, sub="doctor-a")
    report = {"session_id": first["session_id"], "turn_id": first["turn_id"]}

    def feedback(sub: str) -> int:
        event = http_event("POST", "/v1/feedback", report)
        event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": sub}, "scopes": None}}
        return call(chat, event)[0]

    assert feedback("doctor-b") == 404
    assert feedback("doctor-a") == 201

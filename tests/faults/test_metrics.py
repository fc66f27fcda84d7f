"""A failed dependency is told apart in the metrics, not only in the response: the chat function
emits `SystemError_<system_error>` beside `Decision_*` and `Reason_*`."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.api.services import chat as chat_services
from duocthu.store.sessions import ConversationState, ConversationUnavailable

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")


class Down:
    backend = "dynamodb"

    def load(self, session_id: str) -> ConversationState | None:
        raise ConversationUnavailable("connection refused")

    def save(self, state: ConversationState) -> None:
        raise ConversationUnavailable("connection refused")

    def ping(self) -> None:
        raise ConversationUnavailable("connection refused")


def test_a_failed_dependency_has_its_own_metric(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(chat_services, "get_conversation_store", lambda _: Down())
    status, body, _ = call(
        load_function("chat"), http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200 and body["system_error"] == "conversation_store_unavailable"
    emitted: Any = capsys.readouterr().out
    assert '"SystemError_conversation_store_unavailable"' in emitted and '"Decision_ANSWERABLE"' in emitted

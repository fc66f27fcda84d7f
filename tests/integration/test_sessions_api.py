"""Sessions through the chat function: the server issues the id, an id it did not issue is a 404
`session_not_found`, and the patient's facts stay out of the response's frame."""

from __future__ import annotations

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.settings import get_settings

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")

PATIENT = "Tôi bị suy thận, đang uống warfarin, dị ứng penicilin. Bị đau đầu thì dùng thuốc gì?"


def test_the_first_turn_gets_a_server_issued_id_that_later_turns_reuse() -> None:
    chat = load_function("chat")
    status, first, _ = call(
        chat, http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200 and len(first["session_id"]) == 22
    status, second, _ = call(
        chat,
        http_event("POST", "/v1/chat", {"message": "còn thận trọng?", "session_id": first["session_id"]}),
    )
    assert status == 200 and second["session_id"] == first["session_id"]
    assert second["frame"]["drugs"] == ["ibuprofen"]  # the session carried the drug


def test_a_client_chosen_id_is_refused() -> None:
    status, body, _ = call(
        load_function("chat"), http_event("POST", "/v1/chat", {"message": "ibuprofen", "session_id": "alice"})
    )
    assert status == 404 and body["error"] == "session_not_found"
    assert "decision" not in body  # nothing of any session is returned


def test_the_patient_s_facts_stay_out_of_the_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    chat = load_function("chat")
    status, body, _ = call(chat, http_event("POST", "/v1/chat", {"message": PATIENT}))
    assert status == 200 and not any(body["frame"]["patient_context"].values())
    # with the debug setting on, they are shown (and so were read: the check above can fail)
    monkeypatch.setenv("DUOCTHU_DEBUG_FRAME", "true")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    status, debug, _ = call(load_function("chat"), http_event("POST", "/v1/chat", {"message": PATIENT}))
    assert status == 200 and any(debug["frame"]["patient_context"].values())

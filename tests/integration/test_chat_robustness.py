"""Any well-formed /v1/chat request gets a 200 with a decision from the closed vocabulary; any
malformed one a 422. Never a 500, whatever the text (hypothesis-generated, Vietnamese-flavoured)."""

from __future__ import annotations

import json
from typing import Any

from duocthu.core.vocabulary import DECISIONS, REASONS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - env is a fixture

WORDS = [
    "chống",
    "chỉ",
    "định",
    "liều",
    "thuốc",
    "ibuprofen",
    "warfarin",
    "Panadol",
    "trẻ",
    "12",
    "kg",
    "chó",
    "tương",
    "tác",
    "gì",
    "?",
    "suy",
    "thận",
    "aspirinol",
    "ho",
    "khan",
    "đặt",
    "oxy",
    "DAT",
]
messages = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join),
    st.text(min_size=1, max_size=300),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=messages)
def test_any_message_is_answered_or_rejected_never_a_500(env: None, message: str) -> None:  # noqa: F811
    status, body, _ = call(load_function("chat"), http_event("POST", "/v1/chat", {"message": message}))
    if message.strip():
        assert status == 200, body
        assert body["decision"] in DECISIONS and body["reason"] in REASONS and body["session_id"]
        if body["decision"] != "ABSTAIN":
            assert body["citations"], "an answer always shows its source"
    else:
        assert status in (200, 422), body


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_any_body_is_a_200_or_a_422(env: None, body: Any) -> None:  # noqa: F811
    raw = body.decode("latin-1") if isinstance(body, bytes) else body
    status, payload, _ = call(load_function("chat"), http_event("POST", "/v1/chat", raw))
    assert status in (200, 422), payload
    if status == 422:
        assert payload["error"] == "invalid_request"
    json.dumps(payload)

"""One error contract at the edge: the issue's reproducers through the real handlers, each a 4xx
with a machine-readable `error` (never a TypeError, RecursionError or ValueError out of the
resolver), and a catch-all 500 that carries the correlation id and is counted."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from duocthu.api.body import MAX_BODY_BYTES, MAX_INT_DIGITS, MAX_JSON_DEPTH, check_body
from duocthu.api.services import chat as chat_service

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")


def post(
    function: str, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    event = http_event("POST", path, body)
    event["headers"].update(headers or {})
    status, payload, _ = call(load_function(function), event)
    return status, payload


@pytest.mark.parametrize(
    ("function", "path", "body", "field"),
    [
        (
            "retrieve",
            "/v1/retrieve",
            {"frame": {"turn_type": "drug_attribute", "quick_replies": False}},
            "quick_replies",
        ),
        (
            "understand",
            "/v1/understand",
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "population": []}},
            "population",
        ),
        (
            "understand",
            "/v1/understand",
            {"message": "x", "prior_frame": {"turn_type": ["smalltalk"]}},
            "turn_type",
        ),
        (
            "understand",
            "/v1/understand",
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "drugs": 5}},
            "drugs",
        ),
        (
            "understand",
            "/v1/understand",
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "route": {}}},
            "route",
        ),
        (
            "understand",
            "/v1/understand",
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "attribute": 1}},
            "attribute",
        ),
        (
            "retrieve",
            "/v1/retrieve",
            {"frame": {"turn_type": "drug_attribute", "patient_context": {"labs": [1]}}},
            "labs",
        ),
        (
            "retrieve",
            "/v1/retrieve",
            {"frame": {"turn_type": "drug_attribute", "condition_relation": []}},
            "condition_relation",
        ),
    ],
)
def test_a_wrong_type_in_a_frame_is_a_422_naming_the_field(
    function: str, path: str, body: dict[str, Any], field: str
) -> None:
    status, payload = post(function, path, body)
    assert status == 422 and payload["error"] == "invalid_request"
    assert any(field in err["loc"] for err in payload["detail"]), payload["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"message": "x", "history": ["a" * 2001]}, "history"),
        ({"message": "x", "history": ["a"] * 21}, "history"),
        (
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "standalone_query": "a" * 4001}},
            "standalone_query",
        ),
        (
            {
                "message": "x",
                "prior_frame": {"turn_type": "smalltalk", "drugs": [f"d{i}" for i in range(65)]},
            },
            "drugs",
        ),
        (
            {"message": "x", "prior_frame": {"turn_type": "smalltalk", "condition": {"text": "a" * 4001}}},
            "text",
        ),
    ],
)
def test_side_fields_are_capped(body: dict[str, Any], field: str) -> None:
    status, payload = post("understand", "/v1/understand", body)
    assert status == 422 and any(field in err["loc"] for err in payload["detail"])


def test_a_retrieve_condition_is_capped() -> None:
    frame = {"turn_type": "condition_to_drug", "condition": {"text": "tăng huyết áp " * 400}}
    status, payload = post("retrieve", "/v1/retrieve", {"frame": frame})
    assert status == 422 and payload["error"] == "invalid_request"


@pytest.mark.parametrize(
    ("raw", "status", "kind"),
    [
        ('{"message": "x", "session_id": ' + "9" * 5000 + "}", 422, "int_too_long"),
        ('{"message": "x", "session_id": -' + "9" * (MAX_INT_DIGITS + 1) + "}", 422, "int_too_long"),
        ('{"message": ' + "[" * 1000 + "]" * 1000 + "}", 422, "json_too_deep"),
        ('{"message": ' + "[" * 100_000 + "]" * 100_000 + "}", 422, "json_too_deep"),
        (
            '{"message": ' + '{"a":' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (MAX_JSON_DEPTH + 1) + "}",
            422,
            "json_too_deep",
        ),
        (json.dumps({"message": "x" * MAX_BODY_BYTES}), 413, "body_too_large"),
    ],
)
def test_hostile_json_bodies_are_4xx(raw: str, status: int, kind: str) -> None:
    got, payload = post("chat", "/v1/chat", raw)
    assert got == status and payload["detail"][0]["type"] == kind and payload["error"]


@pytest.mark.parametrize(
    "content_type",
    [
        "multipart/form-data",
        "multipart/form-data; charset=utf-8",
        "text/plain",
        "application/x-www-form-urlencoded",
    ],
)
def test_a_body_that_is_not_json_is_a_415_with_error(content_type: str) -> None:
    status, payload = post("chat", "/v1/chat", '{"message":"x"}', {"content-type": content_type})
    assert status == 415 and payload["error"] == "unsupported_media_type"


def test_json_with_a_charset_is_accepted() -> None:
    status, payload = post(
        "chat",
        "/v1/chat",
        {"message": "Chỉ định của losartan?"},
        {"content-type": "application/json; charset=utf-8"},
    )
    assert status == 200 and payload["decision"] == "ANSWERABLE"


def test_invalid_base64_and_invalid_utf8_are_422() -> None:
    event = http_event("POST", "/v1/chat", "not base64!")
    event["isBase64Encoded"] = True
    status, payload, _ = call(load_function("chat"), event)
    assert status == 422 and payload["error"] == "invalid_request"
    event["body"] = base64.b64encode(b'{"message": "\xff"}').decode()
    status, payload, _ = call(load_function("chat"), event)
    assert status == 422 and payload["detail"][0]["type"] == "body_encoding"


def test_an_unhandled_fault_is_a_500_with_the_correlation_id_logged_and_counted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_function("chat")

    def broken(*_: Any, **__: Any) -> Any:
        raise KeyError("a bug")

    monkeypatch.setattr(chat_service, "chat", broken)
    logged: list[str] = []
    monkeypatch.setattr(module.logger, "exception", lambda message, *_, **__: logged.append(message))
    event = http_event("POST", "/v1/chat", {"message": "Chỉ định của losartan?"})
    status, payload, _ = call(module, event)
    assert status == 500 and payload["error"] == "internal_error"
    assert payload["correlation_id"] == event["requestContext"]["requestId"]
    assert "a bug" not in json.dumps(payload)  # the fault is logged, never shown
    assert logged == ["unhandled error"]  # logger.exception: the line carries the traceback
    assert '"InternalError"' in capsys.readouterr().out  # the EMF metric the function flushed


def test_check_body_passes_what_the_models_accept() -> None:
    event = http_event("POST", "/v1/chat", {"message": "x", "history": [[{"a": [1, 2.5, None]}]]})
    assert check_body(event) is None
    assert check_body(http_event("GET", "/health")) is None


POST_ROUTES = [
    ("chat", "/v1/chat", {"message": "Chỉ định của losartan?"}),
    ("understand", "/v1/understand", {"message": "Chỉ định của losartan?"}),
    ("retrieve", "/v1/retrieve", {"frame": {"turn_type": "drug_attribute"}}),
]
MEDIA_TYPES = [
    "Application/JSON",
    "APPLICATION/JSON; charset=UTF-8",
    "text/plain",
    "Text/Plain",
    "application/xml",
    "multipart/form-data",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
]


@pytest.mark.parametrize(("function", "path", "good"), POST_ROUTES)
def test_every_media_type_and_body_is_a_2xx_or_a_named_4xx(function: str, path: str, good: Any) -> None:
    """Media types are case-insensitive; an empty body of another type is a 415, never a 500."""
    module = load_function(function)
    for content_type in MEDIA_TYPES:
        for body in (None, "", json.dumps(good, ensure_ascii=False)):
            event = http_event("POST", path, body)
            event["headers"]["content-type"] = content_type
            status, payload, _ = call(module, event)
            is_json = content_type.lower().startswith("application/json")
            if not is_json:
                assert status == 415 and payload["error"] == "unsupported_media_type", (content_type, body)
            elif body:
                assert status == 200, (content_type, payload)
            else:
                assert status == 422 and payload["error"] == "invalid_request", (content_type, body)

"""The understand function end to end: API Gateway HTTP API (v2) events and direct invokes, with
the offline provider (the default) and with Bedrock pinned by botocore Stubber."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from duocthu.api.runtime import get_runtime
from duocthu.api.services import understand as services
from duocthu.core.deadline import Deadline
from duocthu.core.errors import DependencyUnavailable
from duocthu.providers import bedrock as bedrock_module
from duocthu.settings import get_settings
from duocthu.understanding.candidates import Turn
from duocthu.understanding.prompt import TOOL_NAME
from duocthu.understanding.providers import get_frame_provider

from tests.integration.test_handlers import LambdaContext, call, env, http_event, load_function  # noqa: F401

pytestmark = pytest.mark.usefixtures("env")
MODEL = "global.anthropic.claude-haiku-4-5-20251001-v1:0"


def _metrics(out: str) -> set[str]:
    """Metric names in the EMF blobs Powertools printed."""
    names: set[str] = set()
    for line in out.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            blob = json.loads(line)
            for directive in blob["_aws"]["CloudWatchMetrics"]:
                names.update(m["Name"] for m in directive["Metrics"])
    return names


def test_http_frames_and_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    understand = load_function("understand")
    status, frame, _ = call(
        understand, http_event("POST", "/v1/understand", {"message": "Ibuprofen cần thận trọng gì?"})
    )
    assert status == 200
    assert (frame["turn_type"], frame["drugs"], frame["attribute"]) == (
        "drug_attribute",
        ["ibuprofen"],
        "than_trong",
    )
    assert frame["system_error"] is None and "raw" not in frame
    assert {"TurnType_drug_attribute"} <= _metrics(capsys.readouterr().out)

    status, frame, _ = call(
        understand, http_event("POST", "/v1/understand", {"message": "Chống chỉ định là gì?"})
    )
    assert status == 200 and frame["needs_clarify"] and frame["drugs"] == []
    assert {"TurnType_drug_attribute", "Clarify"} <= _metrics(capsys.readouterr().out)


def test_http_follow_up_with_history_and_prior_frame() -> None:
    body = {
        "message": "Còn liều dùng thì sao?",
        "history": ["Omeprazol dùng để làm gì?"],
        "prior_frame": {"turn_type": "drug_to_condition", "drugs": ["omeprazol"], "attribute": "chi_dinh"},
    }
    status, frame, _ = call(load_function("understand"), http_event("POST", "/v1/understand", body))
    assert (
        status == 200 and frame["drugs"] == ["omeprazol"] and frame["attribute"] == "lieu_luong_va_cach_dung"
    )


def test_a_caller_scope_claim_narrows_over_http() -> None:
    body = {"message": "Liều paracetamol cho 10 kg?", "subject_scope": "non_human"}
    status, frame, _ = call(load_function("understand"), http_event("POST", "/v1/understand", body))
    assert status == 200 and frame["turn_type"] == "out_of_scope" and not frame["needs_clarify"]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, "message"),
        ({"message": ""}, "message"),
        ({"message": "x", "extra": 1}, "extra"),
        ({"message": "x", "history": "not a list"}, "history"),
        (
            {"message": "x", "prior_frame": {"turn_type": "drug_attribute", "drugs": ["Not An Id!"]}},
            "prior_frame",
        ),
        ({"message": "x", "subject_scope": "martian"}, "subject_scope"),
        ("{not json", None),
    ],
)
def test_bad_input_is_422_with_a_reason(body: Any, loc: str | None) -> None:
    status, payload, _ = call(load_function("understand"), http_event("POST", "/v1/understand", body))
    assert status == 422 and payload["error"] == "invalid_request"
    if loc:
        assert any(loc in map(str, d["loc"]) for d in payload["detail"])


def test_direct_invoke_returns_the_frame_and_its_plan() -> None:
    understood = load_function("understand").handler({"message": "Thuốc nào gây ho khan?"}, LambdaContext())
    frame = understood["frame"]
    assert frame["turn_type"] == "condition_relation" and frame["condition_relation"] == "adverse_effect"
    assert [ask["kind"] for ask in understood["plan"]["asks"]] == ["relation"]


def test_the_turn_deadline_comes_from_the_lambda_context(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []

    class Recording:
        name = "recording"

        def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
            seen.append(deadline.remaining_s())
            return {"turn_type": "smalltalk"}

    monkeypatch.setattr(services, "get_frame_provider", lambda settings: Recording())
    load_function("understand").handler({"message": "Xin chào"}, LambdaContext())  # 10 s remaining
    assert len(seen) == 1 and 8.0 < seen[0] <= 8.5  # minus the 1.5 s margin


# --- Bedrock configured ----------------------------------------------------------------------------


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch, aws_env: None) -> Iterator[Stubber]:
    """UNDERSTANDING_MODEL_ID set (so Bedrock is the provider), its client stubbed."""
    for name, value in {
        "UNDERSTANDING_MODEL_ID": MODEL,
        "BEDROCK_REGION": "ap-southeast-1",
    }.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    get_runtime.cache_clear()
    get_frame_provider.cache_clear()
    client = boto3.client("bedrock-runtime", region_name="ap-southeast-1")
    monkeypatch.setattr(bedrock_module, "_client", lambda *args: client)
    with Stubber(client) as stubber:
        yield stubber
    get_frame_provider.cache_clear()


def _request() -> dict[str, Any]:
    return {"modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": ANY, "inferenceConfig": ANY}


def test_bedrock_answer_over_http(bedrock: Stubber) -> None:
    answer = {"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "than_trong"}
    bedrock.add_response(
        "converse",
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "t1", "name": TOOL_NAME, "input": answer}}],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
            "metrics": {"latencyMs": 1},
        },
        _request(),
    )
    status, frame, _ = call(
        load_function("understand"),
        http_event("POST", "/v1/understand", {"message": "Ibuprofen cần thận trọng gì?"}),
    )
    assert status == 200 and frame["drugs"] == ["ibuprofen"] and frame["attribute"] == "than_trong"


def test_throttling_is_503_with_retry_after_and_typed_on_direct_invoke(
    bedrock: Stubber, capsys: pytest.CaptureFixture[str]
) -> None:
    understand = load_function("understand")
    bedrock.add_client_error(
        "converse", "ThrottlingException", http_status_code=429, expected_params=_request()
    )
    status, body, headers = call(
        understand, http_event("POST", "/v1/understand", {"message": "Liều ibuprofen?"})
    )
    assert status == 503 and body["error"] == "understanding_provider_unavailable" and headers["Retry-After"]
    assert "SystemError_understanding_provider_unavailable" in _metrics(capsys.readouterr().out)

    bedrock.add_client_error(
        "converse", "ThrottlingException", http_status_code=429, expected_params=_request()
    )
    with pytest.raises(DependencyUnavailable) as raised:
        understand.handler({"message": "Liều ibuprofen?"}, LambdaContext())
    assert raised.value.reason == "understanding_provider_unavailable"


def test_malformed_output_is_502_and_typed_on_direct_invoke(bedrock: Stubber) -> None:
    understand = load_function("understand")
    text_only = {
        "output": {"message": {"role": "assistant", "content": [{"text": "Ibuprofen..."}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }
    bedrock.add_response("converse", text_only, _request())
    status, body, _ = call(understand, http_event("POST", "/v1/understand", {"message": "Liều ibuprofen?"}))
    assert status == 502 and body["error"] == "understanding_malformed_output"
    bedrock.add_response("converse", text_only, _request())
    with pytest.raises(DependencyUnavailable) as raised:
        understand.handler({"message": "Liều ibuprofen?"}, LambdaContext())
    assert raised.value.reason == "understanding_malformed_output"

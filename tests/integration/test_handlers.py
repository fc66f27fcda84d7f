"""The three functions through real API Gateway HTTP API (v2) events and direct invokes."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.catalog.artifact import Catalog
from duocthu.core.errors import DependencyUnavailable
from duocthu.settings import Settings, get_settings
from duocthu.store import StoreUnavailable
from duocthu.store.edge import EdgeStore

from tests.conftest import ROOT

EVENTS = ROOT / "infra" / "events"


@dataclass
class LambdaContext:
    function_name: str = "test"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:ap-southeast-1:123456789012:function:test"
    aws_request_id: str = "da658bd3-2d6f-4e7b-8ec2-937234644fdc"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def http_event(method: str, path: str, body: Any = None, query: str = "") -> dict[str, Any]:
    event = copy.deepcopy(json.loads((EVENTS / "apiGatewayProxyV2Event.json").read_text()))
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["rawQueryString"] = query
    if query:
        event["queryStringParameters"] = dict(p.split("=", 1) for p in query.split("&"))
    event["body"] = body if isinstance(body, str) or body is None else json.dumps(body, ensure_ascii=False)
    return event


def load_function(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"fn_{name}", ROOT / "functions" / name / "app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as Lambda's import would
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, sample_index: tuple[EdgeStore, Catalog, Settings]) -> Iterator[None]:
    _, _, settings = sample_index
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "DuocthuTest")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "duocthu")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    yield
    get_runtime.cache_clear()
    get_settings.cache_clear()


def call(module: ModuleType, event: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    response = module.handler(event, LambdaContext())
    return response["statusCode"], json.loads(response["body"]), response.get("headers", {})


def test_chat_answers_with_citation(env: None) -> None:
    status, body, _ = call(
        load_function("chat"), http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200
    assert (body["decision"], body["reason"]) == ("ANSWERABLE", "grounded_evidence_available")
    assert body["citations"] and "Chống chỉ định" in body["citations"][0]
    assert all(item["section_key"] == "chong_chi_dinh" for item in body["bundle"]["evidence"])


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, "message"),
        ({"message": ""}, "message"),
        ({"message": 5}, "message"),
        ({"message": "x" * 2001}, "message"),
        ({"message": "x", "session_id": "../../etc"}, "session_id"),
        ({"message": "x", "extra": 1}, "extra"),
        ("{not json", None),
        ("[1, 2]", None),
    ],
)
def test_bad_input_is_422_with_a_reason(env: None, body: Any, loc: str | None) -> None:
    status, payload, _ = call(load_function("chat"), http_event("POST", "/v1/chat", body))
    assert status == 422 and payload["error"] == "invalid_request"
    if loc:
        assert any(loc in map(str, d["loc"]) for d in payload["detail"])


def test_health_and_drug_lookup(env: None) -> None:
    chat = load_function("chat")
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 200 and body["status"] == "ok" and body["drugs"] == 40 and body["sample_data"]
    assert body["providers"]["understanding"] == "offline" and body["providers"]["rerank"] == "off"
    status, body, _ = call(chat, http_event("GET", "/v1/drugs", query="q=Panadol"))
    assert status == 200 and [d["drug_id"] for d in body["drugs"]] == ["paracetamol"]
    status, body, _ = call(chat, http_event("GET", "/v1/drugs", query="q=amoxicilline"))
    assert status == 200 and body["drugs"] == [] and body["suggestions"][0]["drug_id"] == "amoxicilin"
    status, body, _ = call(chat, http_event("GET", "/v1/drugs"))
    assert status == 422


def test_health_is_503_without_an_index(monkeypatch: pytest.MonkeyPatch, env: None, tmp_path: Path) -> None:
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    get_runtime.cache_clear()
    chat = load_function("chat")
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 503 and body["status"] == "unavailable" and "ingest" in body["reason"]
    assert str(tmp_path) not in json.dumps(body)  # no internal path in what anyone may read
    status, body, _ = call(chat, http_event("POST", "/v1/chat", {"message": "ibuprofen"}))
    # the documented ABSTAIN, never a drug answer and never an error status
    assert status == 200 and (body["decision"], body["reason"]) == ("ABSTAIN", "dependency_unavailable")
    assert body["system_error"] == "store_unavailable" and body["session_id"]


def test_understand_http_and_direct(env: None) -> None:
    understand = load_function("understand")
    status, frame, _ = call(
        understand, http_event("POST", "/v1/understand", {"message": "Liều Panadol cho trẻ?"})
    )
    assert (
        status == 200
        and frame["drugs"] == ["paracetamol"]
        and frame["attribute"] == "lieu_luong_va_cach_dung"
    )
    # a direct invoke (the state machine's Understand) returns the frame and the plan made from it
    direct = understand.handler({"message": "thận trọng khi dùng metformin"}, LambdaContext())
    frame = direct["frame"]
    assert frame["turn_type"] == "drug_attribute" and frame["attribute"] == "than_trong"
    assert direct["plan"]["reply"] == "sections" and direct["plan"]["frame"] == frame
    assert direct["plan"]["asks"][0] == {
        **direct["plan"]["asks"][0],
        "kind": "section",
        "drugs": ["metformin"],
        "section_key": "than_trong",
    }


def test_retrieve_by_frame_and_explicit_form(env: None) -> None:
    retrieve = load_function("retrieve")
    frame = {"turn_type": "drug_attribute", "drugs": ["amiodaron"], "attribute": "tuong_tac_thuoc"}
    status, bundle, _ = call(retrieve, http_event("POST", "/v1/retrieve", {"frame": frame}))
    assert status == 200 and bundle["decision"] == "VERIFY_PDF"
    bundle = retrieve.handler({"drug_id": "omeprazol", "section_key": "chi_dinh"}, LambdaContext())
    assert bundle["decision"] == "ANSWERABLE" and [e["part_index"] for e in bundle["evidence"]] == list(
        range(len(bundle["evidence"]))
    )
    status, _, _ = call(retrieve, http_event("POST", "/v1/retrieve", {"frame": frame, "drug_id": "x"}))
    assert status == 422


def test_store_down_is_503_over_http_and_typed_on_direct_invoke(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    retrieve = load_function("retrieve")

    def down(*_: Any, **__: Any) -> Any:
        raise StoreUnavailable("connection refused")

    monkeypatch.setattr(get_runtime().store, "find_by_section", down)
    status, body, headers = call(
        retrieve, http_event("POST", "/v1/retrieve", {"drug_id": "ibuprofen", "section_key": "than_trong"})
    )
    assert status == 503 and body["error"] == "store_unavailable" and headers["Retry-After"] == "5"
    with pytest.raises(DependencyUnavailable):
        retrieve.handler({"drug_id": "ibuprofen", "section_key": "than_trong"}, LambdaContext())


def test_health_is_503_when_the_store_stops_answering(env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = load_function("chat")

    def down(*_: Any, **__: Any) -> Any:
        raise StoreUnavailable("connection refused")

    monkeypatch.setattr(get_runtime().store, "count", down)
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 503 and body["reason"].startswith("store_unavailable")


def test_health_is_503_when_the_index_was_built_with_another_embedding_model(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an index built without dense vectors and a Bedrock embedding model configured
    monkeypatch.setenv("EMBEDDING_PROVIDER", "bedrock")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    status, body, _ = call(load_function("chat"), http_event("GET", "/health"))
    # Then the service says it is not ready, and why, instead of failing each reverse lookup
    assert status == 503 and body["reason"].startswith("embedding_model_mismatch")

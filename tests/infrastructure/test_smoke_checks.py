"""infra/smoke/run.py's pieces: the environment it derives from the template (what a default
deploy sets), the events it sends and what it counts as a failure. `make smoke` runs it whole."""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "infra"))  # the infra tools are scripts, not a package
from smoke import run as smoke

TEMPLATE: dict[str, Any] = smoke.read_template(ROOT / "template.yaml")


def _with_defaults(**defaults: str) -> dict[str, Any]:
    template = copy.deepcopy(TEMPLATE)
    for name, value in defaults.items():
        template["Parameters"][name]["Default"] = value
    return template


def test_a_default_deploy_unpacks_the_data_layers_index_into_tmp() -> None:
    env = smoke.template_environment(TEMPLATE)
    assert env["DUOCTHU_DATA_DIR"] == "/tmp/duocthu"
    assert env["DUOCTHU_PACKED_INDEX"] == "/opt/duocthu/index.tar.gz"
    assert (env["QDRANT_URL"], env["CATALOG_S3_URI"], env["RERANK_PROVIDER"]) == ("", "", "off")


@pytest.mark.parametrize(
    ("defaults", "packed"),
    [
        ({"QdrantUrl": "https://qdrant.example"}, ""),  # a server holds the index: nothing to unpack
        ({"PackedIndexS3Uri": "s3://b/duocthu/v1/index.tar.gz"}, "s3://b/duocthu/v1/index.tar.gz"),
    ],
)
def test_the_index_source_follows_the_parameters(defaults: dict[str, str], packed: str) -> None:
    assert smoke.template_environment(_with_defaults(**defaults))["DUOCTHU_PACKED_INDEX"] == packed


def test_the_events_are_api_gateway_v2_and_direct_invokes() -> None:
    for function in smoke.FUNCTIONS:
        for name, event in smoke.events(function):
            if name == "direct":
                assert "requestContext" not in event
            else:
                assert event["version"] == "2.0" and event["routeKey"] == "$default"
                assert f"{event['requestContext']['http']['method']} {event['rawPath']}" == name


def _http(status: int, body: Any) -> dict[str, Any]:
    return {"statusCode": status, "body": json.dumps(body)}


GOOD_BUNDLE = {"decision": "ANSWERABLE", "evidence": [{"drug_id": "amoxicilin"}]}


def _result(name: str, output: Any = None, error: str | None = None) -> dict[str, Any]:
    return {"name": name, "ms": 1.0, "output": output, "error": error}


def test_working_answers_pass() -> None:
    chat = [
        _result("POST /v1/chat", _http(200, {"bundle": GOOD_BUNDLE, "citations": ["tr. 1"]})),
        _result("GET /health", _http(200, {"status": "ok"})),
        _result("GET /v1/drugs", _http(200, {"drugs": [{"drug_id": "amoxicilin"}]})),
    ]
    assert smoke.problems("chat", chat) == []
    assert smoke.problems("retrieve", [_result("direct", GOOD_BUNDLE)]) == []
    assert (
        smoke.problems("understand", [_result("POST /v1/understand", _http(200, {"drugs": ["amoxicilin"]}))])
        == []
    )
    # a direct invoke (the state machine's Understand) answers the frame and its plan
    understood = {"frame": {"drugs": ["amoxicilin"]}, "plan": {"reply": "sections", "asks": []}}
    assert smoke.problems("understand", [_result("direct", understood)]) == []
    assert smoke.problems("understand", [_result("direct", {"frame": {"drugs": []}, "plan": {}})])


@pytest.mark.parametrize(
    ("function", "result", "expected"),
    [
        ("chat", _result("GET /health", _http(503, {"status": "not_ready"})), "chat GET /health: HTTP 503"),
        (
            "chat",
            _result("POST /v1/chat", _http(200, {"bundle": GOOD_BUNDLE, "citations": []})),
            "chat POST /v1/chat: not ANSWERABLE with its citation",
        ),
        (
            "chat",
            _result("POST /v1/chat", _http(200, {"bundle": {**GOOD_BUNDLE, "decision": "ABSTAIN"}})),
            "chat POST /v1/chat: not ANSWERABLE",
        ),
        ("retrieve", _result("direct", error="DependencyUnavailable: store"), "retrieve direct: raised"),
        ("understand", _result("direct", {"drugs": []}), "understand direct: the frame names no amoxicilin"),
    ],
)
def test_what_a_broken_deployment_answers_fails(function: str, result: dict[str, Any], expected: str) -> None:
    found = smoke.problems(function, [result])
    assert len(found) == 1 and found[0].startswith(expected), found

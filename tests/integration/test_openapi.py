"""docs/openapi.json is what Powertools generates from the routes and models today."""

from __future__ import annotations

import json

import pytest
from duocthu.tools.openapi import openapi_json

from tests.conftest import ROOT
from tests.integration.test_handlers import env  # noqa: F401 - fixture


def test_committed_openapi_is_current(request: pytest.FixtureRequest) -> None:
    request.getfixturevalue("env")
    current = openapi_json()
    committed = (ROOT / "docs" / "openapi.json").read_text(encoding="utf-8")
    assert committed == current, "run `make openapi` and commit docs/openapi.json"
    document = json.loads(current)
    assert set(document["paths"]) == {
        "/health", "/v1/chat", "/v1/drugs", "/v1/feedback", "/v1/retrieve", "/v1/understand"
    }  # fmt: skip
    assert "422" in json.dumps(document["paths"]["/v1/chat"])


def test_every_error_status_is_declared_with_its_body(request: pytest.FixtureRequest) -> None:
    request.getfixturevalue("env")
    document = json.loads(openapi_json())
    error = {"$ref": "#/components/schemas/ErrorBody"}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            expected = {"422", "429", "500", "503"} | ({"413", "415"} if method == "post" else set())
            assert expected <= set(responses), (path, method)
            for status in expected - {"429", "503" if path == "/health" else ""}:
                assert responses[status]["content"]["application/json"]["schema"] == error, (path, status)
    health = document["paths"]["/health"]["get"]["responses"]
    for status in ("200", "503"):  # an object, up or down, never the string Powertools inferred
        assert health[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/HealthBody"
        }

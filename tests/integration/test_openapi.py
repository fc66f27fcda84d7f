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
    assert set(document["paths"]) == {"/health", "/v1/chat", "/v1/drugs", "/v1/retrieve", "/v1/understand"}
    assert "422" in json.dumps(document["paths"]["/v1/chat"])

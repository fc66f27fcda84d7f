"""infra/events: one event per deployed route and per direct invoke (what `sam local invoke -e`
and `sam local start-api` are given), each answered by its handler as the machine expects, and the
local settings (samconfig.toml, env.json) consistent with the template."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from duocthu.api.models import ChatResponse, UnderstoodTurn
from duocthu.api.turn_steps import TurnInput
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from moto import mock_aws

from tests.conftest import ROOT
from tests.infrastructure.cloudformation import Deployed
from tests.infrastructure.machine import create_conversations_table
from tests.infrastructure.template import read_sam_template
from tests.integration.test_handlers import LambdaContext, env, load_function  # noqa: F401 - env is a fixture

EVENTS = ROOT / "infra" / "events"
STEP_RESULTS = {
    "load_session": None,
    "answer": ChatResponse,
    "save_session": ChatResponse,
    "abstain": ChatResponse,
}


def read(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def test_there_is_an_event_for_every_route_and_every_direct_invoke() -> None:
    routes = {r["Properties"]["RouteKey"] for r in Deployed().of_type("AWS::ApiGatewayV2::Route").values()}
    assert {read(p)["routeKey"] for p in (EVENTS / "http").glob("*.json")} == routes
    states = json.loads((ROOT / "infra" / "statemachine" / "chat_turn.asl.json").read_text())["States"]
    steps = {s["Parameters"]["Payload"].get("step") for s in states.values() if s["Type"] == "Task"}
    direct = {p.stem for p in (EVENTS / "direct").glob("*.json")}
    assert direct >= {"understand", "retrieve", "statemachine-turn"} | {f"chat-{s}" for s in steps - {None}}


@pytest.mark.parametrize("path", sorted((EVENTS / "http").glob("*.json")), ids=lambda p: p.stem)
def test_each_route_event_is_answered(env: None, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    with mock_aws():
        create_conversations_table(monkeypatch)
        chat, event = load_function("chat"), read(path)
        if event["routeKey"] == "POST /v1/feedback":  # a report on a turn: the chat event's, first
            turn = json.loads(chat.handler(read(EVENTS / "http" / "chat.json"), LambdaContext())["body"])
            event["body"] = json.dumps({**json.loads(event["body"]), "session_id": turn["session_id"]})
        response = chat.handler(event, LambdaContext())
    assert response["statusCode"] == (201 if event["routeKey"] == "POST /v1/feedback" else 200), response


@pytest.mark.parametrize("path", sorted((EVENTS / "direct").glob("*.json")), ids=lambda p: p.stem)
def test_each_direct_invoke_event_is_answered(
    env: None,  # noqa: F811
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    function, _, step = path.stem.partition("-")
    event = read(path)
    if function == "statemachine":  # an execution's input (tests/infrastructure/test_state_machine.py)
        TurnInput.model_validate(event)
        return
    with mock_aws():  # sessions in DynamoDB, as deployed (the sample index's folder stays untouched)
        create_conversations_table(monkeypatch)
        result = load_function(function).handler(event, LambdaContext())
    if function == "understand":
        UnderstoodTurn.model_validate(result)
    elif function == "retrieve":
        (GatheredEvidence if step == "plan" else EvidenceBundle).model_validate(result)
    elif STEP_RESULTS[step] is not None:
        ChatResponse.model_validate(result)
    else:
        assert result["session_id"]  # a new conversation: the id is the service's own


def test_sam_local_settings_match_the_template() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    assert config["default"]["local_invoke"]["parameters"]["env_vars"] == "env.json"
    assert config["default"]["deploy"]["parameters"]["capabilities"] == "CAPABILITY_IAM"
    declared = set(read_sam_template()["Globals"]["Function"]["Environment"]["Variables"])
    overrides = read(ROOT / "env.json")  # sam local overrides only variables the template declares
    assert set(overrides["Parameters"]) <= declared
    functions = {
        k for k, v in read_sam_template()["Resources"].items() if v["Type"] == "AWS::Serverless::Function"
    }
    assert set(overrides) - {"Parameters"} <= functions

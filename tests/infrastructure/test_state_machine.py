"""The chat-turn state machine (infra/statemachine/chat_turn.asl.json), run by moto's Step Functions
with the Lambda results the real handlers give for a direct invoke."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from duocthu.api.models import RetrieveRequest, UnderstandRequest
from duocthu.core.errors import DependencyUnavailable
from moto import mock_aws
from moto.moto_api._internal.models import moto_api_backend

from tests.conftest import ROOT
from tests.infrastructure.template import read_sam_template
from tests.integration.test_handlers import LambdaContext, env, load_function  # noqa: F401 - env is a fixture

ACCOUNT, REGION = "123456789012", "ap-southeast-1"
ASL = ROOT / "infra" / "statemachine" / "chat_turn.asl.json"


def definition() -> str:
    text = ASL.read_text(encoding="utf-8")
    for name in ("UnderstandFunctionArn", "RetrieveFunctionArn"):
        text = text.replace("${" + name + "}", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}")
    return text


@pytest.fixture
def stepfunctions(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}):
        client = boto3.client("stepfunctions")
        role = boto3.client("iam").create_role(RoleName="sfn", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        arn = client.create_state_machine(name="chat-turn", definition=definition(), roleArn=role)[
            "stateMachineArn"
        ]
        yield client, arn


def run(client: Any, arn: str, results: list[dict[str, Any]], message: str) -> dict[str, Any]:
    for result in results:  # what each Lambda task returns, in order
        moto_api_backend.set_lambda_simple_result(
            result=json.dumps(result), account_id=ACCOUNT, region=REGION
        )
    execution = client.start_execution(
        stateMachineArn=arn, input=json.dumps({"message": message, "history": []})
    )
    for _ in range(100):
        described = client.describe_execution(executionArn=execution["executionArn"])
        if described["status"] != "RUNNING":
            break
        time.sleep(0.05)
    assert described["status"] == "SUCCEEDED", described
    return dict(json.loads(described["output"]))


def test_a_drug_question_is_understood_then_retrieved(env: None, stepfunctions: tuple[Any, str]) -> None:  # noqa: F811
    message = "Chống chỉ định của ibuprofen?"
    frame = load_function("understand").handler({"message": message, "history": []}, LambdaContext())
    bundle = load_function("retrieve").handler({"frame": frame, "query": message}, LambdaContext())
    output = run(*stepfunctions, [frame, bundle], message)
    assert output["understood"]["frame"]["drugs"] == ["ibuprofen"]
    assert output["retrieved"]["bundle"]["decision"] == "ANSWERABLE"


def test_a_clarifying_turn_skips_retrieval(env: None, stepfunctions: tuple[Any, str]) -> None:  # noqa: F811
    message = "Liều amoxicilline cho người lớn?"
    frame = load_function("understand").handler({"message": message, "history": []}, LambdaContext())
    assert frame["needs_clarify"]
    output = run(*stepfunctions, [frame], message)
    assert "retrieved" not in output and output["understood"]["frame"]["quick_replies"]


def test_the_contract_between_the_states_and_the_functions() -> None:
    states = json.loads(ASL.read_text(encoding="utf-8"))["States"]
    # the payloads the states send are valid direct-invoke requests
    UnderstandRequest.model_validate({"message": "x", "history": []})
    RetrieveRequest.model_validate(
        {"frame": {"turn_type": "drug_overview", "drugs": ["ibuprofen"]}, "query": "x"}
    )
    assert set(states["Understand"]["Parameters"]["Payload"]) <= {
        f"{k}.$" for k in UnderstandRequest.model_fields
    }
    assert set(states["Retrieve"]["Parameters"]["Payload"]) <= {
        f"{k}.$" for k in RetrieveRequest.model_fields
    }
    # the error the functions raise is the one the states retry and then catch into an ABSTAIN
    for task in ("Understand", "Retrieve"):
        assert DependencyUnavailable.__name__ in states[task]["Retry"][0]["ErrorEquals"]
        assert states[task]["Catch"][0]["Next"] == "AbstainDependencyUnavailable"
    assert states["AbstainDependencyUnavailable"]["Result"] == {
        "decision": "ABSTAIN",
        "reason": "dependency_unavailable",
    }
    machine = read_sam_template()["Resources"]["ChatTurnStateMachine"]["Properties"]
    assert (
        machine["Type"] == "EXPRESS" and machine["DefinitionUri"] == "infra/statemachine/chat_turn.asl.json"
    )

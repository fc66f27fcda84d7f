"""The chat-turn state machine run by moto's Step Functions, each Lambda task a call of the real
handler (functions/*/app.py) in this process, with faults injected per function.

moto's simple Lambda backend only replays queued results and never fails, so Retry and Catch
could not be exercised through it. Here the Step Functions parser's one Lambda call
(`lambda_eval_utils._invoke_lambda_function`) is replaced, and the retrier's sleep recorded
instead of waited: both are moto internals (moto is pinned in pyproject.toml), kept in this
one helper.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from duocthu.api.runtime import get_runtime
from duocthu.settings import get_settings
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

from tests.conftest import ROOT
from tests.integration.test_handlers import LambdaContext

ACCOUNT, REGION = "123456789012", "ap-southeast-1"
TABLE = "conversations"
ASL = ROOT / "infra" / "statemachine" / "chat_turn.asl.json"
FUNCTIONS = {
    "UnderstandFunctionArn": "understand",
    "RetrieveFunctionArn": "retrieve",
    "ChatFunctionArn": "chat",
}


def create_conversations_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions in a DynamoDB table (inside mock_aws), as deployed; caches cleared to pick it up."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("CONVERSATION_TABLE", TABLE)
    boto3.client("dynamodb").create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "session_id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "session_id", "KeyType": "HASH"}],
    )
    get_settings.cache_clear()
    get_runtime.cache_clear()


def definition(edit: Callable[[dict[str, Any]], None] | None = None) -> str:
    text = ASL.read_text(encoding="utf-8")
    for name in FUNCTIONS:
        text = text.replace("${" + name + "}", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}")
    machine = json.loads(text)
    if edit:
        edit(machine)
    return json.dumps(machine, ensure_ascii=False)


def lambda_service_error(code: str, status: int = 500) -> ClientError:
    """What the Lambda service answers when it cannot run the function (the machine sees
    `Lambda.<code>`)."""
    response = {
        "Error": {"Code": code, "Message": code},
        "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": "r"},
    }
    return ClientError(response, "Invoke")  # type: ignore[arg-type]


@dataclass
class FunctionError(Exception):
    """The function ran and failed: Lambda reports {errorType, errorMessage} (the machine sees
    errorType, e.g. DependencyUnavailable, or Sandbox.Timedout when it ran out of time)."""

    error_type: str
    message: str = ""


# A fault is consumed by one invoke of its function: a Lambda service error is raised, a function
# error is reported, a number of seconds delays the real handler (for the states' timeouts), a
# dict is returned instead of what the handler would return; None: this invoke runs as it would.
Fault = ClientError | FunctionError | float | dict[str, Any] | None


@dataclass
class FunctionsInProcess:
    modules: dict[str, ModuleType]
    faults: dict[str, list[Fault]] = field(default_factory=lambda: defaultdict(list))
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)  # the retrier's intervals, in order

    def inject(self, function: str, *faults: Fault) -> None:
        self.faults[function].extend(faults)

    def invoke(self, parameters: dict[str, Any], region: str, state_credentials: Any) -> dict[str, Any]:
        name = FUNCTIONS[str(parameters["FunctionName"]).rsplit(":", 1)[-1]]
        payload = json.loads(parameters["Payload"])
        self.calls.append((name, payload))
        fault = self.faults[name].pop(0) if self.faults[name] else None
        if isinstance(fault, ClientError):
            raise fault
        if isinstance(fault, float):
            time.sleep(fault)
        if isinstance(fault, dict):
            return {"StatusCode": 200, "Payload": fault}
        try:
            if isinstance(fault, FunctionError):
                raise fault
            result = self.modules[name].handler(payload, LambdaContext())
        except FunctionError as err:
            return _function_error(err.error_type, err.message)
        except Exception as err:  # as the Lambda runtime reports an unhandled exception
            return _function_error(type(err).__name__, str(err))
        return {"StatusCode": 200, "Payload": json.loads(json.dumps(result))}

    def states(self) -> list[str]:
        """Which functions ran, in order (a step of the chat function by its step name)."""
        return [payload.get("step", name) if name == "chat" else name for name, payload in self.calls]


def _function_error(error_type: str, message: str) -> dict[str, Any]:
    payload = {"errorType": error_type, "errorMessage": message}
    return {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": payload}


def attach(monkeypatch: pytest.MonkeyPatch, functions: FunctionsInProcess) -> None:
    monkeypatch.setattr(lambda_eval_utils, "_invoke_lambda_function", functions.invoke)
    monkeypatch.setattr(retrier_decl, "time", SimpleNamespace(sleep=functions.waits.append))


@dataclass
class Machine:
    client: Any
    arn: str

    def run(self, turn: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(status, output or error) of one execution of the turn."""
        execution = self.client.start_execution(
            stateMachineArn=self.arn, name=uuid.uuid4().hex, input=json.dumps(turn)
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            described = self.client.describe_execution(executionArn=execution["executionArn"])
            if described["status"] != "RUNNING":
                break
            time.sleep(0.02)
        if described["status"] == "SUCCEEDED":
            return "SUCCEEDED", dict(json.loads(described["output"]))
        return str(described["status"]), {"error": described.get("error"), "cause": described.get("cause")}

"""The pre-traffic hook's and the canary's inline code, run here against the real chat handler:
the event they build is one the handler answers, the default KnownQuestion is ANSWERABLE on the
sample, and a version that abstains fails the deployment (the hook reports Failed) and the canary
run (it raises). boto3 is replaced by a stub whose Lambda client invokes the handler in-process."""

from __future__ import annotations

import io
import json
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from tests.infrastructure.template import read_sam_template
from tests.integration.test_handlers import LambdaContext, env, load_function  # noqa: F401 - fixture

TEMPLATE = read_sam_template()
HOOK = TEMPLATE["Resources"]["PreTrafficHookFunction"]["Properties"]["Code"]["ZipFile"]
CANARY = TEMPLATE["Resources"]["KnownQuestionCanary"]["Properties"]["Code"]["Script"]
KNOWN_QUESTION = TEMPLATE["Parameters"]["KnownQuestion"]["Default"]


class Clients:
    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self.invoked: list[str] = []
        self.reported: list[dict[str, str]] = []

    def client(self, service: str) -> Any:
        if service == "lambda":
            return types.SimpleNamespace(invoke=self.invoke)
        assert service == "codedeploy"
        return types.SimpleNamespace(put_lifecycle_event_hook_execution_status=self.report)

    def invoke(self, FunctionName: str, Payload: str) -> dict[str, Any]:
        self.invoked.append(FunctionName)
        result = self.handler(json.loads(Payload), LambdaContext())
        return {"Payload": io.BytesIO(json.dumps(result).encode())}

    def report(self, **status: str) -> None:
        self.reported.append(status)


@pytest.fixture
def clients(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Clients]:
    request.getfixturevalue("env")
    stub = Clients(load_function("chat").handler)
    monkeypatch.setitem(sys.modules, "boto3", types.SimpleNamespace(client=stub.client))
    monkeypatch.setenv("KNOWN_QUESTION", KNOWN_QUESTION)
    yield stub


def run(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(code, "inline", "exec"), namespace)
    return namespace


def test_the_hook_passes_a_version_that_answers_the_known_question(
    clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEW_VERSION", "arn:aws:lambda:ap-southeast-1:123456789012:function:chat:7")
    run(HOOK)["handler"]({"DeploymentId": "d-1", "LifecycleEventHookExecutionId": "h-1"}, None)
    assert clients.invoked == ["arn:aws:lambda:ap-southeast-1:123456789012:function:chat:7"]
    assert clients.reported == [
        {"deploymentId": "d-1", "lifecycleEventHookExecutionId": "h-1", "status": "Succeeded"}
    ]


def test_the_hook_fails_a_version_that_abstains(clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEW_VERSION", "chat:8")
    monkeypatch.setenv("KNOWN_QUESTION", "Thuốc xyzabc có tác dụng gì?")  # no such drug: ABSTAIN
    run(HOOK)["handler"]({"DeploymentId": "d-2", "LifecycleEventHookExecutionId": "h-2"}, None)
    assert clients.reported[0]["status"] == "Failed"


def test_the_canary_asks_health_and_the_known_question(
    clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    import urllib.request

    health = load_function("chat")  # GET /health over "the public URL", answered by the handler

    def urlopen(url: str, timeout: float) -> Any:
        assert url == "https://api.example/health" and timeout <= 10
        event = {
            "version": "2.0", "routeKey": "GET /health", "rawPath": "/health", "rawQueryString": "",
            "headers": {}, "isBase64Encoded": False,
            "requestContext": {"http": {"method": "GET", "path": "/health"}, "stage": "$default"},
        }  # fmt: skip
        body = health.handler(event, LambdaContext())["body"]
        return io.BytesIO(body.encode())

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.setenv("API_URL", "https://api.example")
    monkeypatch.setenv("CHAT_FUNCTION", "chat:live")
    assert "answered" in run(CANARY)["handler"]({}, None)
    monkeypatch.setenv("KNOWN_QUESTION", "Thuốc xyzabc có tác dụng gì?")
    with pytest.raises(RuntimeError, match="known question"):
        run(CANARY)["handler"]({}, None)

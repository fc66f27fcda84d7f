"""The chat-turn state machine (infra/statemachine/chat_turn.asl.json) under moto's Step Functions,
its Lambda tasks the real handlers (tests/infrastructure/machine.py), sessions in moto's
DynamoDB: an execution returns what POST /v1/chat returns for the same turn, every branch, and,
with injected faults, every retry and catch path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import boto3
import pytest
from duocthu.answer.wording import ABSTAIN_REPLIES
from duocthu.api.models import ChatResponse, GatherRequest, UnderstandRequest, UnderstoodTurn
from duocthu.api.runtime import Runtime, get_runtime
from duocthu.api.services import understand as understand_service
from duocthu.api.turn_steps import run_step
from duocthu.models.frame import QueryFrame
from moto import mock_aws

from tests.infrastructure.machine import (
    ASL,
    FunctionError,
    FunctionsInProcess,
    Machine,
    attach,
    create_conversations_table,
    definition,
    lambda_service_error,
)
from tests.infrastructure.template import read_sam_template
from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - env is a fixture

THROTTLED = lambda_service_error("TooManyRequestsException", 429)
SERVICE = lambda_service_error("ServiceException")
TIMED_OUT = FunctionError("Sandbox.Timedout", "Task timed out after 29.00 seconds")
PROVIDER_DOWN = FunctionError("DependencyUnavailable", "understanding_provider_unavailable: throttled")
STORE_DOWN = FunctionError("DependencyUnavailable", "store_unavailable: connection refused")
DRUG_QUESTION = "Chống chỉ định của ibuprofen?"
# message -> whether the turn's plan has an ask (the machine's Choice reads the plan)
BRANCHES = {
    DRUG_QUESTION: True,
    "Thuốc nào gây ho khan?": True,  # a drugless turn type: the reverse lookup
    # quoting sections beside the asked one (once abstaining through the machine only)
    "Phụ nữ cho con bú dùng gliclazid được không?": True,
    "Đang uống warfarin và digoxin, uống thêm ibuprofen được không?": True,
    "Liều amoxicilline cho người lớn?": False,  # clarify
    "Xin chào": False,  # smalltalk
    "Liều paracetamol cho chó 10 kg?": False,  # non-human
    # no drug in the catalogue nor in the world's: the book is read for the name before "not found"
    "Chống chỉ định của thuốc xyzabc?": True,
}


@pytest.fixture
def aws(env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Machine, FunctionsInProcess]]:  # noqa: F811
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}):
        create_conversations_table(monkeypatch)
        functions = FunctionsInProcess(
            {name: load_function(name) for name in ("understand", "retrieve", "chat")}
        )
        attach(monkeypatch, functions)
        yield machine(), functions


def machine(edit: Any = None) -> Machine:
    client = boto3.client("stepfunctions")
    role = boto3.client("iam").create_role(RoleName=f"sfn-{id(edit)}", AssumeRolePolicyDocument="{}")
    arn = client.create_state_machine(
        name=f"chat-turn-{id(edit)}", definition=definition(edit), roleArn=role["Role"]["Arn"]
    )["stateMachineArn"]
    return Machine(client, arn)


def chat_over_http(functions: FunctionsInProcess, body: dict[str, Any]) -> dict[str, Any]:
    status, response, _ = call(functions.modules["chat"], http_event("POST", "/v1/chat", body))
    assert status == 200
    return response


def issued_session(sfn: Machine, functions: FunctionsInProcess) -> str:
    """A session id the service issued (ids are never the caller's choice), from one clean turn."""
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED" and output["session_id"]
    functions.calls.clear()
    return str(output["session_id"])


def without_session(response: dict[str, Any]) -> dict[str, Any]:
    """The reply without the ids each path issues its own (the session's; over HTTP, the turn's)."""
    return {k: v for k, v in response.items() if k not in ("session_id", "turn_id")}


def abstained(output: dict[str, Any], system_error: str) -> ChatResponse:
    response = ChatResponse.model_validate(output)
    assert (response.decision, response.reason) == ("ABSTAIN", "dependency_unavailable")
    assert response.system_error == response.bundle.system_error == system_error
    assert response.answer == ABSTAIN_REPLIES["dependency_unavailable"] and not response.citations
    return response


# -- every branch returns what POST /v1/chat returns ---------------------------------------------
@pytest.mark.parametrize("message", list(BRANCHES))
def test_each_branch_returns_what_the_chat_route_returns(
    aws: tuple[Machine, FunctionsInProcess], message: str
) -> None:
    sfn, functions = aws
    over_http = chat_over_http(functions, {"message": message})
    functions.calls.clear()
    status, output = sfn.run({"message": message})
    assert status == "SUCCEEDED", output
    assert output["session_id"] and output["session_id"] != over_http["session_id"]
    assert without_session(output) == without_session(over_http)
    retrieved = ["retrieve"] if BRANCHES[message] else []
    assert functions.states() == ["load_session", "understand", *retrieved, "answer", "save_session"]


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        ({"subject_scope": "non_human"}, "non_human_subject"),
        ({"turn_type": "smalltalk"}, "smalltalk"),
        # out of scope about no catalogue drug (about one, its monograph is read first: below)
        ({"turn_type": "out_of_scope", "drugs": []}, "out_of_scope"),
        ({"needs_clarify": True, "clarify_reason": "Thuốc nào?"}, "needs_clarification"),
        ({"drugs": []}, "unknown_drug"),
    ],
)
def test_each_frame_the_answer_needs_no_evidence_for_skips_retrieve(
    aws: tuple[Machine, FunctionsInProcess], frame: dict[str, Any], reason: str
) -> None:
    sfn, functions = aws
    drug_frame = {"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "chong_chi_dinh"}
    injected = QueryFrame.model_validate({**drug_frame, **frame})
    request = UnderstandRequest(message=DRUG_QUESTION)
    plan = understand_service.plan(get_runtime(), request, lambda *_: injected)
    functions.inject("understand", UnderstoodTurn(frame=injected, plan=plan).model_dump(mode="json"))
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED" and (output["decision"], output["reason"]) == ("ABSTAIN", reason)
    assert "retrieve" not in functions.states()


def test_a_decline_about_a_catalogue_drug_reads_its_monograph_before_saying_no(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    injected = QueryFrame.model_validate({"turn_type": "out_of_scope", "drugs": ["ibuprofen"]})
    message = "Giá một hộp ibuprofen ở nhà thuốc bây giờ khoảng bao nhiêu?"
    plan = understand_service.plan(get_runtime(), UnderstandRequest(message=message), lambda *_: injected)
    functions.inject("understand", UnderstoodTurn(frame=injected, plan=plan).model_dump(mode="json"))
    status, output = sfn.run({"message": message})
    assert status == "SUCCEEDED" and (output["decision"], output["reason"]) == ("ABSTAIN", "out_of_scope")
    assert "retrieve" in functions.states()


def test_a_conversation_continues_across_executions_as_over_http(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    turns = [DRUG_QUESTION, "Còn liều dùng của nó?"]
    over_http = [chat_over_http(functions, {"message": turns[0]})]
    issued = over_http[0]["session_id"]
    over_http.append(chat_over_http(functions, {"message": turns[1], "session_id": issued}))
    through_sfn = [sfn.run({"message": turns[0]})[1]]
    issued = through_sfn[0]["session_id"]
    through_sfn.append(sfn.run({"message": turns[1], "session_id": issued})[1])
    assert [without_session(o) for o in through_sfn] == [without_session(o) for o in over_http]
    assert through_sfn[1]["frame"]["drugs"] == ["ibuprofen"]  # "nó" is the drug of the first turn
    assert not through_sfn[0]["system_error"] and not through_sfn[1]["system_error"]


@pytest.mark.parametrize("session_id", ["chosen-by-the-caller", "A" * 22])
def test_an_id_the_service_did_not_issue_fails_the_execution_as_chat_answers_404(
    aws: tuple[Machine, FunctionsInProcess], session_id: str
) -> None:
    # a well-formed id that was never issued (or expired), and one of the wrong shape
    sfn, functions = aws
    status, output = sfn.run({"message": DRUG_QUESTION, "session_id": session_id})
    assert (status, output["error"], output["cause"]) == ("FAILED", "SessionNotFound", "session_not_found")
    assert functions.states() == ["load_session"]  # nothing understood, answered or saved
    request = {"message": DRUG_QUESTION, "session_id": session_id}
    status, body, _ = call(functions.modules["chat"], http_event("POST", "/v1/chat", request))
    assert (status, body["error"]) == (404, "session_not_found")


def test_without_a_session_id_a_new_one_is_issued_and_kept(aws: tuple[Machine, FunctionsInProcess]) -> None:
    sfn, _ = aws
    _, first = sfn.run({"message": DRUG_QUESTION})
    _, second = sfn.run({"message": "Còn liều dùng của nó?", "session_id": first["session_id"]})
    assert first["session_id"] and second["frame"]["drugs"] == ["ibuprofen"]


def test_a_caller_that_carries_history_and_prior_frame_keeps_the_session_itself(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    _, first = sfn.run({"message": DRUG_QUESTION, "history": []})
    functions.calls.clear()
    turn = {"message": "Còn liều dùng của nó?", "history": [DRUG_QUESTION], "prior_frame": first["frame"]}
    status, output = sfn.run({**turn, "subject_scope": "human"})
    assert status == "SUCCEEDED" and output["frame"]["drugs"] == ["ibuprofen"]
    assert functions.states() == ["load_session", "understand", "retrieve", "answer"]  # nothing saved
    understood = functions.calls[1][1]
    assert understood["history"] == [DRUG_QUESTION] and understood["prior_frame"] == first["frame"]


def test_a_bad_input_fails_the_execution(aws: tuple[Machine, FunctionsInProcess]) -> None:
    sfn, functions = aws
    status, failure = sfn.run({"question": DRUG_QUESTION})
    assert status == "FAILED" and failure["error"] == "InvalidInput"
    assert DRUG_QUESTION not in json.dumps(failure)  # fields and error types, never the text
    assert functions.states() == ["load_session"]


# -- retries with backoff --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("function", "faults", "waits"),
    [
        ("understand", [THROTTLED, SERVICE], [1.0, 2.0]),  # Lambda service errors: backoff 1 s, 2 s
        ("understand", [PROVIDER_DOWN, PROVIDER_DOWN], [1.0, 2.0]),
        ("understand", [TIMED_OUT], [1.0]),
        ("retrieve", [STORE_DOWN], [1.0]),
        ("retrieve", [lambda_service_error("SdkClientException")], [1.0]),
        ("chat", [THROTTLED], [1.0]),  # LoadSession
    ],
)
def test_a_transient_fault_is_retried_with_backoff_and_the_turn_answered(
    aws: tuple[Machine, FunctionsInProcess], function: str, faults: list[Any], waits: list[float]
) -> None:
    sfn, functions = aws
    functions.inject(function, *faults)
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED" and output["decision"] == "ANSWERABLE" and not output["system_error"]
    assert functions.waits == waits
    assert [n for n, _ in functions.calls].count(function) == len(faults) + (1 if function != "chat" else 3)


def test_the_answer_and_save_steps_are_retried_too(aws: tuple[Machine, FunctionsInProcess]) -> None:
    sfn, functions = aws
    functions.inject("chat", None, SERVICE, None, TIMED_OUT)  # load runs, answer fails once, save once
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED" and output["decision"] == "ANSWERABLE"
    answered, saved = ["answer"] * 2, ["save_session"] * 2
    assert functions.states() == ["load_session", "understand", "retrieve", *answered, *saved]


# -- what stays failed becomes a well-formed ABSTAIN with its system_error --------------------------
def test_understanding_that_stays_down_is_an_abstain_and_the_turn_is_kept(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    kept = issued_session(sfn, functions)
    functions.inject("understand", PROVIDER_DOWN, PROVIDER_DOWN, PROVIDER_DOWN)
    status, output = sfn.run({"message": "Tác dụng phụ của amoxicilin?", "session_id": kept})
    assert status == "SUCCEEDED"
    abstained(output, "understanding_provider_unavailable")
    assert functions.states() == ["load_session", *["understand"] * 3, "abstain", "save_session"]
    sfn.run({"message": DRUG_QUESTION, "session_id": kept})
    understood = [payload for name, payload in functions.calls if name == "understand"][-1]
    assert understood["history"][-1] == "Tác dụng phụ của amoxicilin?"  # the failed turn is kept


def test_a_retrieve_that_times_out_is_an_abstain_with_the_frame(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    functions.inject("retrieve", TIMED_OUT, TIMED_OUT)
    status, output = sfn.run({"message": DRUG_QUESTION})
    response = abstained(output, "store_unavailable")
    assert status == "SUCCEEDED" and response.frame is not None and response.frame.drugs == ("ibuprofen",)


def test_a_dependency_fault_keeps_its_own_reason(aws: tuple[Machine, FunctionsInProcess]) -> None:
    sfn, functions = aws
    functions.inject("retrieve", *[FunctionError("DependencyUnavailable", "embedding_unavailable: down")] * 3)
    _, output = sfn.run({"message": DRUG_QUESTION})
    abstained(output, "embedding_unavailable")


def test_a_state_timeout_is_retried_then_caught(aws: tuple[Machine, FunctionsInProcess]) -> None:
    def one_second_understand(asl: dict[str, Any]) -> None:
        asl["States"]["Understand"]["TimeoutSeconds"] = 1

    _, functions = aws
    sfn = machine(one_second_understand)
    functions.inject("understand", 1.5, 1.5)
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED"
    abstained(output, "understanding_provider_unavailable")
    assert functions.waits == [1.0]


@pytest.mark.parametrize(
    ("chat_faults", "system_error", "same_session"),
    [
        ([SERVICE] * 4, "conversation_store_unavailable", False),  # LoadSession: no session to answer in
        ([None, *[SERVICE] * 4], "generation_provider_unavailable", True),  # Answer
    ],
)
def test_a_chat_function_that_stays_down_still_gives_a_well_formed_abstain(
    aws: tuple[Machine, FunctionsInProcess], chat_faults: list[Any], system_error: str, same_session: bool
) -> None:
    sfn, functions = aws
    issued = issued_session(sfn, functions)
    functions.inject("chat", *chat_faults)
    status, output = sfn.run({"message": DRUG_QUESTION, "session_id": issued})
    assert status == "SUCCEEDED"
    session_id = abstained(output, system_error).session_id
    assert (session_id == issued) == same_session and session_id


def test_an_abstain_step_that_fails_is_built_by_the_machine(aws: tuple[Machine, FunctionsInProcess]) -> None:
    sfn, functions = aws
    issued = issued_session(sfn, functions)
    functions.inject("understand", PROVIDER_DOWN, PROVIDER_DOWN, PROVIDER_DOWN)
    functions.inject("chat", None, *[TIMED_OUT] * 2)  # LoadSession runs
    status, output = sfn.run({"message": DRUG_QUESTION, "session_id": issued})
    assert status == "SUCCEEDED"
    assert abstained(output, "understanding_provider_unavailable").session_id == issued


def test_a_save_that_stays_down_answers_and_says_the_turn_was_not_saved(
    aws: tuple[Machine, FunctionsInProcess],
) -> None:
    sfn, functions = aws
    functions.inject("chat", None, None, *[SERVICE] * 4)  # load and answer run
    status, output = sfn.run({"message": DRUG_QUESTION})
    assert status == "SUCCEEDED" and output["decision"] == "ANSWERABLE"
    assert output["system_error"] == "conversation_store_unavailable"


# -- the definition itself -------------------------------------------------------------------------
def test_every_task_has_a_timeout_retries_and_a_catch() -> None:
    states = json.loads(ASL.read_text(encoding="utf-8"))["States"]
    tasks = {name: s for name, s in states.items() if s["Type"] == "Task"}
    assert set(tasks) == {
        "LoadSession",
        "Understand",
        "Retrieve",
        "Answer",
        "SaveSession",
        "AbstainOnFailure",
    }
    for name, task in tasks.items():
        assert 29 < task["TimeoutSeconds"] <= 35, name  # just above the functions' 29 s timeout
        retried = {e for r in task["Retry"] for e in r["ErrorEquals"]}
        assert {"DependencyUnavailable", "Lambda.TooManyRequestsException", "Sandbox.Timedout"} <= retried
        assert {e for c in task["Catch"] for e in c["ErrorEquals"]} >= retried, name
    # the payloads the states send are valid direct-invoke requests
    understand_payload = {k.removesuffix(".$") for k in states["Understand"]["Parameters"]["Payload"]}
    assert {"message", "history", "prior_frame", "subject_scope"} <= understand_payload
    assert understand_payload <= set(UnderstandRequest.model_fields)
    assert set(states["Retrieve"]["Parameters"]["Payload"]) <= {f"{k}.$" for k in GatherRequest.model_fields}
    # the ABSTAIN the machine builds itself has every field a ChatResponse requires
    unanswered = {key.removesuffix(".$") for key in states["Unanswered"]["Parameters"]}
    assert states["Unanswered"]["Parameters"]["answer"] == ABSTAIN_REPLIES["dependency_unavailable"]
    assert {k for k, f in ChatResponse.model_fields.items() if f.is_required()} <= unanswered


def test_the_template_deploys_it_express_with_logging_and_tracing() -> None:
    machine_ = read_sam_template()["Resources"]["ChatTurnStateMachine"]["Properties"]
    assert (
        machine_["Type"] == "EXPRESS" and machine_["DefinitionUri"] == "infra/statemachine/chat_turn.asl.json"
    )
    assert machine_["Tracing"] == {"Enabled": True} and machine_["Logging"]["Level"] == "ALL"
    assert set(machine_["DefinitionSubstitutions"]) == {
        "UnderstandFunctionArn",
        "RetrieveFunctionArn",
        "ChatFunctionArn",
    }


def test_an_event_that_is_no_step_is_a_program_error() -> None:
    with pytest.raises(ValueError, match="not a step"):
        run_step(cast(Runtime, None), {"step": "guess"}, None)

"""The chat turn as the states of the Step Functions machine (infra/statemachine/chat_turn.asl.json)
run it: the chat function's direct invokes load the session, word the answer from the frame and
the evidence the understand and retrieve functions gave, save the session, and turn a failed
state into the ABSTAIN chat would give. The answer is worded by the same ChatService as
POST /v1/chat, so an execution returns what that route returns for the same turn.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from duocthu.answer.replies import unavailable
from duocthu.api.body import validated
from duocthu.api.chat_turn import chat_turn, turn_system_error
from duocthu.api.models import MAX_HISTORY, ChatRequest, ChatResponse
from duocthu.api.runtime import NotReady, Runtime
from duocthu.api.services.chat import SessionNotFound, chat_response, chat_service
from duocthu.core.deadline import LambdaContextLike
from duocthu.core.errors import DependencyUnavailable
from duocthu.core.vocabulary import SYSTEM_ERRORS, SubjectScope, SystemError
from duocthu.models.evidence import GatheredEvidence
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.store.sessions import (
    ConversationState,
    ConversationUnavailable,
    get_conversation_store,
    new_session_id,
    valid_session_id,
)

log = logging.getLogger(__name__)


class TurnInput(ChatRequest):
    """An execution's input: a chat request, and optionally the history and prior frame of a
    caller that keeps the conversation itself (then the session store is not used, as in batch)."""

    history: list[str] | None = Field(default=None, max_length=MAX_HISTORY)
    prior_frame: QueryFrame | None = None


class TurnSession(BaseModel):
    """What LoadSession hands the later states."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    message: str
    subject_scope: SubjectScope
    history: list[str]
    prior_frame: QueryFrame | None
    stateless: bool
    state: ConversationState
    store_error: SystemError | None = None


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoadSession(_Step):
    step: Literal["load_session"]
    turn: TurnInput


class AnswerTurn(_Step):
    step: Literal["answer"]
    session: TurnSession
    plan: Plan
    evidence: GatheredEvidence | None  # None: the plan has no ask (the machine's Choice reads it)


class SaveSession(_Step):
    step: Literal["save_session"]
    session: TurnSession
    response: ChatResponse


class Failure(BaseModel):
    system_error: SystemError  # what the failed state stands for, when the error names nothing better
    error: dict[str, Any]  # the Catch's {"Error", "Cause"}
    frame: QueryFrame | None = None


class AbstainOnFailure(_Step):
    step: Literal["abstain"]
    session: TurnSession
    failure: Failure


def load_session(runtime: Runtime, request: LoadSession) -> TurnSession:
    turn = request.turn
    session_id = turn.session_id or ""
    session_id = session_id if valid_session_id(session_id) else new_session_id()
    state, error = ConversationState(session_id=session_id), None
    if turn.history is None and turn.session_id:  # a new session has nothing to load
        try:
            loaded = get_conversation_store(runtime.settings).load(session_id)
        except ConversationUnavailable as err:
            log.warning("conversation store unavailable, answering statelessly: %s", err)
            error = "conversation_store_unavailable"
        else:
            # Ids are the service's own: one it did not issue (or that expired) is refused, as
            # POST /v1/chat refuses it with 404; a new session would silently drop the context.
            if loaded is None:  # the execution fails with this error's name (the state machine)
                raise SessionNotFound("session_not_found")
            state = loaded
    return TurnSession(
        session_id=session_id,
        message=turn.message,
        subject_scope=turn.subject_scope,
        history=turn.history if turn.history is not None else state.history(),
        prior_frame=turn.prior_frame or state.prior_frame,
        stateless=turn.history is not None,
        state=state,
        store_error=error,
    )


def answer(runtime: Runtime, request: AnswerTurn, context: LambdaContextLike | None) -> ChatResponse:
    """The plan's reply from the evidence the Retrieve state gathered: the same composers as
    POST /v1/chat, so an execution returns what that route returns for the same turn."""
    session, plan = request.session, request.plan
    service = chat_service(runtime, context)
    composed = service.answer(plan, request.evidence)
    turn = chat_turn(session.session_id, plan.frame, composed)
    return chat_response(replace(turn, system_error=turn_system_error(turn, plan.frame, session.store_error)))


def save_session(runtime: Runtime, request: SaveSession) -> ChatResponse:
    session, response = request.session, request.response
    if session.stateless:
        return response
    try:
        get_conversation_store(runtime.settings).save(
            session.state.with_turn(session.message, response.answer, response.frame)
        )
    except ConversationUnavailable as err:
        log.warning("conversation store unavailable, turn not saved: %s", err)
        response.system_error = response.system_error or "conversation_store_unavailable"
    return response


def failure_system_error(failure: Failure) -> SystemError:
    """A DependencyUnavailable names its reason first in errorMessage; anything else (a Lambda
    fault, a timeout) is what the failed state stands for."""
    try:
        cause = json.loads(str(failure.error.get("Cause", "")))
        reason = str(cause.get("errorMessage", "")).split(":", 1)[0]
    except (ValueError, AttributeError):
        return failure.system_error
    if failure.error.get("Error") == "DependencyUnavailable" and reason in SYSTEM_ERRORS:
        return cast(SystemError, reason)
    return failure.system_error


def abstain_on_failure(request: AbstainOnFailure) -> ChatResponse:
    session, frame = request.session, request.failure.frame
    system_error = failure_system_error(request.failure)
    composed = unavailable(system_error, frame.quick_replies if frame else ())
    turn = chat_turn(session.session_id, frame, composed)
    return chat_response(replace(turn, system_error=system_error))


def run_step(runtime: Runtime, event: dict[str, Any], context: LambdaContextLike | None) -> dict[str, Any]:
    """One state's direct invoke. A bad event is a program error; a runtime that is not ready is
    a dependency fault, which the machine retries and then catches."""
    step = event.get("step")
    try:
        if step == "load_session":
            result: BaseModel = load_session(runtime, validated(LoadSession, event))
        elif step == "answer":
            result = answer(runtime, validated(AnswerTurn, event), context)
        elif step == "save_session":
            result = save_session(runtime, validated(SaveSession, event))
        elif step == "abstain":
            result = abstain_on_failure(validated(AbstainOnFailure, event))
        else:
            raise ValueError(f"not a step of the chat-turn machine: {step!r}")
    except NotReady as err:
        raise DependencyUnavailable("store_unavailable", str(err)) from err
    return result.model_dump(mode="json")

"""The chat function: one turn end to end (health: `duocthu.api.services.health`).

Sessions: the server issues every session id (128 random bits, `new_session_id`); a request that
names an id this service did not issue, or one that expired, is refused (`SessionNotFound`, a 404
`session_not_found`). The frame in the response leaves out the patient's facts unless
DUOCTHU_DEBUG_FRAME is on. A service that is not ready answers the documented 200 ABSTAIN
`dependency_unavailable` with `system_error` `store_unavailable`, not an error status.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import replace

from duocthu.answer.generation import get_answer_generator
from duocthu.answer.replies import unavailable
from duocthu.api.chat_turn import ChatService, ChatTurn, chat_turn
from duocthu.api.models import ChatRequest, ChatResponse
from duocthu.api.runtime import NotReady, Runtime
from duocthu.api.services.health import health, providers_in_use
from duocthu.api.services.retrieve import retrieval_service
from duocthu.api.turn_limits import within_limits
from duocthu.core.deadline import Deadline, LambdaContextLike, turn_deadline
from duocthu.core.vocabulary import SubjectScope
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.models.reply import DrugListBlock
from duocthu.store.sessions import (
    ConversationState,
    ConversationStore,
    ConversationUnavailable,
    get_conversation_store,
    new_session_id,
)
from duocthu.understanding import pipeline as understanding
from duocthu.understanding.providers import get_frame_provider
from duocthu.understanding.tags import MessageReader


def turn_budget(runtime: Runtime, context: LambdaContextLike | None) -> Deadline:
    """The invocation's deadline: the Lambda's remaining time minus a margin, else a fixed budget."""
    settings = runtime.settings
    return Deadline.for_invocation(
        context, settings.understanding_deadline_margin_ms, settings.understanding_timeout_s
    )


def chat_service(runtime: Runtime, context: LambdaContextLike | None = None) -> ChatService:
    """The turn's service: the process's long-lived parts, this invocation's deadline."""
    catalog, resolver = runtime.ready()
    settings = runtime.settings
    deadline = turn_budget(runtime, context)
    provider = get_frame_provider(settings)

    def understand_turn(
        message: str,
        history: Sequence[str],
        prior: QueryFrame | None,
        scope: SubjectScope,
        reader: MessageReader,
    ) -> QueryFrame:
        return within_limits(
            understanding.understand_read(message, reader, provider, deadline, history, prior, scope)
        )

    return ChatService(
        catalog,
        resolver,
        retrieval_service(runtime),
        understand_turn,
        get_answer_generator(settings).under(deadline),
        get_conversation_store(settings),
        deadline,
    )


class SessionNotFound(LookupError):
    """The request names a session this service did not issue, or one that expired."""


class _Preloaded:
    """The conversation store, with the state already read for this turn's session (the check
    that the session exists is that read: one round trip, not two)."""

    def __init__(self, store: ConversationStore, state: ConversationState):
        self.store, self.state, self.backend = store, state, store.backend

    def load(self, session_id: str) -> ConversationState | None:
        return self.state if session_id == self.state.session_id else self.store.load(session_id)

    def save(self, state: ConversationState) -> None:
        self.store.save(state)

    def ping(self) -> None:
        self.store.ping()


def require_session(service: ChatService, session_id: str) -> None:
    """Refuse an id the store does not hold; a store that cannot answer (or cannot save: a
    read-only session folder never kept the id it issued) is no proof either way, and the turn
    goes on statelessly with its `conversation_store_unavailable`."""
    if service.conversations is None:
        return
    try:
        state = service.conversations.load(session_id)
        if state is None:
            service.conversations.ping()
    except ConversationUnavailable:
        return
    if state is None:
        raise SessionNotFound("session_not_found")  # never the id itself: it is a bearer secret
    service.conversations = _Preloaded(service.conversations, state)


def session_key(session_id: str, principal: str | None) -> str:
    """The key a session is stored under. Without a signed-in principal, the id itself; with one
    (the JWT `sub`), a digest of both, so an id copied to another principal names no session of
    theirs (a 404, as an id never issued)."""
    if not principal:
        return session_id
    digest = hashlib.sha256(f"{principal}\0{session_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def chat(
    runtime: Runtime,
    request: ChatRequest,
    context: LambdaContextLike | None = None,
    principal: str | None = None,
) -> ChatResponse:
    """One turn of `principal`'s (the JWT `sub`; None on a stack without an authorizer) session."""
    session_id = request.session_id or new_session_id()
    try:
        service = chat_service(runtime, context)
    except NotReady:
        return not_ready_response(session_id)
    debug = runtime.settings.debug_frame
    key = session_key(session_id, principal)
    with turn_deadline(service.deadline or turn_budget(runtime, context)):  # the session store's too
        if request.session_id is not None:
            require_session(service, key)
        turn = service.turn(request.message, key, request.subject_scope)
    return chat_response(replace(turn, session_id=session_id), debug_frame=debug)


def not_ready_response(session_id: str) -> ChatResponse:
    """No index to answer from (a failed start, retried on later requests): the documented
    ABSTAIN, which never implies anything about a drug."""
    turn = chat_turn(session_id, None, unavailable("store_unavailable"))
    return chat_response(replace(turn, system_error="store_unavailable"))


def _named_once(turn: ChatTurn) -> EvidenceBundle:
    """The turn's bundle without the unshown drugs a drug-list block already names: a list grows
    with the book (hundreds of drugs at its real size), and a response, like the state machine's
    state it travels in (256 KB at most), carries each drug once."""
    bundle = turn.bundle
    blocks = turn.reply.blocks if turn.reply else ()
    listed = {d.drug_id for b in blocks if isinstance(b, DrugListBlock) for d in b.drugs}
    if not listed or not bundle.unlisted_drugs:
        return bundle
    unlisted = tuple(d for d in bundle.unlisted_drugs if d.drug_id not in listed)
    return bundle.model_copy(update={"unlisted_drugs": unlisted})


def chat_response(turn: ChatTurn, debug_frame: bool = False) -> ChatResponse:
    frame = turn.frame
    if frame is not None and not debug_frame:  # the patient's facts stay on the server
        frame = frame.model_copy(update={"patient_context": PatientContext()})
    return ChatResponse(
        session_id=turn.session_id,
        answer=turn.answer,
        decision=turn.bundle.decision,
        reason=turn.bundle.reason,
        citations=list(turn.citations),
        frame=frame,
        quick_replies=list(turn.quick_replies),
        system_error=turn.system_error,
        bundle=_named_once(turn),
        answer_lines=turn.answer_lines,
        blocks=list(turn.reply.blocks) if turn.reply else [],
        source=turn.reply.source if turn.reply else None,
    )


__all__ = [
    "SessionNotFound",
    "chat",
    "chat_response",
    "chat_service",
    "health",
    "providers_in_use",
    "require_session",
    "session_key",
]

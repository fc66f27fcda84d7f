"""One chat turn end to end: session -> frame -> reading -> plan -> evidence -> reply -> session
(a message of several asks: a frame, reading and plan per ask clause, one plan of parts).
Everything runs in-process (the chat function never calls the other Lambdas). The plan decides
what the turn needs (`duocthu.understanding.plan`), retrieval gathers it in one call, and one
composer per reply kind words it (`duocthu.answer.replies`).

An abstention always says why, in plain Vietnamese, and never implies that a drug is safe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from duocthu.answer.lines import AnswerLines
from duocthu.answer.replies import Composed, Composer, Generator, compose, unavailable
from duocthu.answer.wording import ReplyWording
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.vocabulary import SubjectScope, SystemError
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan, gathered_by_part
from duocthu.models.reply import Reply
from duocthu.retrieval.service import RetrievalService
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.store.sessions import (
    ConversationState,
    ConversationStore,
    ConversationUnavailable,
    new_session_id,
    valid_session_id,
)
from duocthu.understanding.several_asks import plan_message
from duocthu.understanding.tags import MessageReader

log = logging.getLogger(__name__)

# (message, history of user turns, prior frame, caller's subject-scope claim) -> frame
# (message, history, prior frame, subject scope, the request's reader) -> frame
Understand = Callable[[str, Sequence[str], QueryFrame | None, SubjectScope, MessageReader], QueryFrame]


@dataclass(frozen=True)
class ChatTurn:
    session_id: str
    answer: str
    bundle: EvidenceBundle
    frame: QueryFrame | None = None
    citations: tuple[str, ...] = ()
    quick_replies: tuple[str, ...] = ()
    system_error: SystemError | None = None
    notes: tuple[str, ...] = field(default=())
    answer_lines: AnswerLines | None = None  # the answering sentences, quoted first (answer.lines)
    reply: Reply | None = None  # the reply as blocks; `answer` is its text

    @property
    def decision(self) -> str:
        return self.bundle.decision

    @property
    def reason(self) -> str:
        return self.bundle.reason


def turn_system_error(
    turn: ChatTurn, frame: QueryFrame | None, store_error: SystemError | None
) -> SystemError | None:
    """The one fault a turn reports: understanding's, then retrieval's, the answer's, the session store's."""
    return (
        (frame.system_error if frame else None)
        or turn.bundle.system_error
        or turn.system_error
        or store_error
    )


def chat_turn(session_id: str, frame: QueryFrame | None, composed: Composed) -> ChatTurn:
    return ChatTurn(
        session_id,
        composed.reply.text,
        composed.bundle,
        frame,
        composed.citations,
        composed.reply.quick_replies,
        composed.system_error,
        answer_lines=composed.answer_lines,
        reply=composed.reply,
    )


class ChatService:
    def __init__(
        self,
        catalog: Catalog,
        resolver: CatalogDrugResolver,
        retrieval: RetrievalService,
        understand: Understand,
        generator: Generator,
        conversations: ConversationStore | None = None,
        deadline: Deadline | None = None,
    ):
        self.catalog = catalog
        self.resolver = resolver
        self.wording = ReplyWording(
            {d.drug_id: d.title for d in catalog.drugs},
            {d.drug_id: d.drug_class for d in catalog.drugs if d.drug_class},
        )
        self.retrieval = retrieval
        self.understand = understand
        self.generator = generator
        self.conversations = conversations
        self.deadline = (
            deadline  # the turn's budget (from the Lambda context): rerank and embeddings stay inside it
        )

    # -- session ----------------------------------------------------------------------------
    def _load(self, session_id: str) -> tuple[ConversationState, SystemError | None]:
        if self.conversations is None:
            return ConversationState(session_id=session_id), None
        try:
            return self.conversations.load(session_id) or ConversationState(session_id=session_id), None
        except ConversationUnavailable as err:
            log.warning("conversation store unavailable, answering statelessly: %s", err)
            return ConversationState(session_id=session_id), "conversation_store_unavailable"

    def _save(self, state: ConversationState) -> SystemError | None:
        if self.conversations is None:
            return None
        try:
            self.conversations.save(state)
        except ConversationUnavailable as err:
            log.warning("conversation store unavailable, turn not saved: %s", err)
            return "conversation_store_unavailable"
        return None

    # -- the turn ---------------------------------------------------------------------------
    def turn(
        self,
        message: str,
        session_id: str | None = None,
        subject_scope: SubjectScope = "human",
        history: Sequence[str] | None = None,
    ) -> ChatTurn:
        """One turn. With `history` given (batch), the session store is not used."""
        if session_id is None or not valid_session_id(session_id):
            session_id = new_session_id()
        state, store_error = (
            (ConversationState(session_id=session_id), None)
            if history is not None
            else self._load(session_id)
        )
        told = list(history if history is not None else state.history())

        def understand(
            text: str, before: Sequence[str], prior: QueryFrame | None, reader: MessageReader
        ) -> QueryFrame:
            return self.understand(text, before, prior, subject_scope, reader)

        plan = plan_message(message, told, state.prior_frame, understand, self.resolver)
        frame = plan.frame
        result = chat_turn(session_id, frame, self.answer(plan, self.gather(plan)))
        if history is None:
            save_error = self._save(state.with_turn(message, result.answer, frame))
            store_error = store_error or save_error
        return replace(result, system_error=turn_system_error(result, frame, store_error))

    def gather(self, plan: Plan) -> GatheredEvidence | None:
        """The evidence of every ask of the plan, in one retrieval call (None: it needs none, or
        the store could not be read: the reply says so)."""
        if not plan.needs_evidence:
            return None
        try:
            return gathered_by_part(plan, lambda p: self.retrieval.gather(p, self.resolver, self.deadline))
        except (StoreUnavailable, NoIndex) as err:
            log.error("store unavailable: %s", err)
            return GatheredEvidence()

    def answer(self, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
        """The reply to a plan from its evidence: the composers' work, no store read."""
        if plan.needs_evidence and (evidence is None or not evidence.answers):
            return unavailable("store_unavailable", plan.frame.quick_replies)
        composer = Composer(self.wording, self.generator, self.catalog.sample_data)
        return compose(composer, plan, evidence)

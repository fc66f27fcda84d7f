"""One chat turn end to end: session -> scope -> frame -> route by turn type -> evidence ->
answer -> session. Everything runs in-process (the chat function never calls the other Lambdas).

An abstention always says why, in plain Vietnamese, and never implies that a drug is safe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from duocthu.answer.generation import SAMPLE_NOTICE, VERIFY_NOTICE, Answer, citations_of
from duocthu.answer.indication_lines import WhichDrugLines
from duocthu.answer.interaction_lines import InteractionLines
from duocthu.answer.lines import WHOLE_SECTION_FOLLOWS, AnswerLines, answer_lines, lines_text
from duocthu.answer.patient_table import PatientTable
from duocthu.answer.wording import ABSTAIN_REPLIES, DRUGLESS_TURNS, SMALLTALK_REPLY, ReplyWording
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.sections import CONTRAINDICATION_SECTION, INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.core.vocabulary import Reason, SubjectScope, SystemError
from duocthu.models.evidence import EvidenceBundle, EvidenceItem
from duocthu.models.frame import QueryFrame
from duocthu.models.reading import TurnReading
from duocthu.retrieval.reverse.indication import REVERSE_TURNS, indication_of
from duocthu.retrieval.safety import merge_bundles
from duocthu.retrieval.service import RetrievalService
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.store.sessions import (
    ConversationState,
    ConversationStore,
    ConversationUnavailable,
    new_session_id,
    valid_session_id,
)
from duocthu.understanding.reading import turn_reading

log = logging.getLogger(__name__)

# (message, history of user turns, prior frame, caller's subject-scope claim) -> frame
Understand = Callable[[str, Sequence[str], QueryFrame | None, SubjectScope], QueryFrame]


class Generator(Protocol):
    def generate(self, question: str, bundle: EvidenceBundle, *, sample_data: bool) -> Answer: ...


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

    @property
    def decision(self) -> str:
        return self.bundle.decision

    @property
    def reason(self) -> str:
        return self.bundle.reason


def abstain(reason: Reason, system_error: SystemError | None = None) -> EvidenceBundle:
    return EvidenceBundle(decision="ABSTAIN", reason=reason, system_error=system_error)


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
        self.wording = ReplyWording({d.drug_id: d.title for d in catalog.drugs})
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
        frame = self.understand(
            message,
            list(history if history is not None else state.history()),
            state.prior_frame,
            subject_scope,
        )
        reading = turn_reading(message, frame, self.resolver)  # the message is read here, once
        try:
            result = self._route(reading, frame)
        except (StoreUnavailable, NoIndex) as err:
            log.error("store unavailable: %s", err)
            result = self._abstain_turn(
                session_id, frame, abstain("dependency_unavailable", "store_unavailable")
            )
        result = replace(result, session_id=session_id, frame=frame)
        if history is None:
            save_error = self._save(state.with_turn(message, result.answer, frame))
            store_error = store_error or save_error
        system_error = frame.system_error or result.bundle.system_error or result.system_error or store_error
        return replace(result, system_error=system_error)

    def _abstain_turn(
        self, session_id: str, frame: QueryFrame, bundle: EvidenceBundle, text: str | None = None
    ) -> ChatTurn:
        reply = text or ABSTAIN_REPLIES.get(bundle.reason, "Không đủ bằng chứng từ Dược thư để trả lời.")
        return ChatTurn(session_id, reply, bundle, frame, quick_replies=frame.quick_replies)

    def _route(self, reading: TurnReading, frame: QueryFrame) -> ChatTurn:
        if frame.subject_scope == "non_human":
            return self._abstain_turn("", frame, abstain("non_human_subject"))
        if frame.system_error in ("understanding_provider_unavailable", "understanding_malformed_output"):
            return self._abstain_turn("", frame, abstain("dependency_unavailable", frame.system_error))
        if frame.turn_type == "smalltalk":
            return ChatTurn("", SMALLTALK_REPLY, abstain("smalltalk"), frame)
        if frame.turn_type == "out_of_scope" and not frame.needs_clarify:
            return self._abstain_turn("", frame, abstain("out_of_scope"))
        if frame.needs_clarify:
            question = frame.clarify_reason or "Bạn có thể nói rõ hơn câu hỏi không?"
            return self._abstain_turn("", frame, abstain("needs_clarification"), question)
        if not frame.drugs and frame.turn_type not in DRUGLESS_TURNS:
            if frame.unknown_drugs:
                names = ", ".join(frame.unknown_drugs)
                text = f"Không tìm thấy “{names}” trong Dược thư nên tôi không có thông tin để trả lời."
                return self._abstain_turn("", frame, abstain("unknown_drug"), text)
            return self._abstain_turn("", frame, abstain("unknown_drug"))
        bundle = self.retrieval.for_frame(frame, self.resolver, reading, self.deadline)
        if bundle.decision == "ABSTAIN":
            return self._abstain_turn("", frame, bundle, self.wording.abstain_text(frame, bundle, reading))
        preface = self.wording.preface(frame, bundle, reading)
        if bundle.candidate_statuses:
            # a patient case: the compact table and its quoted sentences, never every part in full
            table = PatientTable(self.wording.titles)
            return self._compact_turn(frame, bundle, preface, table.quick_replies(bundle, frame))
        if frame.turn_type in REVERSE_TURNS and (bundle.ranked_drugs or bundle.wider_drugs):
            # a which-drug list: per drug the sentence naming the condition, never every chỉ định in full
            quotes = WhichDrugLines(self.wording.titles)
            used = sum(len(line) + 1 for line in preface)
            lines = [*preface, *quotes.lines(bundle, indication_of(frame), used)]
            return self._compact_turn(frame, bundle, lines, quotes.quick_replies(bundle))
        pairs = InteractionLines(self.wording.titles, self.resolver, self._section)
        if pairs.applies(frame, reading):
            # three or more drugs: per pair the sentences naming the other, never every section in full
            lines = [*preface, *pairs.lines(frame, reading, bundle, sum(len(line) + 1 for line in preface))]
            return self._compact_turn(frame, bundle, lines, pairs.quick_replies(frame, reading))
        if pairs.beside_medicines(frame):
            return self._beside_medicines_turn(frame, reading, bundle, preface, pairs)
        found = answer_lines(frame, reading, bundle, self._section)
        if found is not None:
            quoted = lines_text(found, self.wording.names([found.drug_id]))
            # a name the formulary lacks is said first: the lines are about the other drug only
            preface = [*preface, *quoted] if frame.unknown_drugs else [*quoted, *preface]
        answer = self.generator.generate(reading.text, bundle, sample_data=self.catalog.sample_data)
        text = "\n".join([*preface, answer.text]) if preface else answer.text
        return ChatTurn(
            "", text, bundle, frame, citations_of(bundle.evidence), frame.quick_replies, answer.system_error,
            answer_lines=found,
        )  # fmt: skip

    def _beside_medicines_turn(
        self,
        frame: QueryFrame,
        reading: TurnReading,
        bundle: EvidenceBundle,
        preface: Sequence[str],
        pairs: InteractionLines,
    ) -> ChatTurn:
        """ "Đang uống A và B, uống thêm X được không?": X's contraindication sentences about the
        patient, then per medicine taken the sentences of X's and its interaction sections naming
        the other; every whole section a quick reply away, never pasted."""
        drug = frame.drugs[0]
        together = frame.model_copy(update={"turn_type": "interaction", "attribute": INTERACTION_SECTION})
        pooled = self.retrieval.for_frame(together, self.resolver, reading, self.deadline)
        found = answer_lines(frame, reading, bundle, self._section)
        name = self.wording.names([drug])
        quoted = [line for line in lines_text(found, name) if line != WHOLE_SECTION_FOLLOWS] if found else []
        head = [*quoted, *preface]
        used = sum(len(line) + 1 for line in head)
        body = [*head, *pairs.lines(together, reading, pooled, used, about=drug)]
        barred = f"{SECTION_HEADINGS[CONTRAINDICATION_SECTION]} của {name}"
        replies = [barred, *pairs.quick_replies(together, reading)]
        turn = self._compact_turn(frame, merge_bundles(bundle, pooled), body, replies)
        return replace(turn, answer_lines=found)

    def _section(self, drug_id: str, section_key: str) -> tuple[EvidenceItem, ...]:
        return self.retrieval.by_section(drug_id, section_key).evidence

    def _compact_turn(
        self, frame: QueryFrame, bundle: EvidenceBundle, body: Sequence[str], replies: Sequence[str]
    ) -> ChatTurn:
        """A reply of quoted lines only (the whole sections stay its evidence and citations, each a
        quick reply away), with the notices an extractive answer carries."""
        lines = [VERIFY_NOTICE] if bundle.decision == "VERIFY_PDF" else []
        lines += body
        if self.catalog.sample_data:
            lines += ["", SAMPLE_NOTICE]
        quick = tuple(dict.fromkeys([*frame.quick_replies, *replies]))
        return ChatTurn("", "\n".join(lines).strip(), bundle, frame, citations_of(bundle.evidence), quick)

"""Request and response bodies of the HTTP API and the direct invokes (OpenAPI is generated from these)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from duocthu.answer.lines import AnswerLines
from duocthu.core.vocabulary import Decision, Reason, SystemError
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.models.reply import Block, Source

MAX_MESSAGE_CHARS = 2000
MAX_HISTORY = 20  # earlier turns; each one is a message, so capped as one
MAX_KEY_CHARS = 64  # a drug id or section key

HistoryItem = Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UnderstandRequest(_Request):
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    history: list[HistoryItem] = Field(default_factory=list, max_length=MAX_HISTORY)
    prior_frame: QueryFrame | None = None
    subject_scope: Literal["human", "non_human"] | None = Field(
        default=None, description="the caller's claim; it can narrow the scope, never widen it"
    )


class RetrieveRequest(_Request):
    """Either a frame, or the explicit form (drug_id + section_key / query / is_overview)."""

    frame: QueryFrame | None = None
    drug_id: str | None = Field(default=None, max_length=MAX_KEY_CHARS, pattern=r"^[a-z0-9]+(?:_[a-z0-9]+)*$")
    section_key: str | None = Field(default=None, max_length=MAX_KEY_CHARS)
    query: str | None = Field(default=None, max_length=MAX_MESSAGE_CHARS)
    is_overview: bool = False

    @model_validator(mode="after")
    def _one_form(self) -> RetrieveRequest:
        if (self.frame is None) == (self.drug_id is None):
            raise ValueError("give either `frame` or `drug_id`")
        return self


class GatherRequest(_Request):
    """The state machine's Retrieve state: the plan Understand made (direct invoke only)."""

    plan: Plan


class UnderstoodTurn(BaseModel):
    """The state machine's Understand state: the frame, and the plan made from it and its words."""

    frame: QueryFrame
    plan: Plan


class ChatRequest(_Request):
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    session_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$")
    subject_scope: Literal["human", "non_human"] = "human"


class ChatResponse(BaseModel):
    session_id: str
    answer: str
    decision: Decision
    reason: Reason
    citations: list[str] = Field(default_factory=list)
    frame: QueryFrame | None = None
    quick_replies: list[str] = Field(default_factory=list)
    system_error: SystemError | None = None
    # What was retrieved; the unshown drugs a drug_list block names are not repeated here.
    bundle: EvidenceBundle
    # A section question's answering sentences, each with its citation, or that the section does
    # not say (duocthu.answer.lines.AnswerLines); null for every other turn. Additive, optional.
    answer_lines: AnswerLines | None = None
    # The reply as typed blocks, in order (duocthu.models.reply): `answer` is their text. A page
    # renders these: tables as rows, a patient table's status per drug and facet, notices apart.
    blocks: list[Block] = Field(default_factory=list)
    # The book and edition every citation of the reply is from, named once.
    source: Source | None = None
    # This turn's id (the request id its logs carry): what POST /v1/feedback reports on.
    turn_id: str | None = None


MAX_NOTE_CHARS = 1000


class FeedbackRequest(_Request):
    """A clinician's report that a turn's reply is wrong ("Báo lỗi"), with an optional note."""

    session_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    turn_id: str = Field(min_length=1, max_length=MAX_KEY_CHARS, pattern=r"^[A-Za-z0-9_.:-]+$")
    note: str | None = Field(default=None, max_length=MAX_NOTE_CHARS)


class FeedbackStored(BaseModel):
    session_id: str
    turn_id: str
    stored: Literal[True] = True


class ErrorBody(BaseModel):
    """Every 4xx/5xx body: `error` is the machine-readable reason, `message` says it for a person."""

    error: str
    message: str
    detail: list[Any] | None = None
    correlation_id: str | None = Field(default=None, description="the request id the logs carry")


class HealthBody(BaseModel):
    status: Literal["ok", "unavailable"]
    reason: str | None = None
    backend: str | None = None
    index_version: str | None = None
    corpus_hash: str | None = None
    drugs: int | None = None
    sample_data: bool | None = None
    providers: dict[str, str] | None = None

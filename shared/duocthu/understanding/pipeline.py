"""A turn (+ history, prior frame) -> QueryFrame. Intent only: nothing here answers a question.

One pipeline for every provider (`understand_turn`, in order): the subject scope before any model
runs; the candidates bounded before the provider; the provider's output validated against them (a
failure is a frame with `system_error`, never an exception or a silent fallback); the
post-conditions; the conversation's patient and topic merged in, the section for the merged
patient's state, a word for the conversation's drug bound; the animal guard before any question back.

A conversation sent as `history` without a prior frame (`duocthu batch`, `/v1/understand`, Step
Functions) is understood as the same conversation in a session: a provider that rebuilds the prior
(the offline rules: deterministic and cheap) understands the history's user turns first, in order,
and the last of their frames is the prior (`prior_from_history`); a model provider reads the
history lines in its prompt instead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.core.text import fold
from duocthu.core.vocabulary import SubjectScope, SystemError
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import Turn, tagged_turn
from duocthu.understanding.merge import (
    asked_for_this_patient,
    asked_not_taken,
    both_asked_again,
    medicines_of_the_case,
    merge_with_prior_frame,
    others_beside,
    reading_picked,
    standalone_query,
    unknown_beside_carried,
)
from duocthu.understanding.postconditions import apply_postconditions, complaint_beside_taken
from duocthu.understanding.prompt import MODEL_EXCLUDED_FIELDS
from duocthu.understanding.pronouns import bind_pronoun
from duocthu.understanding.providers import FrameProvider
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.rules.turn_type import section_for_patient
from duocthu.understanding.scope import conversation_scope, looks_non_human
from duocthu.understanding.tags import MessageReader

log = logging.getLogger(__name__)

OFFLINE_BUDGET_S = 5.0
UNAVAILABLE_REASON = "Hệ thống tạm thời chưa phân tích được câu hỏi. Vui lòng thử lại sau giây lát."


# --- Validation ------------------------------------------------------------------------------


def _id_key(text: str) -> str:
    """A drug_id as a model may write it: case, spaces, hyphens and diacritics do not matter."""
    return "_".join(fold(text).replace("-", " ").replace("_", " ").split())


def _resolve_id(raw: str, shown: Sequence[str]) -> str | None:
    """The shown drug_id a model's output names, or None. Only ids of the shown set are accepted
    (written with underscores or spaces); anything else is an unknown drug, never the nearest id."""
    return {_id_key(d): d for d in shown}.get(_id_key(raw))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []


def frame_from_output(data: Any, turn: Turn) -> QueryFrame:
    """Validate a provider's raw frame against the turn's shown candidates.

    A drug outside the shown set goes to unknown_drugs. A field of the wrong shape is dropped (one
    bad field must not fail the turn); output that is not a frame at all is MalformedOutput.
    """
    if not isinstance(data, dict):
        raise MalformedOutput(f"the frame is a {type(data).__name__}, not an object")
    shown = turn.candidates.ids
    clean = {k: v for k, v in data.items() if k not in MODEL_EXCLUDED_FIELDS}
    if not isinstance(clean.get("drugs", []), list | tuple | str | None):
        raise MalformedOutput(f"drugs is a {type(clean['drugs']).__name__}, not a list")
    drugs: list[str] = []
    unknown = [str(u) for u in _as_list(clean.get("unknown_drugs"))]
    for item in _as_list(clean.get("drugs")):
        drug_id = _resolve_id(str(item), shown)
        if drug_id:
            drugs.append(drug_id)
        else:
            unknown.append(str(item))
    clean["drugs"], clean["unknown_drugs"] = drugs, unknown
    if isinstance(clean.get("condition"), str):
        clean["condition"] = {"text": clean["condition"]}
    for _ in range(3):
        try:
            return QueryFrame.model_validate({**clean, "raw": data})
        except ValidationError as err:
            bad = {str(e["loc"][0]) for e in err.errors() if e["loc"]}
            if not bad or "turn_type" in bad or "drugs" in bad:
                raise MalformedOutput(f"the frame does not validate: {err}") from err
            log.warning("dropping invalid frame fields %s", sorted(bad))
            clean = {k: v for k, v in clean.items() if k not in bad}
    raise MalformedOutput("the frame does not validate")


# --- The pipeline ------------------------------------------------------------------------------


def failed_frame(error: SystemError) -> QueryFrame:
    """Fail closed: no drugs, no section, a clarifying abstention that says it was a fault."""
    return QueryFrame(
        turn_type="out_of_scope", needs_clarify=True, clarify_reason=UNAVAILABLE_REASON, system_error=error
    )


def non_human_frame(message: str) -> QueryFrame:
    """A question about an animal: out of scope (reason non_human_subject downstream), no drugs, no
    clarifying question."""
    return QueryFrame(turn_type="out_of_scope", standalone_query=message, subject_scope="non_human")


def understand_turn(
    turn: Turn, provider: FrameProvider, deadline: Deadline, claimed_scope: SubjectScope | None = None
) -> QueryFrame:
    """The pipeline (the module's docstring) on one bounded turn."""
    prior_scope = turn.prior.subject_scope if turn.prior else None
    if conversation_scope(turn.message, turn.history, prior_scope, claimed_scope) == "non_human":
        return non_human_frame(turn.message)
    try:
        frame = frame_from_output(provider.propose(turn, deadline), turn)
    except ProviderUnavailable as err:
        log.error("understanding provider %s unavailable: %s", provider.name, err, exc_info=err)
        return failed_frame("understanding_provider_unavailable")
    except MalformedOutput as err:
        log.error("understanding provider %s gave malformed output: %s", provider.name, err, exc_info=err)
        return failed_frame("understanding_malformed_output")
    own = apply_postconditions(frame, turn)
    frame = merge_with_prior_frame(own, turn.prior, turn.tags.cues.has("other_patient"))
    frame = complaint_beside_taken(asked_for_this_patient(frame, own, turn), turn)
    frame = section_for_patient(medicines_of_the_case(unknown_beside_carried(frame, turn), turn))
    frame = others_beside(asked_not_taken(frame, turn), turn)
    frame = standalone_query(bind_pronoun(frame, turn), turn)
    if frame.needs_clarify and looks_non_human([*turn.history, turn.message]):
        return non_human_frame(turn.message)
    return frame


def prior_from_history(
    history: Sequence[str],
    reader: MessageReader,
    provider: FrameProvider,
    deadline: Deadline,
    claimed_scope: SubjectScope | None = None,
) -> QueryFrame | None:
    """The frame a session would hold after these user turns: each understood in order with the
    turns before it and the frame of the one before, as the chat does."""
    prior: QueryFrame | None = None
    for i, line in enumerate(history):
        prior = understand_read(line, reader, provider, deadline, history[:i], prior, claimed_scope)
    return prior


def understand(
    message: str,
    resolver: CatalogDrugResolver,
    provider: FrameProvider,
    deadline: Deadline,
    history: Sequence[str] = (),
    prior: QueryFrame | None = None,
    claimed_scope: SubjectScope | None = None,
) -> QueryFrame:
    """One turn with the given provider, its lines read once (`understand_read`)."""
    reader = MessageReader(resolver)
    return understand_read(message, reader, provider, deadline, history, prior, claimed_scope)


def understand_read(
    message: str,
    reader: MessageReader,
    provider: FrameProvider,
    deadline: Deadline,
    history: Sequence[str] = (),
    prior: QueryFrame | None = None,
    claimed_scope: SubjectScope | None = None,
) -> QueryFrame:
    """One turn: bound the candidates, then run the pipeline. History without a prior frame is
    replayed into one when the provider rebuilds priors. Every line is read by `reader`, once for
    the request, however many steps read it."""
    if prior is None and history and getattr(provider, "rebuilds_prior", False):
        prior = prior_from_history(history, reader, provider, deadline, claimed_scope)
    tags = reader.tags(message)
    if (again := both_asked_again(tags, prior)) is not None:
        return again
    picked = reading_picked(tags, prior)
    turn = tagged_turn(reader, picked or message, history, prior)
    frame = understand_turn(turn, provider, deadline, claimed_scope)
    query, read = frame.standalone_query, turn.message
    if query is not None and query.startswith(read) and message != read:
        # the query quotes what the user wrote; the lexicon's words were for reading it
        frame = frame.model_copy(update={"standalone_query": message + query[len(read) :]})
    return frame


def understand_offline(
    message: str, resolver: CatalogDrugResolver, history: Sequence[str] = (), prior: QueryFrame | None = None
) -> QueryFrame:
    """The offline provider end to end (no model, no network): the embedded default."""
    return understand(
        message, resolver, OfflineFrameProvider(), Deadline.after(OFFLINE_BUDGET_S), history, prior
    )


__all__ = [
    "failed_frame",
    "frame_from_output",
    "non_human_frame",
    "prior_from_history",
    "understand",
    "understand_offline",
    "understand_read",
    "understand_turn",
]

"""Candidate bounding: the only drug_ids a turn's frame may name, fixed before any model runs.

For the turn and every history line: the drugs `resolve` names exactly, and, where a line names
none, the few `suggest` finds it plausibly misspelt. Drugs of the prior frame that are in the
catalogue stay candidates too (a follow-up turn refers back to them). The prompt shows this set
and nothing else, and `resolve_id` accepts nothing outside it.

Why bound first (reference 08, F-04): checking that a model's drug_id is *some* catalogue drug
does not show it is the one the user named; a model could map an invented name ("aspirinol") onto
any real drug. A name that fuzzy-matches nothing never enters the set, so it can only end up in
`unknown_drugs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.tags import MessageReader, MessageTags

NAMES_SHOWN = 4
ATC_SUBGROUP = 5  # an ATC code's chemical subgroup: its first five characters


@dataclass(frozen=True)
class CandidateSet:
    turn: MessageTags
    history: tuple[MessageTags, ...]  # oldest first
    prior_ids: tuple[str, ...]  # catalogue drugs of the prior frame
    names: dict[str, tuple[str, ...]]  # drug_id -> display names, its own name form first
    # drug_id -> its ATC chemical subgroups (a code's first five characters): alternatives in one class
    subgroups: dict[str, frozenset[str]] = field(default_factory=dict)

    def alike(self, drug_id: str, others: Sequence[str]) -> tuple[str, ...]:
        """Of `others`, those in a chemical subgroup of `drug_id`."""
        own = self.subgroups.get(drug_id, frozenset())
        return tuple(d for d in others if own & self.subgroups.get(d, frozenset()))

    @property
    def ids(self) -> tuple[str, ...]:
        """Every drug_id shown, in order of appearance: the turn, then history (newest first),
        then the prior frame."""
        ordered: dict[str, None] = {}
        for line in (self.turn, *reversed(self.history)):
            ordered.update((m.drug_id, None) for m in line.matches)
            ordered.update((s.drug_id, None) for s in line.suggestions)
        ordered.update((d, None) for d in self.prior_ids)
        return tuple(ordered)

    @property
    def named_ids(self) -> tuple[str, ...]:
        """Drugs the current turn names exactly."""
        return tuple(m.drug_id for m in self.turn.matches)

    def history_ids(self) -> tuple[str, ...]:
        """Drugs named exactly by the most recent history line that names any."""
        for line in reversed(self.history):
            if line.matches:
                return tuple(m.drug_id for m in line.matches)
        return ()


def bound_candidates(
    resolver: CatalogDrugResolver,
    turn: MessageTags,
    lines: Sequence[MessageTags] = (),
    prior: QueryFrame | None = None,
) -> CandidateSet:
    """The drugs the turn (`turn`, after the history `lines`, oldest first) may name."""
    prior_ids = tuple(d for d in (prior.drugs if prior else ()) if d in resolver.by_id)
    bounded = CandidateSet(turn, tuple(lines), prior_ids, {})
    names = {d: resolver.catalog_names(d, limit=NAMES_SHOWN) for d in bounded.ids}
    subgroups = {
        d: frozenset(code[:ATC_SUBGROUP] for code in resolver.by_id[d].atc_codes if len(code) >= ATC_SUBGROUP)
        for d in bounded.ids
        if d in resolver.by_id
    }
    return replace(bounded, names=names, subgroups=subgroups)


@dataclass(frozen=True)
class Turn:
    """One turn to understand: the message, what came before, and its bounded candidates."""

    message: str  # in the formulary's words (`tags.text`)
    history: tuple[str, ...]
    prior: QueryFrame | None
    candidates: CandidateSet

    @property
    def tags(self) -> MessageTags:
        """The message read once (`understanding.tags`)."""
        return self.candidates.turn


def tagged_turn(
    reader: MessageReader,
    message: str,
    history: Sequence[str] = (),
    prior: QueryFrame | None = None,
) -> Turn:
    """The turn with every line read once by `reader` (the message and history as written)."""
    tags = reader.tags(message)
    lines = tuple(reader.tags(line) for line in history)
    candidates = bound_candidates(reader.resolver, tags, lines, prior)
    return Turn(tags.text, tuple(line.text for line in lines), prior, candidates)

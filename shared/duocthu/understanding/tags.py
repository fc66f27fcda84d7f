"""A message read once: the tags every later step of understanding reads instead of the text.

One pass per message and request puts the message in the formulary's words (`lexicon`), scans its
cues (`cues.scan_cues`), finds the catalogue names it mentions (and, where it names none, the ones it
may misspell), and, when first asked, the patient facts with their roles, each word's clause and the
sections its words point to. A `MessageReader` holds the tags of every line of one request (the
message, its history, its ask clauses), so a history line replayed into a prior frame and read again
as history is read once. Nothing keeps them past the request: a process-wide cache per text function
would hold users' words and hide how often a message is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from duocthu.catalog.resolver import CatalogDrugResolver, DrugMatch, Suggestion, first_of_each
from duocthu.core.phrases import PhraseMatch
from duocthu.understanding.cue_readings import section_matches, strongest_section
from duocthu.understanding.cues import TurnCues, asks_for_a_list, scan_cues
from duocthu.understanding.facts import Facts, clause_ids, extract_facts
from duocthu.understanding.lexicon import formulary_wording

SUGGEST_K = 5
SUGGEST_MIN_SCORE = 0.55


@dataclass(frozen=True)
class MessageTags:
    """One line of a conversation, tagged. `text` is what understanding reads: the written line
    in the formulary's words."""

    written: str
    text: str
    cues: TurnCues
    mentions: tuple[DrugMatch, ...]  # every span naming a catalogue drug (a drug named twice: both)
    suggestions: tuple[Suggestion, ...]  # names it may misspell, only when it names no drug

    @property
    def matches(self) -> tuple[DrugMatch, ...]:
        """Each catalogue drug named, at its first mention."""
        return first_of_each(self.mentions)

    @cached_property
    def facts(self) -> Facts:
        return extract_facts(self.text, self.matches, self.cues)

    @cached_property
    def clauses(self) -> list[int]:
        return clause_ids(self.text, self.cues.tokens)

    @cached_property
    def section_matches(self) -> list[PhraseMatch[str]]:
        """The phrases naming a section, strongest first (`cue_readings.section_matches`)."""
        return section_matches(self.text, True, self.cues)

    @property
    def candidate_sections(self) -> tuple[str, ...]:
        """Every section the words point to, strongest first."""
        return tuple(dict.fromkeys(m.value for m in self.section_matches))

    @cached_property
    def attribute(self) -> str | None:
        """The section the words ask for: the strongest of `section_matches`."""
        return strongest_section(self.cues, self.section_matches)

    @cached_property
    def named_attribute(self) -> str | None:
        """The section the words name, gapped cues (the loosest) left out."""
        return strongest_section(self.cues, section_matches(self.text, False, self.cues))


@dataclass
class MessageReader:
    """Tags each distinct line of one request once (`tags`)."""

    resolver: CatalogDrugResolver
    _read: dict[str, MessageTags] = field(default_factory=dict)

    def tags(self, written: str) -> MessageTags:
        found = self._read.get(written)
        if found is None:
            found = self._read[written] = tag_message(written, self.resolver)
        return found


def tag_message(written: str, resolver: CatalogDrugResolver) -> MessageTags:
    """The one pass over a line: wording, cues and catalogue names."""
    text = formulary_wording(written)
    mentions = resolver.mentions(text)
    suggestions = () if mentions else resolver.suggest(text, k=SUGGEST_K, min_score=SUGGEST_MIN_SCORE)
    cues = scan_cues(text)
    # a plural asks which drugs only where no drug is named ("warfarin với các thuốc chống viêm")
    return MessageTags(written, text, cues if mentions else asks_for_a_list(cues), mentions, suggestions)


__all__ = ["MessageReader", "MessageTags", "tag_message"]

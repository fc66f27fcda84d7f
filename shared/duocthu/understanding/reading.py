"""A turn's reading (`duocthu.models.reading.TurnReading`): what its words say beyond the frame,
read once, here, and handed on with the frame."""

from __future__ import annotations

import re

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.answer_focus import answer_focus
from duocthu.core.phrases import contains_any, contains_phrase, find_phrase
from duocthu.core.sections import SECTION_PHRASES
from duocthu.core.text import asks_yes_or_no, fold, folded_words, has_diacritics, stop_words
from duocthu.models.frame import QueryFrame
from duocthu.models.reading import TurnReading
from duocthu.understanding.clauses import in_what_is_asked
from duocthu.understanding.cue_readings import asked_drug_class
from duocthu.understanding.cues import DRUG_NOUNS, NAME_JOINER_WORDS
from duocthu.understanding.tags import MessageTags

# At most this many joiner words between the two names ("phối hợp với").
_MAX_JOINER_WORDS = 2


def added_words(written: str, worded: str) -> str:
    """The words of the lexicon's wording that the written text does not hold, in order."""
    had = set(folded_words(written))
    return " ".join(w for w in dict.fromkeys(worded.split()) if not set(folded_words(w)) <= had)


def turn_reading(tags: MessageTags, frame: QueryFrame, resolver: CatalogDrugResolver) -> TurnReading:
    """The reading of a turn whose frame is `frame`, from its tags (`understanding.tags`)."""
    text = tags.written
    asked = in_what_is_asked(tags.text, len(tags.cues.tokens))  # the words the cues were read in
    not_covered = tuple(sorted({c.value for c in tags.cues.all("not_covered") if c.value and asked[c.start]}))
    return TurnReading(
        text=text,
        formulary_words=added_words(text, tags.text),
        yes_or_no=asks_yes_or_no(text),
        joined_unknown_names=(joined := joined_unknown_names(tags, frame)),
        outside_together=tuple(name for name in joined if world_drug(name)),
        outside_formulary=outside_formulary(text, frame),
        read_as=shorthand_read(tags, resolver),
        not_covered=not_covered,
        # "nào", or a list asked in the plural (`cues.asks_for_a_list`)
        asks_which_drug=asks_which_drug(text) or any(c.value == "list" for c in tags.cues.all("candidate")),
        candidate_sections=tags.candidate_sections,
        asked_class=asked_drug_class(tags.text, tags.cues)
        if frame.turn_type == "condition_relation"
        else None,
        asks_maximum=asks_maximum(text),
        only_section_words=only_section_words(tags),
    )


# Words asking to read a section whole (folded), as the reply's quick reply for a section left out does.
READ_WHOLE = frozenset({"xem", "toan", "muc", "van", "day", "du", "tat", "ca", "het"})


def only_section_words(tags: MessageTags) -> bool:
    """Whether every word but the drugs' names, the section's words (in the formulary's wording) and
    stop words asks for a section or for reading it whole."""
    tokens = tags.cues.tokens
    spans = [
        *((m.start, m.start + m.length) for m in SECTION_PHRASES.matches(list(tokens))),
        *((c.start, c.end) for c in tags.cues.all("section")),
        *((m.start, m.end) for m in tags.mentions),
    ]
    covered = {i for start, end in spans for i in range(start, end)}
    stops = stop_words()
    return all(fold(t) in READ_WHOLE for i, t in enumerate(tokens) if i not in covered and t not in stops)


# "Which drug" is "nào" after the noun asked, in one clause; "gì" after a named drug asks about it.
_NOUNS = "|".join(" ".join(noun) for noun in DRUG_NOUNS)
_WHICH_DRUG = re.compile(rf"\b(?:{_NOUNS})\b[^?.!;:,\n]{{0,40}}?\bnào\b", re.IGNORECASE)
_WHICH_DRUG_FOLDED = re.compile(rf"\b(?:{fold(_NOUNS)})\b[^?.!;:,\n]{{0,40}}?\bnao\b")


def asks_which_drug(text: str) -> bool:
    """Whether the question asks which drugs with "nào"; a message typed without marks is read in
    its folded form, as a word typed without marks matches any marks (core.text.token_matches)."""
    if _WHICH_DRUG.search(text):
        return True
    return not has_diacritics(text) and bool(_WHICH_DRUG_FOLDED.search(fold(text)))


# A medicine up to this many words after "đang" ("đang azathioprin", "đang dùng Sintrom") is taken.
_TAKEN_WITHIN = 2


def shorthand_read(tags: MessageTags, resolver: CatalogDrugResolver) -> tuple[tuple[str, str], ...]:
    """(written, drug_id) for each drug named by a shorthand, none of its own names ("amox")."""
    read = []
    for match in tags.matches:
        drug = resolver.by_id.get(match.drug_id)
        own = {" ".join(folded_words(name)) for name in drug.names()} if drug else set()
        if " ".join(folded_words(match.matched_text)) not in own:
            read.append((match.matched_text, match.drug_id))
    return tuple(read)


def outside_formulary(text: str, frame: QueryFrame) -> tuple[str, ...]:
    """The real drugs the catalogue lacks that the question asks about on their own. Asked
    together with a catalogue drug, or taken by the patient, they are facts to check against its
    sections (its interactions may name them), not a question to decline."""
    if frame.turn_type == "interaction":
        return ()
    tokens = folded_words(text)

    def taken(name: str) -> bool:
        at = find_phrase(tokens, folded_words(name))
        return at >= 0 and "dang" in tokens[max(0, at - _TAKEN_WITHIN) : at]

    return tuple(n for n in frame.unknown_drugs if world_drug(n) and not taken(n))


def unknown_taken(frame: QueryFrame, outside: bool = False) -> tuple[str, ...]:
    """The names the catalogue lacks among the medicines the patient takes (with `outside`, the
    other names the catalogue lacks): a medicine taken is a fact about the patient, read where the
    asked drug's sections name it, never a name asked about beside the drug."""
    taken = frame.patient_context.current_medications
    return tuple(n for n in frame.unknown_drugs if any(contains_phrase(t, n) for t in taken) != outside)


def asks_maximum(text: str) -> bool:
    """The question asks for a maximum ("liều tối đa", "nhiều nhất"): data/answer_focus.tsv."""
    return contains_any(text, answer_focus()["maximum"].asked)  # typed without marks too: "lieu toi da"


def asks_alternative(text: str) -> bool:
    """The question asks what to use instead ("thay bằng gì", "đổi sang thuốc nào"): data/answer_focus.tsv."""
    return contains_any(text, answer_focus()["alternative"].asked)


def asks_a_focus(text: str) -> bool:
    """The question asks its answer to say something its section words may not name (a maximum,
    what to use instead, whether and how to stop): data/answer_focus.tsv."""
    return any(contains_any(text, focus.asked) for focus in answer_focus().values())


def joined_unknown_names(tags: MessageTags, frame: QueryFrame) -> tuple[str, ...]:
    """The names the catalogue lacks that the question joins to a catalogue drug: asked about beside
    it, so an answer from that drug's text alone must say it does not cover them. An unknown name
    elsewhere in the question is left alone."""
    tokens = list(tags.cues.folded)
    spans = [(m.start, m.end) for m in tags.matches]
    if frame.turn_type == "interaction" and frame.drugs:
        # asked together (or beside a follow-up's drugs): every name that is a drug goes with them
        return tuple(n for n in frame.unknown_drugs if world_drug(n) or n[:1].isupper())
    joined = []
    for name in unknown_taken(frame, outside=True):
        target = folded_words(name)
        at = find_phrase(tokens, target)
        if at < 0:
            continue
        end = at + len(target)
        gaps = [tokens[e:at] for _, e in spans if e <= at] + [tokens[end:s] for s, _ in spans if s >= end]
        if any(len(gap) <= _MAX_JOINER_WORDS and all(t in NAME_JOINER_WORDS for t in gap) for gap in gaps):
            joined.append(name)
    return tuple(joined)

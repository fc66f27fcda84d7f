"""The product names a turn mentions that the catalogue does not know ("Cao Sao Vàng", a brand
from abroad): named back to the user as not found, and never made a catalogue drug."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from duocthu.catalog.names import foreign_word
from duocthu.catalog.ordinary_words import ordinary_word
from duocthu.catalog.resolver import DrugMatch, Suggestion
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.labs import lab_name
from duocthu.core.sections import SECTION_PHRASES
from duocthu.core.text import fold, nfc, raw_words
from duocthu.understanding.cues import TurnCues, scan_cues
from duocthu.understanding.facts import Facts
from duocthu.understanding.lexicon import lexicon_term
from duocthu.understanding.medicine_lists import sentence_ids

_NAME_UNITS = frozenset({"mg", "g", "ml", "mcg", "iu", "ui"})
_DURATIONS = frozenset({"ngay", "tuan", "thang", "nam", "gio", "phut", "lan"})


def unknown_names(
    text: str,
    named: Sequence[DrugMatch],
    suggestions: Sequence[Suggestion],
    facts: Facts,
    cues: TurnCues | None = None,
) -> tuple[str, ...]:
    """Product names the turn mentions that resolve to no catalogue drug, as the user wrote them.

    A name is a run of words that cannot be Vietnamese, or of capitalised words mid-sentence after a
    product word or two or more in a row, with any strength that follows it. Spans the resolver
    matched, section names, cue phrases, ordinary words and lexicon terms, conditions and allergy
    objects are never names. A fuzzy suggestion's span is a name too: it was not found as written.
    """
    raw = raw_words(text)
    cues = cues or scan_cues(text)
    suggested = [s.matched_text for s in suggestions]
    if len(raw) != len(cues.tokens):
        return tuple(dict.fromkeys(suggested))
    blocked = _never_names(cues, raw, named, facts)
    drug_starts = {m.start for m in named}
    drug_ends = {m.end for m in named}
    slots = {cue.end for cue in cues.all("name_slot")}

    sentences = sentence_ids(text, raw)

    def capitalised(i: int) -> bool:
        # a sentence's first word, or an ordinary word in capitals (stress), is capitalised as no name
        opens = i < len(raw) and sentences[i] != sentences[i - 1]
        stressed = i < len(raw) and raw[i].isupper() and len(raw[i]) > 1 and ordinary_word(raw[i])
        return 0 < i < len(raw) and raw[i][:1].isupper() and i not in blocked and not opens and not stressed

    def word(i: int, in_run: bool) -> bool:
        if i in blocked or not (in_run or pronounceable(raw[i])):
            return False
        if foreign_word(raw[i]):
            if not in_run and i and raw[i - 1][-1:].isdigit() and raw[i].islower():
                return False  # a lower-case word right after a number is its unit ("130 µmol/l")
            # an ordinary word goes on a name begun, and begins none but an acronym before its strength
            acronym = raw[i].isupper() and i + 1 < len(raw) and raw[i + 1].isdigit() and not lab_name(raw[i])
            return in_run or (not_a_common_word(raw[i]) and not ward_abbreviation(raw[i])) or acronym
        # a capitalised word mid-sentence after a product word, or in a run of them ("An Cung Ngưu")
        return capitalised(i) and (in_run or i in slots or capitalised(i + 1))

    def strength(i: int) -> bool:
        # a number before a span of time is how long, not a strength ("clarithromycin 7 ngày")
        lasts = i + 1 < len(raw) and fold(raw[i + 1]) in _DURATIONS
        return (raw[i].isdigit() and not lasts) or (fold(raw[i]) in _NAME_UNITS and raw[i - 1].isdigit())

    apart = _listed_apart(text, len(raw))
    named_again = {fold(m.matched_text) for m in named}
    variants = {c.start for c in cues.all("name_variant")}
    bracketed = re.sub(r"\(\s*|\s*\)", lambda m: m.group(0).strip(), nfc(text))
    names: list[str] = []
    i = 0
    while i < len(raw):
        if not word(i, in_run=False):
            i += 1
            continue
        j = i + 1
        while (
            j < len(raw) and j not in drug_starts and not apart[j] and (word(j, in_run=True) or strength(j))
        ):
            j += 1
        # Right after a known name, a maker, a word that goes on the name or the drug again in brackets
        # is no name; another word in lower case is a second ingredient. A drug named again is known.
        # A word opening the next sentence goes on no name before it.
        name = " ".join(raw[i:j])
        joined = i in drug_ends and sentences[i] == sentences[i - 1]
        after_known = joined and (not raw[i][:1].islower() or i in variants or f"({name})" in bracketed)
        if not after_known and fold(name) not in named_again:
            names.append(name)
        i = j
    found = [f" {fold(n)} " for n in names]
    names += [s for s in suggested if not any(f" {fold(s)} " in n for n in found)]
    return tuple(dict.fromkeys(names))


_WORDS = re.compile(r"\w+", re.UNICODE)  # as `raw_words` splits
_LIST_MARKS = re.compile(r"[,;/()]")
_DECIMAL = re.compile(r"\d,\d")


def _listed_apart(text: str, n: int) -> list[bool]:
    """For each word, whether a list mark (a comma, a semicolon, a slash, a bracket) stands between
    it and the word before: names listed apart are two names ("rifampicin, phenytoin"), never one;
    the comma of a decimal strength ("2,5 mg") parts nothing."""
    spans = [m.span() for m in _WORDS.finditer(nfc(text))]
    if len(spans) != n:
        return [False] * n
    written = nfc(text)
    apart = [False]
    for (_, end), (start, _) in pairwise(spans):
        gap = written[end:start]
        decimal = bool(_DECIMAL.fullmatch(written[end - 1 : start + 1]))
        apart.append(bool(_LIST_MARKS.search(gap)) and not decimal)
    return apart


def not_a_common_word(token: str) -> bool:
    """A foreign-looking word that may name a drug: a real drug outside the catalogue, or a word no
    word list holds; an ordinary Vietnamese or English word is none, nor a lexicon term, even
    where a brand is spelled alike (the lexicon holds no drug name)."""
    if lexicon_term(token):
        return False
    return world_drug(token) or not ordinary_word(token)


# The longest word a ward abbreviates a department, a test or a condition to ("HSTC", "ICU", "XN")
_ABBREVIATION_LETTERS = 4


def ward_abbreviation(token: str) -> bool:
    """A short word in capitals that no drug list holds: a ward's abbreviation, not a product name
    (a product in capitals is written with its strength: "ACC 200")."""
    short = token.isalpha() and token.isupper() and len(token) <= _ABBREVIATION_LETTERS
    return short and not world_drug(token)


_VOWELS = frozenset("aeiouy")


def pronounceable(token: str) -> bool:
    """Whether a word may open a drug's name: every INN and brand is spoken, so it holds a vowel; a
    word of consonants alone is an abbreviation or a unit ("HKTMS", "G/L"), unless a drug list holds it."""
    return bool(_VOWELS & set(fold(token))) or world_drug(token)


def not_a_name_word(token: str) -> bool:
    """A foreign-looking word that names nothing: an ordinary word or a lexicon term."""
    return foreign_word(token) and not not_a_common_word(token)


def _never_names(cues: TurnCues, raw: Sequence[str], named: Sequence[DrugMatch], facts: Facts) -> set[int]:
    """Token positions that are never part of an unknown name: cue phrases, allergy objects,
    section names, the resolver's matches, conditions and what the patient "bị"/"mắc"."""
    # a message's opening lead-in names what it is about: a real drug there is one ("Rifampicin ở BN lao: …")
    lead_in = {i for i in cues.spans("topic") if i >= len(raw) or not world_drug(raw[i])}
    blocked = set(cues.covered(but=("topic",))) | lead_in | set(facts.object_positions)
    for phrase in SECTION_PHRASES.matches(cues.tokens):  # "overdose", "CCĐ": a section, never a name
        blocked.update(range(phrase.start, phrase.start + phrase.length))
    for match in named:
        blocked.update(range(match.start, match.end))
    for condition in facts.conditions:
        blocked.update(range(condition.start, condition.start + condition.length))
    # what the patient "bị"/"mắc" is a condition, never a product: "uống X bị rash"; a real drug
    # after it acts on something ("thuốc nào bị rifampicin làm giảm tác dụng")
    blocked.update(c.end for c in cues.all("comorbidity") if c.end >= len(raw) or not world_drug(raw[c.end]))
    # the words of a laboratory value the turn states ("K máu 6.0") are its name and number
    folded = [fold(t) for t in raw]
    for value in facts.labs:
        span = [fold(t) for t in raw_words(value)]
        blocked.update(
            i + k
            for i in range(len(folded) - len(span) + 1)
            if folded[i : i + len(span)] == span
            for k in range(len(span))
        )
    for lead in cues.all("condition_lead"):
        # a name after a condition's lead word is an eponym: it names a disease, never a product
        end = lead.end
        while end < len(raw) and end - lead.end < 3 and (foreign_word(raw[end]) or raw[end][:1].isupper()):
            end += 1
        blocked.update(range(lead.end, end))
    return blocked

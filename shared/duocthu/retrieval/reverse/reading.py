"""How one formulary text names a phrase: where the phrase stands in it as words of its own, what
a negation or a lead before it makes of it, and what a mention counts as in its section. Pure:
no store, nothing read but the data tables (duocthu.core.tables).

In chỉ định text a mention that follows a negation in its sentence ("không phải là thuốc điều trị
hen phế quản", data/indication_negations.tsv) is what the drug is not for, and does not count;
one right after a cause or patient lead ("co giật do sốt", "ở người … có kèm",
data/patient_state_leads.tsv) ranks the drug below every direct mention; one after a risk lead
("có nguy cơ chảy máu thấp", "ít gây hạ glucose huyết") or inside another condition's name
("sốt thương hàn", "thiếu máu cục bộ") lists the drug apart. A mention inside a term that holds
the phrase's words but is not it (data/distinct_terms.tsv: "phù hợp") never counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Literal, cast, get_args

from duocthu.core.conditions import condition_kind, find_conditions
from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import ADR_SECTION, INDICATION_SECTION
from duocthu.core.tables import table_rows
from duocthu.core.terms import inside_distinct_terms, names_finding
from duocthu.core.text import fold, has_diacritics, nfc, segment_ids, stop_words, words

# -- where a phrase stands ---------------------------------------------------------------------

_DASHES = "-–‐"


def _compound_edges(text: str) -> tuple[set[int], set[int]]:
    """Word indices joined by an unspaced dash to the word before (first set) or after (second):
    "Wolff–Parkinson–White" is one name, and "Parkinson" inside it is not the disease."""
    if not any(d in text for d in _DASHES):
        return set(), set()
    text = nfc(text)
    spans = [m.span() for m in re.finditer(r"\w+", text)]
    before = {
        i for i, (a, _) in enumerate(spans) if a >= 2 and text[a - 1] in _DASHES and text[a - 2].isalnum()
    }
    after = {
        i
        for i, (_, b) in enumerate(spans)
        if b + 1 < len(text) and text[b] in _DASHES and text[b + 1].isalnum()
    }
    return before, after


def _mentions(
    text: str, tokens: Sequence[str], phrase: Sequence[str], lenient: bool, other_conditions: bool = False
) -> Iterator[int]:
    """Where the phrase stands in the text as words of its own: never inside a dashed compound,
    nor inside a term that holds its words but is not it (data/distinct_terms.tsv); inside another
    condition's name only when `other_conditions` (chỉ định lists such a drug apart)."""
    before, after = _compound_edges(text)
    inside = inside_distinct_terms(tokens, phrase, conditions=not other_conditions)
    n = len(phrase)
    return (
        i
        for i in phrase_starts(tokens, phrase, lenient)
        if i not in before and i + n - 1 not in after and not inside.issuperset(range(i, i + n))
    )


def phrase_position(text: str, phrase: Sequence[str], lenient: bool = False) -> int:
    """Word index of the phrase's first contiguous occurrence in the text, -1 if none. Exact: word
    for word as written (marks included, case ignored). Lenient: the diacritics rule, word by word
    (a word typed without marks matches the folded word). A run of words inside a dashed compound
    name does not count."""
    return next(_mentions(text, words(text), phrase, lenient), -1)


def allows_lenient(phrase: Sequence[str]) -> bool:
    """Whether an unmarked word may match through folding: only inside a phrase of two or more
    words. Folded, the one word "ho" (cough) would find hô hấp and hỗ trợ in every monograph."""
    return len(phrase) > 1 and any(not has_diacritics(t) for t in phrase)


def is_searchable(indication: str) -> bool:
    """A phrase made of stop words only ("có là được không") names nothing."""
    stops = stop_words()
    return any(t not in stops for t in words(indication))


# -- negations ---------------------------------------------------------------------------------

# The negating words: every phrase of the negation tables holds one ("khi không có").
_NEGATORS = frozenset({"không", "chưa"})


@lru_cache(maxsize=2)
def _negations(name: str = "indication_negations.tsv") -> dict[str, tuple[tuple[str, ...], ...]]:
    """Negating phrases of a data file (data/indication_negations.tsv, data/adverse_negations.tsv)
    as word tuples, by first word. Matched as written: the formulary's own text carries its marks."""
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for (line,) in table_rows(name):
        # "không dùng * để": the words around a gap, the gap kept as GAP
        parts = [tuple(words(part)) for part in line.split(GAP)]
        phrase = tuple(w for i, part in enumerate(parts) for w in (*((GAP,) if i else ()), *part))
        by_first.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(phrases) for first, phrases in by_first.items()}


# A negation's gap ("không dùng * để"): one or two words, never "được" ("không dùng được thuốc đầu
# tay": the patient cannot take another drug, so the indication stands).
GAP = "*"
GAP_WORDS = (1, 2)


def _negation_end(tokens: Sequence[str], start: int, negation: Sequence[str]) -> int | None:
    """Where the negation ends when it stands at `start` (its gap filled), else None."""
    at = start
    for n, word in enumerate(negation):
        if word == GAP:
            rest = negation[n + 1 :]
            for gap in GAP_WORDS:
                filler = tokens[at : at + gap]
                if len(filler) == gap and "được" not in filler:
                    end = _negation_end(tokens, at + gap, rest)
                    if end is not None:
                        return end
            return None
        if at >= len(tokens) or tokens[at] != word:
            return None
        at += 1
    return at


def _either_way(tokens: Sequence[str], start: int) -> bool:
    """ "có hoặc không kèm X": X or not, so nothing is negated."""
    return start >= 2 and [fold(t) for t in tokens[start - 2 : start]] == ["co", "hoac"]


# A contrast word ends a negation's reach: "không gây X khi dùng đơn độc nhưng có thể gây X …"
_CONTRASTS = frozenset({"nhưng"})


# Where a negation's reach ends in a chỉ định section (the sentence) and in an ADR section (the
# clause: "thường không gây triệu chứng, đôi khi thấy quầng sáng" names the halo). A clause-bound
# reach can leave a listed negated finding counted ("không gây X, Y"), which its quote shows; it
# never drops one the text affirms, which nothing would show.
SENTENCE, CLAUSE = ".;:!?\n", ".;:!?\n,"


def affirmed_positions(
    text: str,
    phrase: Sequence[str],
    lenient: bool = False,
    negations: str = "indication_negations.tsv",
    reach: str = SENTENCE,
    other_conditions: bool = False,
) -> list[int]:
    """Word indices of every mention of the phrase (as `_mentions` finds them) that does not
    follow a negation (of the data file `negations`) within its `reach`, before a contrast word."""
    tokens = words(text)
    mentions = list(_mentions(text, tokens, phrase, lenient, other_conditions))
    if not mentions or not _NEGATORS & set(tokens[: mentions[-1]]):
        return mentions  # the common case: nothing before a mention can negate it
    sentences = segment_ids(text, reach)
    by_first = _negations(negations)
    negated: list[tuple[int, int]] = []  # word spans a negation reaches
    for start, token in enumerate(tokens):
        for negation in by_first.get(token, ()):
            end = _negation_end(tokens, start, negation)
            if end is not None and not _either_way(tokens, start):
                stop = end
                while (
                    stop < len(tokens)
                    and sentences[stop] == sentences[start]
                    and tokens[stop] not in _CONTRASTS
                ):
                    stop += 1
                negated.append((end, stop))
    return [i for i in mentions if not any(a <= i < b for a, b in negated)]


def advice_position(text: str, phrase: Sequence[str]) -> int:
    """Word index of the first place a data-file wording stands in the text as written (marks and
    case aside), -1 if none. Right after "không" or "chưa" it does not count: "không cần ngừng
    cho con bú" advises nothing against the drug."""
    return _advice_position(text, tuple(phrase))


# Keyed by the formulary's parts and the data file's wordings, as `first_mention` is.
@lru_cache(maxsize=8192)
def _advice_position(text: str, phrase: tuple[str, ...]) -> int:
    tokens = words(text)
    mentions = _mentions(text, tokens, phrase, False)
    return next((p for p in mentions if p == 0 or tokens[p - 1] not in _NEGATORS), -1)


# -- leads -------------------------------------------------------------------------------------

LeadReading = Literal["state", "risk", "use"]
_LEAD_READINGS: frozenset[str] = frozenset(get_args(LeadReading))


@lru_cache(maxsize=1)
def _patient_state_leads() -> dict[str, tuple[tuple[tuple[str, ...], LeadReading], ...]]:
    """data/patient_state_leads.tsv: section key -> its leads as word tuples, with their reading."""
    by_section: dict[str, list[tuple[tuple[str, ...], LeadReading]]] = {}
    for phrase, sections, reading in table_rows("patient_state_leads.tsv"):
        if reading not in _LEAD_READINGS:
            raise ValueError(f"patient_state_leads.tsv: a lead reads state, risk or use, not {reading!r}")
        for key in sections.split(","):
            if key not in (ADR_SECTION, INDICATION_SECTION):
                raise ValueError(f"patient_state_leads.tsv: leads apply to ADR or chỉ định only, not {key!r}")
            by_section.setdefault(key, []).append((tuple(words(phrase)), cast(LeadReading, reading)))
    return {key: tuple(leads) for key, leads in by_section.items()}


def _lead_before(tokens: Sequence[str], start: int, section_key: str) -> LeadReading | None:
    """How the longest lead right before the word at `start` reads in this section: the patient's
    state or a cause ("khi có", "ở người", "do"), a risk the patient runs ("nguy cơ"), or the use
    after all ("giảm nguy cơ"); None without a lead."""
    found = [
        (len(lead), reading)
        for lead, reading in _patient_state_leads().get(section_key, ())
        if tuple(tokens[max(0, start - len(lead)) : start]) == lead
    ]
    return max(found)[1] if found else None


def _after_state_lead(tokens: Sequence[str], start: int, section_key: str) -> bool:
    """Whether the word at `start` follows a lead that, in this section, names the patient's state,
    a cause or a risk rather than what the lookup asks."""
    return _lead_before(tokens, start, section_key) in ("state", "risk")


# -- what a mention counts as ------------------------------------------------------------------


def _inside_another_condition(text: str, start: int, length: int, wording: str) -> bool:
    """Whether a mention at `start` is part of a condition of another name. For a symptom, any
    disease holding it: "đau" inside "đau thắt ngực" or "đau dây thần kinh" (data/
    condition_phrases.tsv) is not pain to relieve, so amlodipin ranks below the analgesics for
    "giảm đau bằng thuốc gì". A symptom inside a symptom ("đau" in "đau đầu") and a disease inside
    a disease ("loét dạ dày" in "viêm loét dạ dày tá tràng") are the thing asked, unless data/
    distinct_terms.tsv names the longer one another condition ("thiếu máu cục bộ")."""
    if not names_finding(words(text), start, length):
        return True
    if condition_kind(wording) != "symptom":
        return False
    asked = fold(wording)
    return any(
        c.kind == "disease"
        and c.start <= start
        and start + length <= c.start + c.length
        and c.length > length
        and fold(c.normalized) != asked
        for c in find_conditions(text)
    )


# How a section's text names what is asked: as itself ("direct"); in chỉ định, right after a cause
# or patient lead ("secondary": it may still introduce the use), or only inside another
# condition's name or as a risk ("incidental": no use of the drug for it).
MentionReading = Literal["direct", "secondary", "incidental"]


@lru_cache(maxsize=1)
def _negations_after() -> tuple[tuple[str, ...], ...]:
    """data/negations_after.tsv as word tuples."""
    return tuple(tuple(words(line)) for (line,) in table_rows("negations_after.tsv"))


def _denial_starts(tokens: Sequence[str]) -> list[int]:
    """Where a phrase of data/negations_after.tsv stands in the tokens."""
    if "phải" not in tokens:  # the common case: no such phrase
        return []
    return [at for negation in _negations_after() for at in phrase_starts(tokens, negation)]


def denies(text: str) -> bool:
    """The text holds a phrase denying what its sentence names ("… không phải là chống chỉ định")."""
    return bool(_denial_starts(words(text)))


@lru_cache(maxsize=8192)
def denied_words(text: str) -> frozenset[int]:
    """Word indices a negation after them denies: from their sentence's start to the negation
    ("Suy gan, động kinh … không phải là chống chỉ định tuyệt đối")."""
    starts = _denial_starts(words(text))
    if not starts:
        return frozenset()
    sentences = segment_ids(text, SENTENCE)
    denied: set[int] = set()
    for at in starts:
        start = at
        while start > 0 and sentences[start - 1] == sentences[at]:
            start -= 1
        denied.update(range(start, at))
    return frozenset(denied)


# Keyed by the formulary's parts (a bounded set per index), read again by every which-drug turn.
@lru_cache(maxsize=8192)
def first_mention(text: str, wording: str, section_key: str, lenient: bool) -> tuple[int, MentionReading]:
    """Where a part of `section_key` names the asked `wording` (word index, -1 if it does not),
    read as that section reads it, and what the mention counts as. In an ADR section a mention
    after a negation in its clause, after a lead naming the patient's state, or inside another
    condition does not count; in any other section but chỉ định, one inside another condition
    does not; in chỉ định, a direct mention comes first, else one after a cause or
    patient lead, else one inside another condition or after a risk lead. In any section a
    mention its sentence denies after it ("… không phải là chống chỉ định") does not count."""
    phrase = words(wording)
    tokens = words(text)
    n = len(phrase)
    denied = denied_words(text)
    if section_key == ADR_SECTION:
        affirmed = affirmed_positions(text, phrase, lenient, "adverse_negations.tsv", CLAUSE)
        mentions = [i for i in affirmed if i not in denied]
        position = next(
            (
                i
                for i in mentions
                if not _after_state_lead(tokens, i, section_key)
                and not _inside_another_condition(text, i, n, wording)
            ),
            -1,
        )
        return position, "direct"
    if section_key != INDICATION_SECTION:
        # "sốt" inside "thuốc chống sốt rét" is no fever the drug is contraindicated in
        written = [i for i in _mentions(text, tokens, phrase, lenient) if i not in denied]
        return next((i for i in written if not _inside_another_condition(text, i, n, wording)), -1), "direct"
    found = [i for i in affirmed_positions(text, phrase, lenient, other_conditions=True) if i not in denied]
    named = [
        i
        for i in found
        if not _inside_another_condition(text, i, n, wording)
        and _lead_before(tokens, i, section_key) != "risk"
    ]
    direct = [i for i in named if not _after_state_lead(tokens, i, section_key)]
    if direct or not found:
        return (direct[0] if direct else -1), "direct"
    if named:
        return named[0], "secondary"
    return found[0], "incidental"


# -- a finding stated outside the ADR list ------------------------------------------------------

EffectCue = Literal["cause", "after", "breaker", "lead", "compare", "compare-after"]
_EFFECT_CUES: frozenset[str] = frozenset(get_args(EffectCue))


@lru_cache(maxsize=1)
def _effect_cues() -> dict[str, tuple[tuple[str, ...], ...]]:
    """data/effect_cues.tsv: how a cue reads -> its phrases as word tuples."""
    cues: dict[str, list[tuple[str, ...]]] = {}
    for phrase, reads in table_rows("effect_cues.tsv"):
        if reads not in _EFFECT_CUES:
            raise ValueError(f"effect_cues.tsv: a cue reads one of {sorted(_EFFECT_CUES)}, not {reads!r}")
        cues.setdefault(reads, []).append(tuple(words(phrase)))
    return {reads: tuple(phrases) for reads, phrases in cues.items()}


def _cue_ends(tokens: Sequence[str], reads: EffectCue, start: int, stop: int) -> list[int]:
    """Word indices in [start, stop) where a cue of this reading ends (one past its last word)."""
    return [
        i + len(cue)
        for cue in _effect_cues().get(reads, ())
        for i in range(start, stop - len(cue) + 1)
        if tuple(tokens[i : i + len(cue)]) == cue
    ]


def _cue_starts(
    tokens: Sequence[str], reads: EffectCue, start: int, stop: int, begins_before: int | None = None
) -> list[int]:
    """Word indices where a cue of this reading starts, wholly inside [start, stop), beginning
    before `begins_before` when given."""
    last_start = stop if begins_before is None else min(stop, begins_before)
    return [
        i
        for cue in _effect_cues().get(reads, ())
        for i in range(start, min(last_start, stop - len(cue) + 1))
        if tuple(tokens[i : i + len(cue)]) == cue
    ]


def _states_effect_at(tokens: Sequence[str], sentences: Sequence[int], at: int, n: int) -> bool:
    """Whether the mention of `n` words at `at` reads as the drug's effect (data/effect_cues.tsv)."""
    first = at
    while first > 0 and sentences[first - 1] == sentences[at]:
        first -= 1
    last = at + n
    while last < len(tokens) and sentences[last] == sentences[at]:
        last += 1
    if at in _cue_ends(tokens, "lead", max(first, at - 3), at):
        return False
    if _cue_ends(tokens, "compare", max(first, at - 3), at):
        return False
    if _cue_starts(tokens, "compare-after", at + n, last, begins_before=at + n + 2):
        return False
    if _cue_starts(tokens, "after", at + n, last, begins_before=at + n + 1):
        return True
    causes = _cue_ends(tokens, "cause", first, at + 1)
    if not causes:
        return False
    breakers = _cue_starts(tokens, "breaker", max(causes), at)
    return not breakers


# Keyed by the formulary's parts (and the reply's sentences), as `first_mention` is.
@lru_cache(maxsize=8192)
def states_effect(text: str, wording: str, lenient: bool = False) -> int:
    """Word index of the first mention of `wording` in a Thận trọng or Dược lý part that states it
    as the drug's effect ("Thuốc có thể gây giữ nước", "Hậu quả là ... khoảng QT kéo dài"), -1 if
    none: never one negated in its clause ("không làm kéo dài khoảng QT"), a comparison ("tỷ lệ
    ho khan thấp hơn"), the patient's condition ("ở người có khoảng QT kéo dài", "Hạ kali huyết
    ... làm cơ tim nhạy cảm hơn") or what the drug treats or prevents (data/effect_cues.tsv)."""
    phrase = words(wording)
    tokens = words(text)
    mentions = affirmed_positions(text, phrase, lenient, "adverse_negations.tsv", CLAUSE)
    sentences = segment_ids(text, SENTENCE)
    return next(
        (
            i
            for i in mentions
            if _states_effect_at(tokens, sentences, i, len(phrase))
            and not _inside_another_condition(text, i, len(phrase), wording)
        ),
        -1,
    )

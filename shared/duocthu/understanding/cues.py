"""Cue phrases: the question forms query understanding reacts to, read from data tables.

`data/understanding_cues.tsv` holds the question-form cues (kind, phrase, value) and
`data/condition_phrases.tsv` the condition names. Both are matched on whole words under the
diacritics rule of `duocthu.core.text` (a word typed without marks matches any marks).

A section or reverse-relation cue may have gaps ("uống … như thế nào"): its parts in order with at
most `MAX_GAP` words between them, because a product name, a class or a population usually sits
inside the question form. A gapped cue competes by the words it matched, never marks the words in
its gaps as question words, and counts only when no contiguous form is found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeVar

from duocthu.core.conditions import condition_index
from duocthu.core.phrases import PhraseIndex, PhraseMatch, longest_spans
from duocthu.core.sections import DOSE_SECTION, SECTION_PHRASES
from duocthu.core.sentences import lead_in
from duocthu.core.tables import table_records
from duocthu.core.text import fold, has_diacritics, nfc, segment_ids, token_matches, words
from duocthu.understanding.task_requests import conversions_asked, tasks_requested

# The kinds a row of the table may have (tests/unit/understanding/test_tables.py checks every row).
CueKind = Literal[
    "smalltalk",
    "not_covered",
    "overview",
    "section",
    "modal_section",
    "candidate",
    "broad_condition",
    "reverse_relation",
    "named_drug",
    "interaction",
    "continue_lead",
    "continue",
    "new_topic",
    "other_patient",
    "medicine",
    "dose",
    "current_medication",
    "allergy",
    "comorbidity",
    "patient_condition",
    "patient_lead",
    "patient_subject",
    "procedure",
    "population",
    "route",
    "renal",
    "hepatic",
    "pregnancy",
    "delivered",
    "breastfeeding",
    "name_slot",
    "not_a_name",
    "name_variant",
    "condition_lead",
    "manage",
    "purpose",
    "vague_name",
    "reaction_lead",
    "drug_class",
    "past",
    "safe_to_use",
    "efficacy",
    "both",
    "not_a_cue",
    "drug_pronoun",
    "faculty",
    "book",
    "form_part",
    "topic",
]
T = TypeVar("T")
GAP = "…"
MAX_GAP = 6  # words between two parts of a gapped cue


@lru_cache(maxsize=2)
def _finding_end_words(narrowing: bool) -> frozenset[str]:
    kinds = ("finding", "narrowing") if narrowing else ("finding",)
    rows = table_records("finding_ends.tsv")
    return frozenset(nfc(r["word"]).casefold() for r in rows if r["ends"] in kinds)


def ends_finding(token: str, narrowing: bool = False) -> bool:
    """Whether a word of the question ends the finding it names (data/finding_ends.tsv), or with
    `narrowing` also the words that narrow a known one. Matched as written, never folded (a folded
    particle spells words of findings); the file lists the unmarked spellings that are safe."""
    return token.casefold() in _finding_end_words(narrowing)


@dataclass(frozen=True, slots=True)
class Cue:
    kind: str
    value: str
    start: int  # token position in the turn
    length: int

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True)
class _CueTables:
    contiguous: PhraseIndex[tuple[str, str]]
    parts: PhraseIndex[tuple[int, int]]  # (gapped cue, part number)
    gapped: tuple[tuple[int, str, str], ...]  # gapped cue -> (number of parts, kind, value)


# Determiners that only make a noun plural, and verbs that only say the book writes it ("thuốc nào
# có ghi ADR …", "sách nêu"): skipped in rows and turns alike, so no row repeats another.
_DETERMINERS = ("các", "những", "ghi", "nêu")


def _cue_words(tokens: Sequence[str]) -> tuple[list[str], list[int]]:
    """The words a cue is matched on (determiners skipped), and where each stands in `tokens`.
    "những gì" is a pronoun ("what things"), not a plural: kept."""

    def determiner(i: int) -> bool:
        pronoun = i + 1 < len(tokens) and token_matches(tokens[i + 1], "gì")
        return not pronoun and any(token_matches(tokens[i], d) for d in _DETERMINERS)

    kept = [i for i in range(len(tokens)) if not determiner(i)]
    return [tokens[i] for i in kept], kept


def _matched(index: PhraseIndex[T], tokens: Sequence[str]) -> list[PhraseMatch[T]]:
    """The index's matches among `tokens`, determiners skipped (a match spans those inside it)."""
    words_, at = _cue_words(tokens)
    return [
        PhraseMatch(at[m.start], at[m.start + m.length - 1] + 1 - at[m.start], m.value)
        for m in index.matches(words_)
    ]


@lru_cache(maxsize=1)
def _cue_tables() -> _CueTables:
    index: PhraseIndex[tuple[str, str]] = PhraseIndex()
    parts: PhraseIndex[tuple[int, int]] = PhraseIndex()
    gapped: list[tuple[int, str, str]] = []
    for row in table_records("understanding_cues.tsv"):
        kind, value, phrase = row["kind"], (row.get("value") or "").strip(), row["phrase"]
        if GAP not in phrase:
            index.add(" ".join(_cue_words(words(phrase))[0]), (kind, value))
            continue
        pieces = [" ".join(_cue_words(words(p))[0]) for p in phrase.split(GAP)]
        for number, piece in enumerate(pieces):
            parts.add(piece, (len(gapped), number))
        gapped.append((len(pieces), kind, value))
    return _CueTables(index, parts, tuple(gapped))


def gapped_section_cues(text: str) -> tuple[PhraseMatch[str], ...]:
    """Gapped section cues in the text: start at the first part, length = words matched. A part
    right after "không" is negated and does not count."""
    return tuple(
        PhraseMatch(parts[0].start, sum(m.length for m in parts), value)
        for value, parts in gapped_forms(text, "section")
    )


# Typed without marks, "cam" before a condition is "cầm" ("cầm máu", "cầm tiêu chảy"), not "cấm".
_HOLDS_BACK = frozenset({"cam"})
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
# Before "nào", words that make it ask how or when ("thế nào", "khi nào", "lúc nào"), never which.
_HOW_OR_WHEN = frozenset({"the", "khi", "luc"})


def gapped_forms(text: str, kind: str) -> tuple[tuple[str, tuple[PhraseMatch[tuple[int, int]], ...]], ...]:
    """Gapped cues of one kind in the text, each as its value and the parts it matched, by start."""
    tables = _cue_tables()
    tokens = words(text)
    conditions = [(m.start, m.start + m.length) for m in longest_spans(condition_index().matches(tokens))]
    masked = [
        (m.start, m.start + m.length)
        for m in _matched(tables.contiguous, tokens)
        if m.value[0] == "not_a_cue"
    ]
    found: dict[int, dict[int, list[PhraseMatch[tuple[int, int]]]]] = {}
    for match in _matched(tables.parts, tokens):
        if match.start and fold(tokens[match.start - 1]) == "khong":
            continue  # "không được dùng" is not "được dùng"
        if any(a <= match.start < b for a, b in masked):
            continue  # "ăn kiêng" is a diet, not "kiêng … nào" (which drugs to avoid)
        end = match.start + match.length
        if any(a < match.start and end <= b for a, b in conditions):
            continue  # "cảm" inside "trầm cảm" ("tram cam") is no "cấm"; "hạ" opening "hạ sốt" counts
        written = tokens[match.start]
        if fold(written) == "nao" and match.start and fold(tokens[match.start - 1]) in _HOW_OR_WHEN:
            continue  # "tư vấn tránh thai thế nào" asks how, not which drugs to avoid
        if (
            fold(written) in _HOLDS_BACK
            and not has_diacritics(written)
            and any(a == end for a, _ in conditions)
        ):
            continue  # "thuoc nao cam tieu chay": cầm (holds back), never cấm
        cue, number = match.value
        found.setdefault(cue, {}).setdefault(number, []).append(match)
    out = []
    for cue, by_part in found.items():
        count, cue_kind, value = tables.gapped[cue]
        if cue_kind != kind or len(by_part) < count:
            continue
        for first in by_part[0]:
            chain, end = [first], first.start + first.length
            for number in range(1, count):
                following = [m for m in by_part[number] if end <= m.start <= end + MAX_GAP]
                if not following:
                    break
                chain.append(following[0])
                end = following[0].start + following[0].length
            if len(chain) == count:
                out.append((value, tuple(chain)))
                break
    return tuple(sorted(out, key=lambda form: form[1][0].start))


@dataclass(frozen=True)
class TurnCues:
    """Every cue found in one turn, by kind (within a kind, longest non-overlapping matches)."""

    tokens: tuple[str, ...]
    by_kind: dict[str, tuple[Cue, ...]]
    folded: tuple[str, ...]  # the tokens with marks stripped: what rules match words against
    sentences: tuple[int, ...] = ()  # each token's sentence ("." "?" "!" ";" end one); () unknown

    def all(self, kind: CueKind) -> tuple[Cue, ...]:
        return self.by_kind.get(kind, ())

    def has(self, kind: CueKind) -> bool:
        return bool(self.by_kind.get(kind))

    def first(self, kind: CueKind) -> Cue | None:
        found = self.by_kind.get(kind)
        return found[0] if found else None

    def leads(self, kind: CueKind) -> bool:
        """A cue of this kind opens the turn."""
        return any(cue.start == 0 for cue in self.all(kind))

    def spans(self, kind: CueKind) -> frozenset[int]:
        """Token positions inside the cues of this kind."""
        return frozenset(i for c in self.all(kind) for i in range(c.start, c.end))

    def covered(self, but: Sequence[CueKind] = ()) -> frozenset[int]:
        """Token positions inside any cue (they are question words, never a product name), but for
        the words that go on a product's name (`name_variant`: "Kavenol Forte") and the kinds `but`."""
        return frozenset(
            i
            for kind, cues in self.by_kind.items()
            if kind != "name_variant" and kind not in but
            for c in cues
            for i in range(c.start, c.end)
        )


# A cue that tells another kind by the same words: a population that is a patient's state tells that
# state (a fact the reply checks); a word standing for the conversation's drug refers back to it. The
# told kind's own rows hold only the words no such cue has ("thai kỳ", "eGFR", "thì sao").
_TELLS_TOO = {
    ("population", "phu_nu_co_thai"): "pregnancy",
    ("population", "phu_nu_cho_con_bu"): "breastfeeding",
    ("population", "suy_than"): "renal",
    ("population", "suy_gan"): "hepatic",
    ("drug_pronoun", ""): "continue",
}


# An amount asked ("mấy", "bao nhiêu") in a unit a dose is given in or taken for asks the dose:
# "khởi đầu mấy mg", "uống bao nhiêu viên", "dùng mấy ngày". Not an age ("mấy tuổi"), what a unit
# is or holds ("viên là mấy mg", "chứa bao nhiêu mg": the strength), nor a time gone by ("uống mấy
# tuần nay": "mấy" is "a few").
_AMOUNT_WORDS = (("may",), ("bao", "nhieu"))
_IS_OR_HOLDS = frozenset({"la", "chua"})
_GONE_BY = frozenset({"nay", "roi", "qua", "truoc"})
_DOSE_UNITS = frozenset(
    {"mg", "g", "mcg", "ml", "ui", "iu", "vien", "ong", "goi", "giot", "nhat", "xit"}
    | {"lan", "ngay", "tuan", "tieng"}  # how often, how long
)


def _amounts_asked(folded: Sequence[str]) -> list[PhraseMatch[tuple[str, str]]]:
    found = []
    for i in range(len(folded)):
        for amount in _AMOUNT_WORDS:
            end = i + len(amount)
            if tuple(folded[i:end]) != amount or end >= len(folded) or folded[end] not in _DOSE_UNITS:
                continue
            if (i and folded[i - 1] in _IS_OR_HOLDS) or set(folded[end + 1 : end + 2]) & _GONE_BY:
                continue
            found.append(PhraseMatch(i, len(amount) + 1, ("section", DOSE_SECTION)))
    return found


# A pregnancy told by its stage alone ("thai 34 tuần", "sản phụ 32 tuần", "bầu 7 tháng", the
# ward's "thai 34w"): who the patient is, as "có thai" says, never a finding asked about
_PREGNANT_LEADS = (("thai",), ("bau",), ("san", "phu"))
_STAGE_AMOUNT = re.compile(r"(\d+)(tuan|thang|w)?")


def _stages_told(folded: Sequence[str]) -> list[PhraseMatch[tuple[str, str]]]:
    found = []
    for i in range(len(folded)):
        for lead in _PREGNANT_LEADS:
            at = i + len(lead) + (tuple(folded[i + len(lead) : i + len(lead) + 1]) == ("duoc",))
            if tuple(folded[i : i + len(lead)]) != lead or at >= len(folded):
                continue
            amount = _STAGE_AMOUNT.fullmatch(folded[at])
            unit = at + 1 < len(folded) and folded[at + 1] in ("tuan", "thang", "w")
            if amount and (amount.group(2) or unit):
                found.append(PhraseMatch(i, at + 1 + (not amount.group(2)) - i, ("pregnancy", "")))
    return found


# More of the kind a which-word may follow a class by: at most CLASS_RUN words, opening with a
# word classes are named by ("kháng sinh / kháng nấm nào", "thuốc giảm đau chống viêm nào")
CLASS_RUN = 2
_CLASS_OPENERS = frozenset({"khang", "chong", "uc", "thuoc", "nhom"})


def _which_after_class(folded: Sequence[str], text: str, end: int) -> int | None:
    """Where the which-word asking a class stands: right after it, or after more of the kind in
    the same clause."""
    if end < len(folded) and folded[end] in ("nao", "gi"):
        return end
    if end >= len(folded) or folded[end] not in _CLASS_OPENERS:
        return None
    clauses = segment_ids(text, ",;.?!:")
    for at in range(end + 1, min(end + CLASS_RUN + 1, len(folded))):
        if folded[at] in ("nao", "gi"):
            same = len(clauses) != len(folded) or clauses[at] == clauses[end - 1]
            return at if same else None
    return None


def scan_cues(text: str) -> TurnCues:
    tokens = tuple(words(text))
    folded = tuple(fold(t) for t in tokens)
    grouped: dict[str, list[PhraseMatch[tuple[str, str]]]] = {}
    if amounts := _amounts_asked(folded):
        grouped["section"] = amounts
    if stages := _stages_told(folded):
        grouped["pregnancy"] = stages
    # a task asked of the assistant ("soạn giúp", "tính … giùm"): a request no section answers
    spans = [(m.start, m.length) for m in amounts]
    tasks = [*tasks_requested(tokens, segment_ids(text, ".;:!?\n,")), *conversions_asked(text, folded, spans)]
    for start, length, kind in tasks:
        grouped.setdefault("not_covered", []).append(PhraseMatch(start, length, ("not_covered", kind)))
    for match in _matched(_cue_tables().contiguous, tokens):
        grouped.setdefault(match.value[0], []).append(match)
        told = _TELLS_TOO.get(match.value)
        if told:
            grouped.setdefault(told, []).append(PhraseMatch(match.start, match.length, (told, "")))
    by_kind = {
        kind: tuple(Cue(kind, m.value[1], m.start, m.length) for m in longest_spans(found))
        for kind, found in grouped.items()
    }
    # under a negation "thuốc gì" is "any medicine", told, not asked: "không dùng thuốc gì khác"
    kept = tuple(c for c in by_kind.get("candidate", ()) if not _negated_before(folded, c.start))
    by_kind = {k: v for k, v in by_kind.items() if k != "candidate"} | ({"candidate": kept} if kept else {})
    if "candidate" not in by_kind:
        # a class asked with a which-word asks which drug, also with more of the kind named before
        # it ("kháng sinh / kháng nấm nào", "thuốc giảm đau chống viêm nào")
        asked = [
            Cue("candidate", "", c.start, which + 1 - c.start)
            for c in by_kind.get("drug_class", ())
            if (which := _which_after_class(folded, text, c.end)) is not None
        ]
        if asked:
            by_kind["candidate"] = tuple(asked)
    if "reverse_relation" not in by_kind:
        # a class or a population sits inside the form: the first gapped form, spanning its first part
        gapped = gapped_forms(" ".join(tokens), "reverse_relation")
        if gapped:
            value, (first, *later) = gapped[0]
            by_kind["reverse_relation"] = (Cue("reverse_relation", value, first.start, 1),)
            by_kind["form_part"] = tuple(Cue("form_part", "", m.start, m.length) for m in later)
    if "reverse_relation" not in by_kind:
        # whether a class brings something on asks which drugs list it among their reactions
        caused = [
            Cue("reverse_relation", "adverse_effect", c.end, end - c.end)
            for c in by_kind.get("drug_class", ())
            for end in (c.end + 1, c.end + 2)
            if folded[c.end : end] in (("gay",), ("co", "gay"), ("co", "lam"))
        ]
        if caused:
            by_kind["reverse_relation"] = (caused[0],)
    # the message's opening lead-in ("Nhược cơ: thuốc nào …") names what it is about, as the
    # book's "Trẻ em: …" heads its paragraph
    topic = len(words(lead_in(text)))
    if topic:
        by_kind["topic"] = (Cue("topic", "", 0, topic),)
    # a decimal point ("K 5.8") ends no sentence
    sentences = tuple(segment_ids(_DECIMAL_POINT.sub(" ", text), ".;?!\n"))
    return TurnCues(tokens, by_kind, folded, sentences if len(sentences) == len(tokens) else ())


# After "không", words that ask on: "không biết dùng thuốc gì", "… không, hay dùng thuốc nào khác?"
_ASKS_ON = frozenset({"biet", "ro", "hay", "hoac"})


def _negated_before(folded: Sequence[str], start: int) -> bool:
    """ "không" right before the cue or before its verb ("không dùng thuốc gì")."""
    at = [k for k in range(max(0, start - 2), start) if folded[k] == "khong"]
    return any(folded[k + 1] not in _ASKS_ON for k in at)


# A plural or a listing word before a noun of drugs asks which drugs, as "nào" does, when a section or a
# condition follows; drugs named before or taken beside another ask for no list.
_LISTING = (("liệt", "kê"), ("danh", "sách"))
# the nouns a which-drug question asks by: a drug, and the book's entry for one ("chuyên luận")
DRUG_NOUNS = (("thuốc",), ("kháng", "sinh"), ("hoạt", "chất"), ("chuyên", "luận"))
_LIST_REACH = 3  # words between the listing word and the noun ("liệt kê giúp các thuốc")


def asks_for_a_list(cues: TurnCues) -> TurnCues:
    """The cues with a which-drug cue (`candidate`, value "list") where a plural or a listing word
    asks for a list of drugs (above); unchanged when a which-drug cue is found already or no
    section or condition follows the noun. For a turn naming no catalogue drug."""
    if "candidate" in cues.by_kind:
        return cues
    tokens = cues.tokens
    nouns = {c.start: c.end for c in cues.all("drug_class")}
    nouns |= {i: i + len(noun) for i in range(1, len(tokens)) for noun in DRUG_NOUNS if _at(tokens, i, noun)}
    pronouns = {i for c in cues.all("drug_pronoun") for i in range(c.start, c.end)}
    listed = [i for i in range(len(tokens)) if any(_at(tokens, i, words_) for words_ in _LISTING)]
    for start, end in sorted(nouns.items()):
        beside = start > 1 and cues.folded[start - 2] in JOINER_WORDS
        if not start or start in pronouns or beside or (end < len(tokens) and cues.folded[end] == "khac"):
            continue
        plural = any(token_matches(tokens[start - 1], p) for p in _DETERMINERS)
        if not (plural or any(start - 2 - _LIST_REACH <= i < start for i in listed)):
            continue
        relation = _listed_relation(cues, start - 1, end)
        # a population after the noun is a topic too, in a which-drugs form ("… không dùng khi cho con bú")
        who = bool(relation) and any(c.start >= end for c in cues.all("population"))
        if who or _names_a_topic(tokens[end:]):
            cue = Cue("candidate", "list", start - 1, end - start + 1)
            return TurnCues(
                tokens, {**cues.by_kind, "candidate": (cue,), **relation}, cues.folded, cues.sentences
            )
    return cues


def _listed_relation(cues: TurnCues, start: int, end: int) -> dict[str, tuple[Cue, ...]]:
    """The which-drugs form the words go on with, read with the listing words as "thuốc nào"
    ("những thuốc … không dùng khi cho con bú" as "thuốc nào … không dùng"): a listing asks as
    "nào" does, so every form of the table applies; {} when one was found already or none is."""
    if "reverse_relation" in cues.by_kind:
        return {}
    read = [*cues.tokens[:start], "thuốc", "nào", *cues.tokens[end:]]
    gapped = gapped_forms(" ".join(read), "reverse_relation")
    if not gapped:
        return {}
    shift = (end - start) - 2  # where a word after the listing words stands in the turn

    def at(i: int) -> int:
        return i + shift if i >= start + 2 else min(i, start)

    value, (first, *later) = gapped[0]
    return {
        "reverse_relation": (Cue("reverse_relation", value, at(first.start), 1),),
        "form_part": tuple(Cue("form_part", "", at(m.start), m.length) for m in later),
    }


def _at(tokens: Sequence[str], i: int, phrase: Sequence[str]) -> bool:
    """The words of `phrase` stand at position i (the diacritics rule)."""
    found = tokens[i : i + len(phrase)]
    return len(found) == len(phrase) and all(token_matches(t, w) for t, w in zip(found, phrase, strict=True))


def _names_a_topic(rest: Sequence[str]) -> bool:
    """A section or a condition is named in these words."""
    return bool(SECTION_PHRASES.matches(rest) or condition_index().matches(rest))


# --- Words the rules match on a turn's folded tokens ----------------------------------------------

WHICH_WORDS = frozenset({"nao", "gi", "j"})  # folded: "nào", "gì" (and chat's "j") ask which
# Joiner words (folded) join a medicine to another taken with it: "cùng", "kèm" to any medicine; "với",
# "chung" only to a class the cue tables name right after them ("với" alone joins too much else).
TOGETHER_WORDS = frozenset({"cung", "kem"})
# "thêm" right before a medicine adds it to what is taken: beside the conversation's drug, the two.
ADD_WORD = "them"
JOINER_WORDS = TOGETHER_WORDS | {"voi", "chung"}
# Between two names of medicines these join too: a name the catalogue lacks, so joined, is asked beside.
NAME_JOINER_WORDS = JOINER_WORDS | {"va", "hoac", "hay", "phoi", "hop"}

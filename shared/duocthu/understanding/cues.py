"""Cue phrases: the question forms query understanding reacts to, read from data tables.

`data/understanding_cues.tsv` holds the question-form cues (kind, phrase, value) and
`data/condition_phrases.tsv` the condition names. Both are matched on whole words under the
diacritics rule of `duocthu.core.text`, so "thuoc nao gay" matches "thuốc nào gây" while "thuốc nào
gãy" does not. Adding a phrasing is adding a row.

A section cue may have gaps: "uống … như thế nào" matches its parts in order with at most
`MAX_GAP` words between them, because a product name (of any length) usually sits inside the
question form ("uống Biginol như thế nào"). A gapped cue competes by the words it matched, not
by the span it crosses, never marks the words in its gaps as question words, and is consulted
only when no contiguous phrase names a section. A reverse-relation cue may have gaps for the same
reason: a class or a population sits inside "chống chỉ định … thuốc … nào"; it counts only when
no contiguous relation form is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from duocthu.core.conditions import ConditionMention, condition_index
from duocthu.core.phrases import PhraseIndex, PhraseMatch, longest_spans
from duocthu.core.sections import ADR_MANAGEMENT_SECTION, ADR_SECTION, SECTION_ORDER, SECTION_PHRASES
from duocthu.core.tables import table_records
from duocthu.core.text import fold, has_diacritics, nfc, raw_words, words
from duocthu.core.vocabulary import CONDITION_RELATIONS, POPULATIONS, ROUTES, TURN_TYPES

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
    "medicine",
    "dose",
    "current_medication",
    "allergy",
    "comorbidity",
    "patient_lead",
    "patient_subject",
    "population",
    "route",
    "renal",
    "hepatic",
    "pregnancy",
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
]
CUE_KINDS: frozenset[str] = frozenset(get_args(CueKind))
GAP = "…"
MAX_GAP = 6  # words between two parts of a gapped cue
GAPPED_KINDS = ("section", "reverse_relation")


@lru_cache(maxsize=1)
def _regional_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    table = {}
    for row in table_records("regional_words.tsv"):
        phrase, standard = nfc(row["phrase"]).casefold(), nfc(row["standard"])
        if len(words(phrase)) != len(words(standard)):
            raise ValueError(f"regional_words.tsv: {phrase!r} and {standard!r} differ in word count")
        table[phrase] = standard
    alternatives = "|".join(re.escape(p) for p in sorted(table, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE), table


@lru_cache(maxsize=4096)
def standard_wording(text: str) -> str:
    """The message with regional and chat spellings read as the standard words
    (`data/regional_words.tsv`), word for word, for matching only."""
    pattern, table = _regional_pattern()

    def standard(match: re.Match[str]) -> str:
        found = match.group(0)
        replacement = table[found.casefold()]
        return replacement[:1].upper() + replacement[1:] if found[:1].isupper() else replacement

    return pattern.sub(standard, nfc(text))


@lru_cache(maxsize=2)
def _finding_end_words(narrowing: bool) -> frozenset[str]:
    kinds = ("finding", "narrowing") if narrowing else ("finding",)
    rows = table_records("finding_ends.tsv")
    return frozenset(nfc(r["word"]).casefold() for r in rows if r["ends"] in kinds)


def ends_finding(token: str, narrowing: bool = False) -> bool:
    """Whether a word of the question ends the finding it names (data/finding_ends.tsv), or with
    `narrowing` also the words that narrow a known one. Matched as written, marks and all, never
    folded: folded, "đây" would end "da day" and "hả" would end "ha" (hạ); the file lists the
    spellings typed without marks that are safe to match."""
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


def _check_value(kind: str, value: str) -> None:
    if kind == "population" and value not in POPULATIONS:
        raise ValueError(f"understanding_cues.tsv: unknown population {value!r}")
    if kind == "route" and value not in ROUTES:
        raise ValueError(f"understanding_cues.tsv: unknown route {value!r}")
    if kind in ("section", "modal_section") and value not in SECTION_ORDER:
        raise ValueError(f"understanding_cues.tsv: unknown section key {value!r}")
    if kind == "reverse_relation" and value not in CONDITION_RELATIONS:
        raise ValueError(f"understanding_cues.tsv: unknown relation {value!r}")
    if kind == "named_drug":
        turn_type, _, rest = value.partition(":")
        attribute, _, relation = rest.partition(":")
        if (
            turn_type not in TURN_TYPES
            or (attribute and attribute not in SECTION_ORDER)
            or (relation and relation not in CONDITION_RELATIONS)
        ):
            raise ValueError(f"understanding_cues.tsv: bad named_drug value {value!r}")


@dataclass(frozen=True)
class _CueTables:
    contiguous: PhraseIndex[tuple[str, str]]
    parts: PhraseIndex[tuple[int, int]]  # (gapped cue, part number)
    gapped: tuple[tuple[int, str, str], ...]  # gapped cue -> (number of parts, kind, value)


@lru_cache(maxsize=1)
def _cue_tables() -> _CueTables:
    index: PhraseIndex[tuple[str, str]] = PhraseIndex()
    parts: PhraseIndex[tuple[int, int]] = PhraseIndex()
    gapped: list[tuple[int, str, str]] = []
    for row in table_records("understanding_cues.tsv"):
        kind, value, phrase = row["kind"], (row.get("value") or "").strip(), row["phrase"]
        if kind not in CUE_KINDS:
            raise ValueError(f"understanding_cues.tsv: unknown kind {kind!r}")
        _check_value(kind, value)
        if GAP not in phrase:
            index.add(phrase, (kind, value))
            continue
        pieces = [p.strip() for p in phrase.split(GAP)]
        if kind not in GAPPED_KINDS or len(pieces) < 2 or not all(words(p) for p in pieces):
            raise ValueError(f"understanding_cues.tsv: a gapped phrase must be of {GAPPED_KINDS}: {phrase!r}")
        for number, piece in enumerate(pieces):
            parts.add(piece, (len(gapped), number))
        gapped.append((len(pieces), kind, value))
    return _CueTables(index, parts, tuple(gapped))


def gapped_section_cues(text: str) -> tuple[PhraseMatch[str], ...]:
    """Gapped section cues in the text: start at the first part, length = words matched. A part
    right after "không" is negated and does not count."""
    return gapped_cues(text, "section")


# Typed without marks, "cam" before a condition is "cầm" ("cầm máu", "cầm tiêu chảy"), not "cấm".
_HOLDS_BACK = frozenset({"cam"})


@lru_cache(maxsize=4096)
def gapped_cues(text: str, kind: str) -> tuple[PhraseMatch[str], ...]:
    """Gapped cues of one kind in the text (see `gapped_section_cues`)."""
    tables = _cue_tables()
    tokens = words(text)
    conditions = [(m.start, m.start + m.length) for m in longest_spans(condition_index().matches(tokens))]
    masked = [
        (m.start, m.start + m.length) for m in tables.contiguous.matches(tokens) if m.value[0] == "not_a_cue"
    ]
    found: dict[int, dict[int, list[PhraseMatch[tuple[int, int]]]]] = {}
    for match in tables.parts.matches(tokens):
        if match.start and fold(tokens[match.start - 1]) == "khong":
            continue  # "không được dùng" is not "được dùng"
        if any(a <= match.start < b for a, b in masked):
            continue  # "ăn kiêng" is a diet, not "kiêng … nào" (which drugs to avoid)
        end = match.start + match.length
        if any(a < match.start and end <= b for a, b in conditions):
            continue  # "cảm" inside "trầm cảm" ("tram cam") is no "cấm"; "hạ" opening "hạ sốt" counts
        written = tokens[match.start]
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
                out.append(PhraseMatch(first.start, sum(m.length for m in chain), value))
                break
    return tuple(sorted(out, key=lambda m: m.start))


@dataclass(frozen=True)
class TurnCues:
    """Every cue found in one turn, by kind (within a kind, longest non-overlapping matches)."""

    tokens: tuple[str, ...]
    by_kind: dict[str, tuple[Cue, ...]]
    folded: tuple[str, ...]  # the tokens with marks stripped: what rules match words against

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

    def covered(self) -> frozenset[int]:
        """Token positions inside any cue (they are question words, never a product name), but for
        the words that go on a product's name (`name_variant`: "Kavenol Forte")."""
        return frozenset(
            i
            for kind, cues in self.by_kind.items()
            if kind != "name_variant"
            for c in cues
            for i in range(c.start, c.end)
        )


@lru_cache(maxsize=4096)
def scan_cues(text: str) -> TurnCues:
    tokens = tuple(words(text))
    folded = tuple(fold(t) for t in tokens)
    grouped: dict[str, list[PhraseMatch[tuple[str, str]]]] = {}
    for match in _cue_tables().contiguous.matches(tokens):
        grouped.setdefault(match.value[0], []).append(match)
    by_kind = {
        kind: tuple(Cue(kind, m.value[1], m.start, m.length) for m in longest_spans(found))
        for kind, found in grouped.items()
    }
    if "candidate" not in by_kind:
        # "thuốc dạ dày nào", "statin nào": a class asked with "nào"/"gì" asks which drug
        asked = [
            Cue("candidate", "", c.start, c.length + 1)
            for c in by_kind.get("drug_class", ())
            if c.end < len(tokens) and folded[c.end] in ("nao", "gi")
        ]
        if asked:
            by_kind["candidate"] = tuple(asked)
    if "reverse_relation" not in by_kind:
        # "người bị gút chống chỉ định thuốc lợi tiểu nào": a class or a population sits inside
        # the form; the first gapped form found, spanning its first part only
        gapped = gapped_cues(" ".join(tokens), "reverse_relation")
        if gapped:
            first = min(gapped, key=lambda m: m.start)
            by_kind["reverse_relation"] = (Cue("reverse_relation", first.value, first.start, 1),)
    if "reverse_relation" not in by_kind:
        # "thuốc giảm đau có gây loét dạ dày không?": whether a class brings something on asks
        # which drugs list it among their reactions (the class is not filtered, and it is said)
        caused = [
            Cue("reverse_relation", "adverse_effect", c.end, end - c.end)
            for c in by_kind.get("drug_class", ())
            for end in (c.end + 1, c.end + 2)
            if folded[c.end : end] in (("gay",), ("co", "gay"), ("co", "lam"))
        ]
        if caused:
            by_kind["reverse_relation"] = (caused[0],)
    return TurnCues(tokens, by_kind, folded)


# Words that may stand between "không" and the use it negates: "không được", "không nên",
# "không được khuyến cáo".
_MODALS = frozenset({"duoc", "nen", "the", "phai", "can", "khuyen", "cao"})  # folded
# Between a negation and the use form it negates: "cấm dùng cho | người bị bệnh gì".
_USE_WORDS = frozenset({"dung", "su", "uong", "cho"})


def _negated(tokens: Sequence[str], start: int) -> bool:
    """Whether the word at `start` follows "không", "cấm", "kiêng" or "tránh", directly or through
    modals and use words ("không được", "không nên dùng cho", "không được khuyến cáo")."""
    folded = [fold(t) for t in tokens[max(0, start - 5) : start]]
    i = len(folded) - 1
    while i >= 0 and len(folded) - i <= 4 and folded[i] in _MODALS | _USE_WORDS:
        i -= 1
    return i >= 0 and folded[i] in ("khong", "cam", "kieng", "tranh")


@lru_cache(maxsize=4096)
def resolve_attribute(text: str, gapped: bool = True) -> str | None:
    """The section a question asks for: the longest phrase across the section names
    (`sections.SECTION_PHRASES`) and the question-form cues of kind `section` ("dùng theo đường
    nào"); on a tie a section name beats a question form, then the earliest wins. As in
    `sections.resolve_section`, a wrongly marked phrase that folds to a longer phrase of another
    section ("chông chỉ định") makes the reading ambiguous: None.
    """
    tokens = words(text)
    # A phrase cut out of a condition's name is not a section: "đường dùng" in "tiểu đường dùng".
    conditions = [(m.start, m.start + m.length) for m in longest_spans(condition_index().matches(tokens))]

    def outside_conditions(match: PhraseMatch[str]) -> bool:
        end = match.start + match.length
        return all(end <= a or b <= match.start or (match.start <= a and b <= end) for a, b in conditions)

    def as_asked(match: PhraseMatch[str]) -> PhraseMatch[str]:
        # "không được dùng trong những trường hợp nào", "không được chỉ định cho ai": a use
        # question under a negation asks when the drug must not be used.
        if match.value == "chi_dinh" and _negated(tokens, match.start):
            return PhraseMatch(match.start, match.length, "chong_chi_dinh")
        return match

    cues = scan_cues(text)
    # nor is what an allergy names: "quá mẫn với thành phần của thuốc"
    allergy_objects = {c.end for c in cues.all("allergy")}

    def counts(match: PhraseMatch[str]) -> bool:
        return outside_conditions(match) and match.start not in allergy_objects

    named = [(as_asked(m), 0) for m in SECTION_PHRASES.matches(tokens) if counts(m)]
    forms = [(as_asked(PhraseMatch(c.start, c.length, c.value)), 1) for c in cues.all("section")]
    forms = [(m, k) for m, k in forms if counts(m)]
    if not named and not forms:
        # A generic caution form ("lưu ý", "không nên dùng") only when nothing names a topic.
        forms = [(PhraseMatch(c.start, c.length, c.value), 1) for c in cues.all("modal_section")]
    if not named and not forms and gapped:
        # Gapped cues last: they are the loosest.
        forms = [(as_asked(m), 1) for m in gapped_section_cues(text)]
    if not named and not forms:
        return None
    # Longest first; on a tie the section's own name ("cho con bú") beats a question form
    # ("không nên sử dụng"), then the earliest.
    best, _ = min(named + forms, key=lambda pair: (-pair[0].length, pair[1], pair[0].start))
    for loose in SECTION_PHRASES.matches(tokens, folded_only=True):
        if loose.length > best.length and loose.value != best.value:
            return None
    return best.value


def asked_drug_class(text: str) -> str | None:
    """The class of drugs a question names, as written ("thuốc giảm đau", "kháng sinh"), or None."""
    cue = scan_cues(text).first("drug_class")
    return None if cue is None else " ".join(raw_words(text)[cue.start : cue.end])


def patient_qualifiers_only(conditions: Sequence[ConditionMention], cues: TurnCues) -> bool:
    """ "Thuốc nào an toàn cho người suy thận?": the question asks what is safe ("an toàn", "dùng
    được"), every condition named is whom the drug is for (right after "cho người", "ở bệnh
    nhân"), and nothing says "điều trị": not an indication lookup, which would list the drugs
    that treat renal failure. "Bệnh nhân suy tim…, lựa chọn thuốc nào?" names the disease to
    treat."""
    if not asks_what_is_safe(cues):  # "thuốc dùng cho người THA" asks what treats them
        return False
    leads = {c.end for c in cues.all("patient_lead") if fold(cues.tokens[c.start]) in ("cho", "o")}
    return bool(conditions) and not cues.has("broad_condition") and all(c.start in leads for c in conditions)


def asks_what_is_safe(cues: TurnCues) -> bool:
    """ "an toàn", "dùng được" (kind `safe_to_use`): the question asks what is safe, not what treats."""
    return cues.has("safe_to_use")


def avoids_combining(cues: TurnCues) -> bool:
    """ "Đang dùng digoxin, tránh phối hợp với thuốc nào?": what to avoid together with the
    patient's medicine is that medicine's interactions, not a which-drug question."""
    return cues.has("interaction") and cues.has("reverse_relation")


def managed_attribute(attribute: str | None, cues: TurnCues, reaction: bool = False) -> str | None:
    """ "Xử trí" asked of adverse reactions is the ADR-management section: reactions named as such
    ("gặp tác dụng phụ do X thì xử trí thế nào?"), the section of the turn before ("có cách nào xử
    trí không?"), or a reaction told after the drug was taken (`reaction`: "uống X bị nổi mẩn thì
    xử lý sao?"). Any other section is kept: after an overdose question the overdose section
    itself says how to manage it."""
    if cues.has("manage") and (attribute == ADR_SECTION or (attribute is None and reaction)):
        return ADR_MANAGEMENT_SECTION
    return attribute


WHICH_WORDS = frozenset({"nao", "gi", "j"})  # folded: "nào", "gì" (and chat's "j") ask which
# Words that may stand between a "does it treat" cue and the condition it names.
_BEFORE_TREATED = frozenset(
    {"duoc", "cac", "nhung", "benh", "chung", "con", "voi", "de", "lam", "giup"}
    | {"cat", "giam", "ha", "tri", "dieu", "chua", "kiem", "soat", "phong", "ngua", "ngan", "het", "bot"}
)


def names_what_it_treats(cue: Cue, folded: Sequence[str], spans: Iterable[tuple[int, int]]) -> bool:
    """A "does it treat" cue ("có trị", "có giảm", "có dùng cho") with a condition right after it
    (or ending after it: "có giảm đau răng"): "X có dùng cho đau thắt ngực không?". A patient
    between them ("X có dùng cho người bị hen không?") makes it a decision for that patient, and
    "nào"/"gì" after the condition a question of which ("trị những loại nhiễm nấm nào")."""
    return any(
        end > cue.end
        and all(t in _BEFORE_TREATED for t in folded[cue.end : max(start, cue.end)])
        and not WHICH_WORDS & set(folded[start:])  # "dùng trong các nhiễm khuẩn nào": which, not whether
        for start, end in spans
    )


def named_drug_attribute(cues: TurnCues, condition_spans: Iterable[tuple[int, int]] = ()) -> str | None:
    """The section a named-drug cue implies ("có tác dụng gì" -> chi_dinh, "gây" -> ADR). A cue
    asking whether the drug treats something needs that something named right after it
    (`names_what_it_treats`; `condition_spans`: the turn's complaints, start and end)."""
    spans = tuple(condition_spans)
    for cue in cues.all("named_drug"):
        _, _, rest = cue.value.partition(":")
        attribute, _, relation = rest.partition(":")
        if relation == "indication" and not names_what_it_treats(cue, cues.folded, spans):
            continue
        if attribute:
            return attribute
    return None


# --- Conditions -------------------------------------------------------------------------------

# Organ-function states: stated as patient facts (renal_function, hepatic_function), so they are the
# condition a question is about only when it names no other.
ORGAN_FUNCTION_CONDITIONS = frozenset({"suy thận", "suy gan", "xơ gan"})


# A condition written with the verb that relieves it ("giảm đau", "hạ sốt", "cắt cơn") is a use;
# one whose own name starts so ("hạ đường huyết", "giảm bạch cầu") is not.
RELIEF_VERBS = frozenset(
    {"giam", "ha", "cat", "tri", "chua", "chong", "ngua", "phong", "diu", "bot", "het", "do"}
)


def relieved_form(condition: ConditionMention) -> bool:
    """A condition written with the verb that relieves it ("giảm đau", "hạ sốt"), not its own name."""
    written, named = fold(condition.text).split(), fold(condition.normalized).split()
    return bool(written) and written[0] in RELIEF_VERBS and written[:1] != named[:1]


def condition_asked(conditions: Sequence[ConditionMention], cues: TurnCues | None = None) -> ConditionMention:
    """The condition a which-drug question is about, when it names several:

    - an organ-function state only when nothing else is named ("bệnh nhân suy thận bị tăng huyết
      áp thì dùng thuốc gì" asks about tăng huyết áp);
    - the one right after "thuốc điều trị" / "thuốc nào gây";
    - never one right after a patient word while another is named ("bệnh nhân hen bị đau đầu",
      "đau khớp ở người có tiền sử loét dạ dày": the patient's background);
    - else the last one before the question form ("tôi bị đau dạ dày, giờ bị sốt thì uống thuốc
      gì" asks about sốt), or the first after it ("thuốc nào trị tăng huyết áp cho ...").
    """
    asked = [c for c in conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS] or list(conditions)
    if cues is None or len(asked) == 1:
        return asked[0]
    leads = {c.end for kind in ("broad_condition", "reverse_relation") for c in cues.all(kind)}
    led = [c for c in asked if c.start in leads]
    if led:
        return led[0]
    background = {c.end for c in cues.all("patient_lead")}
    asked = [c for c in asked if c.start not in background] or asked
    question = cues.first("candidate")
    before = [c for c in asked if question is not None and c.start < question.start]
    return before[-1] if before else asked[0]

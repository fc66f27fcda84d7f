"""Readings over the cues: what a question asks. The section (`strongest_section`, and the one a
named-drug cue implies), the class of drugs it names, whether it asks what is safe or what to avoid
combining, "xử trí" of a reaction, and the condition a which-drug question is about.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise

from duocthu.core.conditions import ORGAN_FUNCTION_CONDITIONS, ConditionMention, condition_index
from duocthu.core.phrases import PhraseMatch, longest_spans
from duocthu.core.sections import ADR_MANAGEMENT_SECTION, ADR_SECTION, SECTION_PHRASES
from duocthu.core.text import fold, raw_words, segment_ids
from duocthu.understanding.cues import WHICH_WORDS, Cue, TurnCues, gapped_section_cues, scan_cues

# Words that may stand between "không" and the use it negates ("không được khuyến cáo").
_MODALS = frozenset({"duoc", "nen", "the", "phai", "can", "khuyen", "cao"})  # folded
# Between a negation and the use form it negates: "cấm dùng cho | người bị bệnh gì".
_USE_WORDS = frozenset({"dung", "su", "uong", "cho"})


def _negated(tokens: Sequence[str], start: int) -> bool:
    """Whether the word at `start` follows "không", "cấm", "kiêng" or "tránh", directly or through
    modals and use words ("không được", "không nên dùng cho", "không được khuyến cáo")."""
    folded = [fold(t) for t in tokens[max(0, start - 5) : start]]
    i = len(folded) - 1
    while i >= 0 and folded[i] in _MODALS | _USE_WORDS:
        i -= 1
    return i >= 0 and folded[i] in ("khong", "cam", "kieng", "tranh")


def strongest_section(cues: TurnCues, ranked: Sequence[PhraseMatch[str]]) -> str | None:
    """The first of `ranked`; None, as in `sections.resolve_section`, when a wrongly marked phrase
    folds to a longer phrase of another section (the reading is ambiguous)."""
    if not ranked:
        return None
    best = ranked[0]
    for loose in SECTION_PHRASES.matches(list(cues.tokens), folded_only=True):
        if loose.length > best.length and loose.value != best.value:
            return None
    return best.value


def section_matches(text: str, gapped: bool = True, cues: TurnCues | None = None) -> list[PhraseMatch[str]]:
    """The phrases across the section names (`sections.SECTION_PHRASES`) and the question-form
    cues of kind `section` ("dùng theo đường nào"), strongest first: the longest; on a tie a
    section name before a question form, then the earliest. Generic caution forms, then gapped
    forms, count only when nothing else names a section."""
    cues = cues or scan_cues(text)
    tokens = list(cues.tokens)
    # A phrase cut out of a condition's name is not a section: "đường dùng" in "tiểu đường dùng".
    conditions = [(m.start, m.start + m.length) for m in longest_spans(condition_index().matches(tokens))]

    def outside_conditions(match: PhraseMatch[str]) -> bool:
        end = match.start + match.length
        return all(end <= a or b <= match.start or (match.start <= a and b <= end) for a, b in conditions)

    def as_asked(match: PhraseMatch[str]) -> PhraseMatch[str]:
        # a use question under a negation asks when the drug must not be used
        if match.value == "chi_dinh" and _negated(tokens, match.start):
            return PhraseMatch(match.start, match.length, "chong_chi_dinh")
        return match

    # nor is what an allergy names: "quá mẫn với thành phần của thuốc"
    allergy_objects = {c.end for c in cues.all("allergy")}

    # a number just before it in its clause tells an amount taken ("150mg 1 liều"), no section asked
    clauses = segment_ids(text, ",;.?!:")

    def amount(match: PhraseMatch[str]) -> bool:
        at = match.start - 1
        number = at >= 0 and (tokens[at].isdigit() or fold(tokens[at]) == "mot")
        return number and len(clauses) == len(tokens) and clauses[at] == clauses[match.start]

    def counts(match: PhraseMatch[str]) -> bool:
        return outside_conditions(match) and match.start not in allergy_objects and not amount(match)

    named = [(as_asked(m), 0) for m in SECTION_PHRASES.matches(tokens) if counts(m)]
    forms = [(as_asked(PhraseMatch(c.start, c.length, c.value)), 1) for c in cues.all("section")]
    forms = [(m, k) for m, k in forms if counts(m)]
    if not named and not forms:
        # A generic caution form ("lưu ý", "không nên dùng") only when nothing names a topic.
        forms = [(PhraseMatch(c.start, c.length, c.value), 1) for c in cues.all("modal_section")]
    if not named and not forms and gapped:
        # Gapped cues last: they are the loosest.
        forms = [(as_asked(m), 1) for m in gapped_section_cues(text)]
    ranked = sorted(named + forms, key=lambda pair: (-pair[0].length, pair[1], pair[0].start))
    return [match for match, _ in ranked]


def asked_drug_class(written: str, cues: TurnCues) -> str | None:
    """The class of drugs a question names, as written ("thuốc giảm đau", "kháng sinh"), or None."""
    cue = cues.first("drug_class")
    raw = raw_words(written)
    return None if cue is None or len(raw) != len(cues.tokens) else " ".join(raw[cue.start : cue.end])


def patient_qualifiers_only(conditions: Sequence[ConditionMention], cues: TurnCues) -> bool:
    """The question asks what is safe, every condition named is whom the drug is for (right after
    "cho", "ở") and nothing says "điều trị": no indication lookup, which would list what treats it."""
    if not cues.has("safe_to_use"):  # "thuốc dùng cho người THA" asks what treats them
        return False
    leads = {c.end for c in cues.all("patient_lead") if fold(cues.tokens[c.start]) in ("cho", "o")}
    return bool(conditions) and not cues.has("broad_condition") and all(c.start in leads for c in conditions)


def avoids_combining(cues: TurnCues) -> bool:
    """What to avoid combining with the patient's medicine is that medicine's interactions, not a
    which-drug question."""
    return cues.has("interaction") and cues.has("reverse_relation")


def managed_attribute(attribute: str | None, cues: TurnCues, reaction: bool = False) -> str | None:
    """ "Xử trí" asked of adverse reactions (the section asked, or a reaction told after the drug
    was taken: `reaction`) is the ADR-management section. Any other section is kept: the overdose
    section itself says how to manage an overdose."""
    if cues.has("manage") and (attribute == ADR_SECTION or (attribute is None and reaction)):
        return ADR_MANAGEMENT_SECTION
    return attribute


# Folded words that change a dose, before "liều" ("giảm tổng liều", "hiệu chỉnh liều").
_DOSE_CHANGES = frozenset({"giam", "tang", "chinh", "doi"})


def changes_dose(folded: Sequence[str], either_side: bool = False) -> bool:
    """The words change a dose: "thay đổi", or a change word with "liều" within two words after
    (`either_side`: or within four before, "liều digoxin có phải chỉnh")."""
    return ("thay", "doi") in pairwise(folded) or any(
        w in _DOSE_CHANGES
        and ("lieu" in folded[i + 1 : i + 3] or (either_side and "lieu" in folded[max(0, i - 4) : i]))
        for i, w in enumerate(folded)
    )


# Words that may stand between a "does it treat" cue and the condition it names.
_BEFORE_TREATED = frozenset(
    {"duoc", "cac", "nhung", "benh", "chung", "con", "voi", "de", "lam", "giup"}
    | {"cat", "giam", "ha", "tri", "dieu", "chua", "kiem", "soat", "phong", "ngua", "ngan", "het", "bot"}
)


def names_what_it_treats(cue: Cue, folded: Sequence[str], spans: Iterable[tuple[int, int]]) -> bool:
    """A "does it treat" cue with a condition right after it (or ending after it); a patient between
    them makes it a decision for that patient, and "nào"/"gì" after the condition a question of which."""
    return any(
        end > cue.end
        and all(t in _BEFORE_TREATED for t in folded[cue.end : max(start, cue.end)])
        and not WHICH_WORDS & set(folded[start:])  # "dùng trong các nhiễm khuẩn nào": which, not whether
        for start, end in spans
    )


def named_drug_cues(
    cues: TurnCues, complaints: Sequence[ConditionMention]
) -> Iterator[tuple[Cue, str, str, str]]:
    """Each named-drug cue that counts, with what it asks (turn type, section, relation). A cue
    asking whether the drug treats something needs that something named right after it
    (`names_what_it_treats`), among the turn's `complaints`."""
    spans = [(c.start, c.start + c.length) for c in complaints]
    for cue in cues.all("named_drug"):
        turn_type, _, rest = cue.value.partition(":")
        attribute, _, relation = rest.partition(":")
        if relation != "indication" or names_what_it_treats(cue, cues.folded, spans):
            yield cue, turn_type, attribute, relation


def named_drug_attribute(cues: TurnCues, complaints: Sequence[ConditionMention]) -> str | None:
    """The section a named-drug cue implies ("có tác dụng gì" -> chi_dinh, "gây" -> ADR)."""
    return next((attribute for _, _, attribute, _ in named_drug_cues(cues, complaints) if attribute), None)


# --- Conditions -------------------------------------------------------------------------------


# A condition written with a verb that relieves it is a use; one whose own name starts so is not.
RELIEF_VERBS = frozenset(
    {"giam", "ha", "cat", "tri", "chua", "chong", "ngua", "phong", "diu", "bot", "het", "do"}
)


def relieved_form(condition: ConditionMention) -> bool:
    """A condition written with the verb that relieves it ("giảm đau", "hạ sốt"), not its own name."""
    written, named = fold(condition.text).split(), fold(condition.normalized).split()
    return bool(written) and written[0] in RELIEF_VERBS and written[:1] != named[:1]


def _named_by_question(
    asked: Sequence[ConditionMention], cues: TurnCues, question: Cue | None
) -> list[ConditionMention]:
    """The conditions a which-drug question form names, inside it or right after it through a
    purpose; none in a question of what to avoid or what causes (its class words are no condition)."""
    if question is None or cues.has("reverse_relation"):
        return []
    purposes = {c.end for c in cues.all("purpose") if c.start == question.end}
    return [c for c in asked if question.start <= c.start < question.end or c.start in purposes]


def condition_asked(conditions: Sequence[ConditionMention], cues: TurnCues) -> ConditionMention:
    """The condition a which-drug question is about, when it names several: an organ-function state
    only when nothing else is named; the one right after "thuốc điều trị" / "thuốc nào gây"; never
    one right after a patient word while another is named (the patient's background); one told
    before that the question form names again (`_named_by_question`), as told; else the last one
    before the question form, or the first after it."""
    asked = [c for c in conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS] or list(conditions)
    leads = {c.end for kind in ("broad_condition", "reverse_relation") for c in cues.all(kind)}
    led = [c for c in asked if c.start in leads]
    if led:
        return led[0]
    background = {c.end for c in cues.all("patient_lead")}
    asked = [c for c in asked if c.start not in background] or asked
    question = cues.first("candidate")
    before = [c for c in asked if question is not None and c.start < question.start]
    named = _named_by_question(asked, cues, question)
    again = [c for c in before if c.normalized in {n.normalized for n in named}]
    if again:
        return again[-1]
    return before[-1] if before else asked[0]

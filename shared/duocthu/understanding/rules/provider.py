"""The offline understanding provider: the frame built deterministically, without a model.

It is the embedded default (no model configured) and a real provider, judged on real questions
(`duocthu eval understanding`). Its inputs are the bounded candidates (only exact `resolve` hits
become drugs; `suggest` hits become a clarifying question offering them), the longest-phrase
section resolver, the cue tables and the extractors. Its output goes through the same validation,
post-conditions and prior-frame merge as a model's.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Literal

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.conditions import ConditionMention
from duocthu.core.deadline import Deadline
from duocthu.core.sections import (
    ADR_MANAGEMENT_SECTION,
    ADR_SECTION,
    CAUTION_SECTION,
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    INDICATION_SECTION,
    INTERACTION_SECTION,
    OVERDOSE_SECTION,
    RELATION_SECTIONS,
)
from duocthu.core.text import asks_yes_or_no, fold, stop_words, words
from duocthu.core.vocabulary import PATIENT_SAFETY_TURNS
from duocthu.models.frame import MAX_QUICK_REPLIES, PatientContext, QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cues import (
    ORGAN_FUNCTION_CONDITIONS,
    WHICH_WORDS,
    TurnCues,
    avoids_combining,
    condition_asked,
    managed_attribute,
    named_drug_attribute,
    relieved_form,
    resolve_attribute,
    scan_cues,
)
from duocthu.understanding.facts import (
    REACTION_TO_LEAD,
    Facts,
    asks_something,
    clause_ids,
    extract_facts,
    only_current_medications,
    only_patient_facts,
    tells_only,
    unknown_names,
)

# Turn types that are about named drugs (a follow-up turn may carry the drugs forward).
DRUG_TURN_TYPES = frozenset(
    {"drug_attribute", "drug_overview", "interaction", "drug_to_condition", "dosing_calc"}
)
ASK_FOR_DRUG = "Bạn muốn hỏi về thuốc nào? Hãy cho biết tên hoạt chất hoặc biệt dược."
ASK_ABOUT_DESCRIBED_PATIENT = (
    "Tôi đã ghi nhận thông tin người bệnh. Bạn muốn hỏi gì? Ví dụ: liều của một thuốc cho người bệnh "
    "này, hoặc bị một triệu chứng thì dùng thuốc nào."
)
# Sections whose subject a follow-up "X thì xử trí sao?" goes on handling for another drug.
HANDLED_SECTIONS = frozenset({ADR_SECTION, ADR_MANAGEMENT_SECTION, OVERDOSE_SECTION})
ASK_ABOUT_PATIENT = (
    "Tôi đã ghi nhận người bệnh đang dùng {names}. Bạn muốn hỏi gì? Ví dụ: bị một triệu chứng thì dùng "
    "thuốc nào, hoặc có dùng được một thuốc khác cùng {names} không."
)
ASK_ABOUT_ALLERGY = (
    "Tôi đã ghi nhận người bệnh dị ứng hoặc từng có phản ứng với {names}. Bạn muốn hỏi gì? Ví dụ: bị một "
    "triệu chứng thì dùng thuốc nào (mỗi thuốc tìm được sẽ được đối chiếu với {names})."
)


class OfflineFrameProvider:
    name = "offline"

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        return offline_frame(turn)


def _reverse_lookup(cues: TurnCues) -> bool:
    """The turn asks which drugs (for / causing / contraindicated in) a condition."""
    return cues.has("reverse_relation") or cues.has("candidate") or cues.has("broad_condition")


def _dose_turn(attribute: str | None, cues: TurnCues, facts: Facts, prior: QueryFrame | None) -> bool:
    """A dose for a stated weight or age: a calculation, not a survey of the dosing section."""
    if attribute not in (None, DOSE_SECTION) or not (facts.weight_kg or facts.age_text):
        return False
    asks_dose = attribute == DOSE_SECTION or cues.has("dose")
    return asks_dose or (prior is not None and prior.turn_type == "dosing_calc")


def _named_turn(
    products: int,
    attribute: str | None,
    cues: TurnCues,
    facts: Facts,
    asks_more: bool = False,
    beside: Beside = None,
) -> tuple[str, str | None]:
    """The turn type for a turn naming `products` medicines (catalogue drugs and unknown names),
    `beside` another medicine or not (`_beside_another_medicine`)."""
    for_someone = bool(facts.population or facts.states_patient)
    if products >= 2 and (
        attribute == INTERACTION_SECTION
        or cues.has("interaction")
        or facts.current_medication_ids
        or beside
        or (attribute is None and not for_someone and not cues.has("overview"))
    ):
        # "A và B dùng được không?" asks about the two together; "A và B dùng cho trẻ em được
        # không?" asks about each for the child, and "A và B là thuốc gì?" about each, unless it
        # says together ("dùng chung", "cùng lúc") or one is a medicine the patient already takes.
        return "interaction", INTERACTION_SECTION
    if beside and (
        attribute in (None, CAUTION_SECTION)
        or cues.has("interaction")
        or (beside == "joined" and attribute == ADR_SECTION)
        or (beside == "taken" and attribute == DOSE_SECTION and _changes_dose(cues.folded))
    ):
        # "đang dùng thuốc chống đông có nên uống thêm X không?", "… cần lưu ý gì khi dùng X?",
        # "X cùng thuốc ức chế MAO gây ra vấn đề gì?", "đang uống thuốc tránh thai thì liều X có
        # cần thay đổi không?": the drug beside a class or an unnamed medicine is its
        # interactions; any other section asked outright ("liều X bao nhiêu") is kept.
        return "interaction", INTERACTION_SECTION
    if _dose_turn(attribute, cues, facts, None):
        return "dosing_calc", DOSE_SECTION
    if attribute is None and (facts.allergies or any(c.kind == "disease" for c in facts.comorbid)):
        # "người bị hen có nên dùng X?", "dị ứng penicilin, uống amoxicilin được không?": whether X
        # may be used at all is the contraindications section first (a decision for this patient;
        # the patient context goes with it). Cross-allergies are listed there.
        return "drug_attribute", CONTRAINDICATION_SECTION
    if attribute or ((facts.states_patient or facts.population) and not cues.has("overview")):
        # "dùng ... được không?" for a described patient or a population ("cho trẻ em"): a
        # decision for them, answered from the parts that speak to them, never the intro sections.
        return "drug_attribute", attribute
    if asks_more and not cues.has("overview"):
        # "Warfarin INR mục tiêu": a question no section phrase names; the free-form route orders
        # the whole monograph for it, where the intro sections would not hold the answer.
        return "drug_attribute", None
    return "drug_overview", None


# Words that join two medicines taken together when they stand between them: "dùng X cùng Y".
_TOGETHER_WORDS = frozenset({"cung", "kem"})
# At most this many words between "cùng" and the class it joins: "uống cùng sữa hoặc thuốc …".
_TOGETHER_TO_CLASS = 4
# Words that join a medicine to a class the cue tables name (drug_class), and how far before the
# class they may stand ("với các thuốc lợi tiểu"). "với" alone joins too much else ("với liều").
_CLASS_JOINERS = frozenset({"voi", "chung", "cung", "kem"})
_JOINER_TO_NAMED_CLASS = 2
# A dose changed because of another medicine: "liều X có cần thay đổi không?".
_DOSE_CHANGES = (("thay", "doi"), ("tang", "lieu"), ("giam", "lieu"), ("chinh", "lieu"))

Beside = Literal["taken", "joined"] | None


def _changes_dose(folded: Sequence[str]) -> bool:
    return any(pair in _DOSE_CHANGES for pair in pairwise(folded))


def _without_ingredients(folded: Sequence[str], named: Sequence[DrugMatch], unknown: list[str]) -> list[str]:
    """Unknown names less those that name an ingredient of another product: "Crom trong Cosele",
    "dextromethorphan trong Atussin" ask about one product, never an interaction of two."""
    spans = _product_spans(folded, named, unknown)
    starts = {start for start, _ in spans}

    def ingredient(name: str) -> bool:
        return any(
            end < len(folded) and folded[end] == "trong" and end + 1 in starts
            for _, end in _product_spans(folded, (), [name])
        )

    return [name for name in unknown if not ingredient(name)]


def _beside_another_medicine(
    folded: Sequence[str],
    facts: Facts,
    named: Sequence[DrugMatch],
    unknown: Sequence[str],
    class_starts: frozenset[int] = frozenset(),
) -> Beside:
    """Whether the medicines asked about are taken beside another: "taken" when the patient
    already takes a medicine that is not one of them ("đang uống thuốc tránh thai", "đang dùng
    thuốc khác"), "joined" when "cùng"/"kèm" joins one of them to another or to a class ("dùng
    Bequantene cùng succinylcholin", "uống cùng thuốc kháng acid"), or "với"/"chung" to a class
    the cue tables name (`class_starts`: "uống methotrexat với thuốc chống viêm không steroid")."""
    asked = [fold(m.matched_text) for m in named] + [fold(u) for u in unknown]
    for taken in map(fold, facts.current_medications):
        names_one = any(a in taken for a in asked)
        if (len(asked) >= 2 and names_one) or ("thuoc" in taken.split() and not names_one):
            return "taken"
    positions = [start for start, _ in _product_spans(folded, named, unknown)]

    def joins_class(i: int) -> bool:
        # "cùng thuốc kháng acid", not "cùng thuốc gì" (which drugs: the one drug's section)
        after = [*folded[i + 1 : i + 1 + _TOGETHER_TO_CLASS], ""]
        return "thuoc" in after[:-1] and after[after.index("thuoc") + 1] not in WHICH_WORDS

    def joins_named_class(i: int) -> bool:  # "với NSAID", "với các thuốc lợi tiểu"
        return any(i < start <= i + _JOINER_TO_NAMED_CLASS for start in class_starts)

    joined = any(
        any(p < i for p in positions)
        and (
            (t in _TOGETHER_WORDS and (any(p > i for p in positions) or joins_class(i)))
            or (t in _CLASS_JOINERS and joins_named_class(i))
            or (t == "cach" and i + 1 in positions)  # "uống tetracyclin cách Biviantac bao lâu"
        )
        for i, t in enumerate(folded)
    )
    return "joined" if joined else None


def _class_starts(cues: TurnCues) -> frozenset[int]:
    return frozenset(c.start for c in cues.all("drug_class"))


def _product_spans(
    folded: Sequence[str], named: Sequence[DrugMatch], unknown: Sequence[str]
) -> list[tuple[int, int]]:
    """Where the products asked about stand: catalogue matches, and each unknown name found by
    its words in the folded turn."""
    spans = [(m.start, m.end) for m in named]
    for name in unknown:
        parts = fold(name).split()
        spans += [
            (i, i + len(parts)) for i in range(len(folded)) if list(folded[i : i + len(parts)]) == parts
        ]
    return spans


def _continues(turn: Turn, cues: TurnCues, attribute: str | None, facts: Facts) -> bool:
    """The turn names no drug but goes on about the drugs of the conversation."""
    if cues.has("new_topic") or _reverse_lookup(cues):
        return False
    prior = turn.prior
    if prior is not None and prior.needs_clarify and not prior.drugs and facts.conditions and not attribute:
        # "Ông tôi đang uống Sintrom", then "ông bị đau khớp gối": a complaint of the patient
        # described, to find a drug for; the medicine he takes is not the subject.
        return False
    return bool(
        cues.leads("continue_lead")
        or cues.has("continue")
        or attribute
        or cues.has("dose")
        or cues.has("medicine")
        or cues.has("manage")
        or facts.states_patient
        or facts.population
    )


def _continued_turn(
    turn: Turn, attribute: str | None, cues: TurnCues, facts: Facts
) -> tuple[str, str | None]:
    prior = turn.prior
    if _dose_turn(attribute, cues, facts, prior):
        return "dosing_calc", DOSE_SECTION
    if attribute is None and prior is not None:
        # "có cách nào xử trí không?" after the adverse reactions: their management section
        managed = managed_attribute(prior.attribute, cues)
        attribute = managed if managed != prior.attribute else None
    if attribute:
        return "drug_attribute", attribute
    if prior is not None and prior.turn_type in DRUG_TURN_TYPES:
        return prior.turn_type, None
    return "drug_overview", None


def _with_conversation_drug(
    cues: TurnCues,
    facts: Facts,
    named: Sequence[DrugMatch],
    unknown: Sequence[str],
    attribute: str | None,
    prior: QueryFrame | None,
) -> list[str]:
    """The conversation's drug, when a turn names only medicines the patient already takes and asks
    nothing of them ("đang dùng warfarin thì có dùng được không?"): the question is whether the
    drug under discussion goes with them. Empty otherwise."""
    if not named or unknown or attribute or prior is None or not prior.drugs or _reverse_lookup(cues):
        return []
    if not only_current_medications(facts, named) or set(prior.drugs) & {m.drug_id for m in named}:
        return []
    return list(prior.drugs[:1])


def _patient_medicine_ids(turn: Turn) -> list[str]:
    """The catalogue drugs among the medicines the prior frame says the patient takes, as the
    conversation named them."""
    prior = turn.prior
    taken = " ".join(fold(m) for m in prior.patient_context.current_medications) if prior else ""
    if not taken:
        return []
    named = (m for line in turn.candidates.history for m in line.matches)
    return list(dict.fromkeys(m.drug_id for m in named if fold(m.matched_text) in taken))


def _with_patient_medicines(
    turn: Turn, cues: TurnCues, named: Sequence[DrugMatch], attribute: str | None
) -> list[str]:
    """The medicines the conversation's patient takes, when this turn asks whether one other drug
    may be taken ("tôi đang dùng warfarin", then "uống paracetamol được không?"; "BN đang dùng
    spironolacton", then "phối hợp captopril được không?"): the question is the two together.
    Empty when the turn asks something else of the drug (a section, its overview)."""
    prior = turn.prior
    if (
        prior is None
        or attribute not in (None, INTERACTION_SECTION)
        or len(named) != 1
        or cues.has("overview")
    ):
        return []
    return [d for d in _patient_medicine_ids(turn) if d != named[0].drug_id]


def _interaction_kept(
    turn: Turn, cues: TurnCues, named: Sequence[DrugMatch], attribute: str | None
) -> list[str]:
    """ "Còn fluconazol thì sao?" after an interaction question: the same question with one drug
    swapped. Kept are the patient's own medicines of the prior pair ("đang dùng warfarin, kê thêm
    ciprofloxacin được không?"), else its first drug, the subject ("warfarin có tương tác với aspirin
    không?", then "còn ibuprofen?"). Empty when the turn is no such follow-up."""
    prior = turn.prior
    if (
        prior is None
        or prior.turn_type != "interaction"
        or not _refers_back(turn.wording, cues, named)
        or attribute
        or cues.has("overview")
        or len(named) != 1
        or named[0].drug_id in prior.drugs
    ):
        return []
    own = [d for d in _patient_medicine_ids(turn) if d in prior.drugs]
    return own or list(prior.drugs[:1])


def _content_words(cues: TurnCues, names: Sequence[tuple[int, int]]) -> bool:
    """The turn says more than a drug's name: a word that is no stop word, cue, number or part of
    a name ("Warfarin INR mục tiêu" has three; "Omeprazol là thuốc gì vậy?" none). `names`: where
    the names stand, start and end."""
    taken = set(cues.covered())
    for start, end in names:
        taken.update(range(start, end))
    stops = stop_words()
    return any(
        i not in taken and token not in stops and not token.isdigit() for i, token in enumerate(cues.tokens)
    )


# Words that may stand beside a drug's name in an elliptical turn ("spironolacton sao?", "Còn X nhỉ?").
_ELLIPSIS_WORDS = frozenset({"sao", "vay", "nhi", "the", "a", "thi", "con"})


def _refers_back(text: str, cues: TurnCues, named: Sequence[DrugMatch]) -> bool:
    """An elliptical turn: "thế còn X?", "X thì sao?", "X có bị vậy không?", or a drug's name alone,
    asked ("Gliclazid?"). A name alone without a question mark is a request for its overview."""
    if cues.leads("continue_lead") or cues.has("continue"):
        return True
    inside = {i for m in named for i in range(m.start, m.end)}
    rest = [fold(t) for i, t in enumerate(cues.tokens) if i not in inside]
    return bool(named) and ("?" in text or rest[-1:] == ["sao"]) and all(t in _ELLIPSIS_WORDS for t in rest)


def _same_question(text: str, cues: TurnCues, named: Sequence[DrugMatch], prior: QueryFrame | None) -> bool:
    """An elliptical turn after a question about one section."""
    return bool(
        _refers_back(text, cues, named)
        and not cues.has("overview")
        and prior is not None
        and prior.turn_type in ("drug_attribute", "drug_to_condition")
        and prior.attribute
    )


def _suggestion_question(turn: Turn) -> tuple[str, list[str]]:
    suggestions = turn.candidates.turn.suggestions[:MAX_QUICK_REPLIES]
    names = [turn.candidates.names.get(s.drug_id, (s.drug_id,))[0] for s in suggestions]
    spans = list(dict.fromkeys(s.matched_text for s in suggestions))
    offered = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " hay " + names[-1]
    return f"Không tìm thấy “{', '.join(spans)}” trong Dược thư. Ý bạn là {offered}?", names


def _treated_by_current_medicine(cues: TurnCues, facts: Facts, named: Sequence[DrugMatch]) -> frozenset[int]:
    """Where a condition a current medicine is taken for starts: "đang uống methotrexat trị viêm
    khớp", "đang dùng carbamazepin chống động kinh". Such a condition is the patient's history, not
    a complaint the turn asks about."""
    ends = {m.end for m in named if m.start in facts.current_medication_starts}
    return frozenset(c.end for c in cues.all("purpose") if c.start in ends)


def _reaction_after_use(cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]]) -> bool:
    """A condition that happened on the drug, not the disease it was taken for: told after the drug
    or the verb of taking it ("uống captopril bị ho khan"), or before a cause or time lead that
    names the drug ("bị ho khan do captopril", "ban da khi đang uống carbamazepin"). Organ
    function is never a reaction. `products`: where the drugs asked about stand."""
    uses = [start for start, _ in products] + [c.start for c in cues.all("medicine")]
    reactions = [c for c in facts.conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS]
    if not uses or not reactions:
        return False
    if any(c.start > min(uses) for c in reactions):
        return True
    leads = [c for c in cues.all("reaction_lead") if c.start > reactions[0].start]
    return any(start - lead.end in (0, 1) for lead in leads for start, _ in products)


def _noticed_after_use(cues: TurnCues, products: Sequence[tuple[int, int]]) -> bool:
    """ "Dùng X mà thấy nổi mụn mủ thì phải làm gì?": something noticed after the drug, then how to
    handle it, is a reaction to manage even when no condition table names it."""
    manage = [c.start for c in cues.all("manage")]
    return any(
        cues.folded[i] == "thay"
        and cues.folded[i + 1 : i + 2] != ("khong",)  # "thấy không đỡ": the drug not working
        and any(end <= i <= end + 2 for _, end in products)
        and any(m > i for m in manage)
        for i in range(len(cues.folded))
    )


# Verbs of a wanted effect after "có làm": "X có làm loãng đờm / giảm huyết áp / hết đau không?".
_EFFECT_VERBS = frozenset(
    {"giam", "ha", "loang", "tan", "het", "khoi", "do", "lanh", "dut", "cat", "on", "diu", "bot", "thuyen"}
)
# "có làm", "có khiến": whether the drug makes something happen
_MAKES = (("co", "lam"), ("co", "khien"))
# After "có làm", what is not something brought on: "có làm sao không" (is it serious), "có làm
# xét nghiệm gì không" (a test done).
_NOT_BROUGHT_ON = frozenset({"sao", "gi", "xet", "the"})
_QUESTION_ENDS = frozenset({"khong", "ko", "k", "hong", "hok", "khg"})


Asked = tuple[str, ConditionMention] | None  # (relation, condition) a turn asks of its drug


def _made_to_happen(cues: TurnCues, facts: Facts) -> tuple[str | None, Asked]:
    """ "X có làm (khiến) tim đập nhanh / miệng bị đắng không?", "X uống lâu làm tăng đường huyết có
    đúng không?": whether the drug brings something on is its adverse reactions; "X có làm hết đau
    đầu / giảm huyết áp không?", a wanted effect on a condition, is what it is for. A wanted
    effect on no known condition ("có làm loãng đờm") names no section. With the section, the
    condition asked about, when one is known. Bare "làm" counts only before a condition."""
    folded = cues.folded
    starts = {c.start for c in facts.complaints}
    for i in range(len(folded) - 1):
        if folded[i : i + 2] in _MAKES:
            j = i + 2  # the word after "có làm"
        elif folded[i] in ("lam", "khien") and (i + 1 in starts or i + 2 in starts):
            j = i + 1
        else:
            continue
        if j >= len(folded) or not _QUESTION_ENDS & set(folded[j + 1 :]):
            continue
        verb = folded[j]
        if verb in _NOT_BROUGHT_ON:
            return None, None
        after = [c for c in facts.complaints if c.start >= j]
        if verb in _EFFECT_VERBS:
            treated = [c for c in after if c.start in (j, j + 1)]
            if any(fold(c.normalized).split()[:1] == [verb] for c in treated):
                # a condition whose own name starts so: "có làm hạ kali máu"
                return ADR_SECTION, ("adverse_effect", treated[0])
            return (INDICATION_SECTION, ("indication", treated[0])) if treated else (None, None)
        return ADR_SECTION, ("adverse_effect", after[0]) if after else None
    return None, None


def _with_asked(frame: dict[str, Any], asked: Asked) -> dict[str, Any]:
    """A turn asking whether its drug treats or brings on a condition (`_made_to_happen`, an
    `efficacy` cue) carries that condition, as "X có trị Y không?" does: a use is
    `drug_to_condition` for Y, a reaction the adverse-reaction section for Y."""
    if asked is None or frame["turn_type"] != "drug_attribute":
        return frame
    relation, condition = asked
    wanted = INDICATION_SECTION if relation == "indication" else ADR_SECTION
    if frame["attribute"] != wanted:
        return frame
    update: dict[str, Any] = {
        "condition": {"text": condition.text, "normalized": condition.normalized},
        "condition_relation": relation,
    }
    if relation == "indication":
        update |= {"turn_type": "drug_to_condition", "section_overview": False}
    return {**frame, **update}


# Words between a drug and the "bị" of its reaction: "uống X có thể bị tiêu chảy không?", "X
# uống vô bị buồn nôn".
_BEFORE_REACTION = frozenset({"co", "the", "de", "hay", "ma", "uong", "dung", "xit", "boi", "vo", "xong"})


def _reaction_told_with_drug(
    cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]], clauses: Sequence[int]
) -> bool:
    """A reaction told with the drug it came with, and nothing else asked: "bị phù mạch khi uống
    Brufen thì sao?", "uống allopurinol bị phát ban", "đang uống captopril mà bị ho khan".
    Stricter than `_reaction_after_use`: the reaction sits right before a lead naming the drug, or
    right after "bị" following the drug in the same clause ("đang dùng warfarin, bị đau đầu" tells
    a new complaint), and no purpose word says it is what the drug is taken for ("uống X trị ho").
    After "bị" the reaction need not be a known condition ("uống amlodipin bị phù hai cổ chân")."""
    reactions = [c for c in facts.conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS]
    if not products or cues.has("purpose"):
        return False
    starts = {start for start, _ in products}
    for lead in cues.all("reaction_lead"):
        names_drug = any(lead.end + gap in starts for gap in (0, 1))  # "khi uống (thuốc) X"
        if names_drug and any(0 <= lead.start - (c.start + c.length) <= REACTION_TO_LEAD for c in reactions):
            return True
    folded = cues.folded
    for reaction in reactions:  # "uống carbamazepin mà nổi ban", "uống vô xong nổi mẩn"
        if relieved_form(reaction):
            continue  # "uống X xong đỡ đau": relief, no reaction
        for _, end in products:
            linking = folded[end : reaction.start]
            if (
                end <= reaction.start < len(clauses)
                and clauses[end - 1] == clauses[reaction.start]
                and set(linking) & _THEN_WORDS
                and set(linking) <= _BEFORE_REACTION | _THEN_WORDS
                and not cues.has("efficacy")
            ):
                return True
    for said in cues.all("comorbidity"):
        between = [
            folded[end : said.start]
            for _, end in products
            if 0 < end <= said.start < len(clauses) and clauses[end - 1] == clauses[said.start]
        ]
        known = [c for c in facts.conditions if c.start == said.end]  # organ function is no reaction
        told = any(c in reactions for c in known) or (
            not known
            and said.end < len(clauses)
            and clauses[said.end] == clauses[said.start]
            and folded[said.end] not in stop_words()
        )
        if told and any(set(words) <= _BEFORE_REACTION for words in between):
            return True
    return False


_USE_VERBS = frozenset({"dung", "uong", "boi", "de"})


# Words that tell what came after taking a drug: "uống X mà / xong / vô nổi ban", "xài X thấy buồn ngủ".
_THEN_WORDS = frozenset({"ma", "xong", "vo", "vao", "thay"})


def _asks_if_it_treats(
    cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]]
) -> tuple[bool, ConditionMention | None]:
    """The drug used for a purpose: "bị viêm mũi dị ứng có dùng X để điều trị không?", "có dùng X
    để giảm chóng mặt được không?" ask what X is indicated for. A disease the patient has beside
    a complaint the drug would be for ("bị loét dạ dày có dùng ibuprofen để giảm đau không?")
    leaves it a decision for that patient, where the contraindications come first; so does a
    population ("có nên dùng aspirin để phòng đột quỵ cho người 80 tuổi không?"). With the
    answer, the condition the purpose names, if one is known ("colchicin trị gút cấp")."""
    if facts.population:
        return False, None
    # "đang uống methotrexat trị viêm khớp": what the patient's own medicine is for is history
    ends = [end for start, end in products if start not in facts.current_medication_starts]
    folded = cues.folded

    # a maker or a form word may stand between: "bôi Acyclovir Stella Cream để điều trị"
    unnamed = {i for c in cues.all("not_a_name") for i in range(c.start, c.end)}

    def follows_drug(start: int) -> bool:  # "dùng X để trị", "X dùng trị"; not "X nồng độ điều trị"
        return any(
            end <= start
            and all(folded[i] in _USE_VERBS or folded[i] == "nay" or i in unnamed for i in range(end, start))
            for end in ends
        )

    purpose = next((c for c in cues.all("purpose") if follows_drug(c.start)), None)
    if purpose is None:
        return False, None
    objects = [c for c in facts.conditions if c.start + c.length > purpose.end]  # "để giảm đau"
    disease_beside = any(c.kind == "disease" and c.start < purpose.start for c in facts.comorbid)
    if objects and disease_beside:
        return False, None
    return True, objects[0] if objects else None


def _asks_if_patient_may(text: str, cues: TurnCues, facts: Facts) -> bool:
    """ "Bệnh nhân suy thận có được chỉ định metformin không?", "Trẻ 5 tuổi có chỉ định aspirin được
    không?": whether this patient may take the drug is a decision (the contraindications first),
    not what the drug is indicated for, which alone would leave the contraindication out. Only the
    yes/no form about a patient: "X được chỉ định trong trường hợp nào?" and "X có được chỉ định
    cho viêm họng không?" stay chỉ định."""
    folded = f" {' '.join(fold(t) for t in words(text))} "
    asked = " duoc chi dinh " in folded or " co chi dinh " in folded
    return (
        asked
        and asks_yes_or_no(text)
        and (facts.states_patient or bool(facts.population) or cues.has("patient_lead"))
    )


def _relation_kept(
    turn: Turn, cues: TurnCues, asked_about: Sequence[ConditionMention], facts: Facts
) -> dict[str, Any] | None:
    """ "Người bị gút nên tránh thuốc nào?", then "còn người suy thận thì sao?": the same relation
    of another condition or population. Read as a new which-drug question it would list the drugs
    that treat renal failure: the inversion this guards against."""
    prior = turn.prior
    if (
        prior is None
        or prior.turn_type != "condition_relation"
        or prior.condition_relation is None
        or _reverse_lookup(cues)
        or not (cues.leads("continue_lead") or cues.has("continue"))
        or not (asked_about or facts.population)
    ):
        return None
    relation = prior.condition_relation
    first = condition_asked(asked_about, cues) if asked_about else None
    return {
        "turn_type": "condition_relation",
        "condition_relation": relation,
        "attribute": RELATION_SECTIONS.get(relation),
        "condition": {"text": first.text, "normalized": first.normalized} if first else None,
        "context_action": "continue",
        "depends_on_previous_turn": True,
    }


# How many words after "bị" a complaint no table names may take: "bị lẹo mắt", "bị mụn rộp ở môi".
_UNNAMED_COMPLAINT_WORDS = 5


def _unnamed_complaint(cues: TurnCues, clauses: Sequence[int]) -> ConditionMention | None:
    """ "Đang uống atorvastatin, bị lẹo mắt, bôi thuốc gì?": a complaint no condition table names,
    told after "bị" in a clause of its own before a which-drug question, is what the question asks
    about (as written), never a question about the medicine the patient takes."""
    candidate = cues.first("candidate")
    if candidate is None:
        return None
    stops = stop_words()
    for said in cues.all("comorbidity"):
        if cues.folded[said.start] != "bi" or said.end >= candidate.start:
            continue
        span = []
        for i in range(said.end, min(candidate.start, said.end + _UNNAMED_COMPLAINT_WORDS)):
            if clauses[i] != clauses[said.start]:
                break
            span.append(i)
        words_told = [cues.tokens[i] for i in span]
        if words_told and clauses[said.start] != clauses[candidate.start] and words_told[0] not in stops:
            text = " ".join(words_told)
            return ConditionMention(
                text=text, normalized=text, kind="symptom", start=said.end, length=len(span)
            )
    return None


def _background(facts: Facts, asked: ConditionMention, cues: TurnCues) -> PatientContext:
    """The patient of a which-drug question: every condition it names except the one asked about
    is the patient's ("bệnh nhân hen bị đau đầu": hen), so the safety facets read it; the one asked
    about never is. Organ function is stated apart (renal_function, hepatic_function); what an
    allergy names is an allergy; a class of drugs ("thuốc giảm đau nào") is no condition."""
    classes = {i for c in cues.all("drug_class") for i in range(c.start, c.end)}
    others = [
        c.normalized
        for c in facts.conditions
        if c is not asked
        and c.normalized != asked.normalized
        and c.normalized not in ORGAN_FUNCTION_CONDITIONS
        and c.start not in facts.object_positions
        and c.start not in facts.reaction_starts  # stated as adverse_reactions, with its drug
        and c.start not in classes
    ]
    return facts.patient_context().model_copy(update={"comorbidities": tuple(dict.fromkeys(others))})


def offline_frame(turn: Turn) -> dict[str, Any]:
    text = turn.wording
    cues = scan_cues(text)
    named = turn.candidates.turn.matches
    facts = extract_facts(text, named)
    attribute = resolve_attribute(text)
    asked: Asked = None
    if attribute is None:
        attribute, asked = _made_to_happen(cues, facts)
    unknown = _without_ingredients(
        cues.folded, named, list(unknown_names(text, named, turn.candidates.turn.suggestions, facts))
    )
    treated = _treated_by_current_medicine(cues, facts, named)
    history = treated | facts.reaction_starts  # what a medicine is taken for; a past reaction
    complaint = any(
        c.normalized not in ORGAN_FUNCTION_CONDITIONS and c.start not in history for c in facts.conditions
    )
    clauses = clause_ids(text, cues.tokens)
    untold = None if facts.complaints else _unnamed_complaint(cues, clauses)
    complaint = complaint or untold is not None
    # before any named drug is set aside as the patient's: a reaction told on it keeps it
    told_first = _reaction_told_with_drug(cues, facts, [(m.start, m.end) for m in named], clauses)
    if (
        named
        and not unknown
        and complaint
        and (
            _reverse_lookup(cues) or (attribute is None and not asks_something(text, cues) and not told_first)
        )
        and only_patient_facts(facts, named)
        and not avoids_combining(cues)
    ):
        # "đang dùng warfarin, bị đau đầu thì dùng thuốc gì" (or, told without a question, "tôi
        # đang dùng warfarin, bị đau đầu"): the named medicine is the patient's (it stays in
        # patient_context); the question is which drug, for the condition. Without a condition
        # ("đang dùng warfarin, thuốc nào tương tác?") the medicine is still the subject, and so
        # is it when the complaint is told as what happened on it ("đang uống captopril bị ho
        # khan": its adverse reactions, not a drug for the cough).
        named = ()
    allergens = facts.object_positions | facts.reaction_cause_starts
    if any(m.start not in allergens for m in named):
        # "dị ứng aspirin thì dùng ibuprofen được không?": the allergen is the patient's, the
        # question is about ibuprofen (patient_context keeps the allergy)
        named = tuple(m for m in named if m.start not in allergens)
    earlier = bool(turn.prior and turn.prior.drugs) or bool(turn.candidates.history_ids())
    refers_to_drug = earlier or cues.has("continue")
    if attribute is None and (named or unknown or (refers_to_drug and not _reverse_lookup(cues))):
        # also of the conversation's drug: "Thuốc này / Nó có gây buồn ngủ không?" after a question
        # about cetirizin asks its adverse reactions, not the section asked before (with no drug
        # before, which drug is asked back, never a drug for drowsiness)
        attribute = named_drug_attribute(cues, ((c.start, c.start + c.length) for c in facts.complaints))
    if attribute == INDICATION_SECTION and _asks_if_patient_may(text, cues, facts):
        attribute = None
    products = _product_spans(cues.folded, named, unknown)
    treats, purpose_object = _asks_if_it_treats(cues, facts, products)
    if attribute is None and treats:
        attribute = INDICATION_SECTION
    if (
        attribute == INDICATION_SECTION
        and purpose_object is not None
        and asked is None
        and not WHICH_WORDS & set(cues.folded[purpose_object.start :])
    ):
        # "colchicin trị gút cấp được không": for gout; "trị những loại nhiễm nấm nào" asks
        # which, the indications as a whole
        asked = ("indication", purpose_object)
    helped = [c for c in facts.complaints if c.start not in history]
    if attribute in (None, INDICATION_SECTION) and products and helped and cues.has("efficacy"):
        # "bị viêm phế quản, uống carbocistein có đỡ không?": whether it helps the complaint is
        # what the drug is for, not whether this patient may take it (the contraindications)
        attribute, asked = INDICATION_SECTION, ("indication", helped[0])
    told_reaction = _reaction_told_with_drug(cues, facts, products, clauses)
    reaction = (
        told_reaction or _reaction_after_use(cues, facts, products) or _noticed_after_use(cues, products)
    )
    if reaction and cues.has("manage") and resolve_attribute(text, gapped=False) is None:
        attribute = None  # "bị ho khan khi dùng X thì xử trí thế nào": not "dùng … thế nào"
    attribute = managed_attribute(attribute, cues, reaction)
    if attribute is None and told_reaction:
        attribute = ADR_SECTION  # is it the drug's reaction: its adverse reactions
    prior_section = turn.prior.attribute if turn.prior is not None else None
    if attribute is None and named and cues.has("manage") and prior_section in HANDLED_SECTIONS:
        # "Captopril thì xử trí sao?" after "Thuốc nào gây ho khan?": the reaction of the turn
        # before, handled for this drug; after an overdose question, the overdose section
        attribute = managed_attribute(prior_section, cues)
    drugs = [m.drug_id for m in named]
    prior = turn.prior
    with_prior = _with_conversation_drug(cues, facts, named, unknown, attribute, prior)
    frame: dict[str, Any] = {
        "drugs": drugs,
        "unknown_drugs": unknown,
        "population": facts.population,
        "weight_kg": facts.weight_kg,
        "age_text": facts.age_text,
        "route": facts.route,
        "patient_context": facts.patient_context().model_dump(),
        "standalone_query": turn.message,
    }

    if not drugs and not unknown and not attribute and not facts.conditions and cues.has("smalltalk"):
        return {**frame, "turn_type": "smalltalk", "context_action": "new" if earlier else "none"}
    uncovered = {cue.value for cue in cues.all("not_covered")}
    if uncovered - {"purchase", "maker"} or (uncovered and attribute is None):
        # Price, a missed dose, where to buy: no section of the formulary answers them. Buying and
        # the maker are weak evidence: "mua X có cần đơn không?" asks about the regulatory
        # section, "uống nhiều hơn liều nhà sản xuất khuyến cáo" about the dose.
        return {**frame, "turn_type": "out_of_scope", "attribute": None}

    # May the drug be taken with the patient's medicines: "đang dùng warfarin thì có dùng được
    # không?" after a question about paracetamol (the conversation's drug first), or "uống
    # paracetamol được không?" after "tôi đang dùng warfarin" (the drug asked first).
    taken = _with_patient_medicines(turn, cues, named, attribute) or _interaction_kept(
        turn, cues, named, attribute
    )
    together = [*drugs, *taken] if taken else [*with_prior, *drugs] if with_prior else []
    if together:
        return {
            **frame,
            "drugs": together,
            "turn_type": "interaction",
            "attribute": INTERACTION_SECTION,
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }
    if (
        named
        and not unknown
        and attribute is None
        and not complaint
        and only_patient_facts(facts, named)
        and not _reverse_lookup(cues)
        and not cues.has("interaction")
        and not asks_something(text, cues)
    ):
        # "Tôi đang dùng warfarin", "Tôi dị ứng aspirin.": the patient, described; the question is
        # still to come, and the next turn keeps this patient (a clarifying prior is always
        # continued).
        names = ", ".join(m.matched_text for m in named)
        template = ASK_ABOUT_PATIENT if only_current_medications(facts, named) else ASK_ABOUT_ALLERGY
        return {
            **frame,
            "drugs": [],
            "turn_type": "out_of_scope",
            "needs_clarify": True,
            "clarify_reason": template.format(names=names),
            "context_action": "new" if earlier else "none",
        }
    if drugs:
        asks_more = _content_words(cues, [(m.start, m.end) for m in named])
        turn_type, attribute = _named_turn(
            len(drugs) + len(unknown),
            attribute,
            cues,
            facts,
            asks_more,
            _beside_another_medicine(cues.folded, facts, named, unknown, _class_starts(cues)),
        )
        if (
            turn_type in ("drug_overview", "drug_attribute")
            and not attribute
            and _same_question(text, cues, named, prior)
        ):
            # "thế còn paracetamol?" after "thận trọng của ibuprofen?": the same section, asked of
            # the drug this turn names. Nothing else of the prior frame comes with it, but the
            # condition of "X có trị Y không?" ("thế còn ibuprofen?": does it treat Y).
            assert prior is not None
            turn_type, attribute = "drug_attribute", prior.attribute
            if prior.turn_type == "drug_to_condition":
                turn_type = "drug_to_condition"
                if prior.condition is not None:
                    frame |= {
                        "condition": prior.condition.model_dump(),
                        "condition_relation": prior.condition_relation,
                    }
        changed = bool(prior and prior.drugs and set(prior.drugs) != set(drugs))
        answers_question = bool(prior and prior.needs_clarify)
        return _with_asked(
            {
                **frame,
                "turn_type": turn_type,
                "attribute": attribute,
                "section_overview": turn_type == "drug_attribute" and not facts.states_patient,
                "context_action": "new" if changed else ("continue" if answers_question else "none"),
                "depends_on_previous_turn": answers_question,
            },
            asked,
        )

    if earlier and not unknown and _continues(turn, cues, attribute, facts):
        turn_type, attribute = _continued_turn(turn, attribute, cues, facts)
        carried = [] if prior and prior.drugs else list(turn.candidates.history_ids())
        return {
            **frame,
            "turn_type": turn_type,
            "drugs": carried,
            "attribute": attribute,
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }

    context_action = "new" if earlier else "none"
    if unknown:
        beside = _beside_another_medicine(cues.folded, facts, named, unknown, _class_starts(cues))
        # as for a catalogue drug: a question no section phrase names is read over the monograph
        asks_more = _content_words(cues, products)
        turn_type, attribute = _named_turn(len(unknown), attribute, cues, facts, asks_more, beside)
        clarify: dict[str, Any] = {}
        if turn.candidates.turn.suggestions:
            reason, replies = _suggestion_question(turn)
            clarify = {"needs_clarify": True, "clarify_reason": reason, "quick_replies": replies}
        elif cues.has("vague_name"):
            # "thuốc ami… gì đó": the user does not remember the name; ask for it
            clarify = {"needs_clarify": True, "clarify_reason": ASK_FOR_DRUG}
        return (
            _with_asked(
                {**frame, "turn_type": turn_type, "attribute": attribute, "context_action": context_action},
                asked,
            )
            | clarify
        )
    asked_about = facts.complaints or ((untold,) if untold is not None else ())
    kept = _relation_kept(turn, cues, asked_about, facts)
    if kept is not None:
        return {**frame, **kept}
    if asked_about and (not attribute or _reverse_lookup(cues)):
        first = condition_asked(asked_about, cues)
        kind = "symptom_to_drug" if first.kind == "symptom" else "condition_to_drug"
        return {
            **frame,
            "patient_context": _background(facts, first, cues).model_dump(),
            "turn_type": kind,
            "attribute": None,
            "condition": {"text": first.text, "normalized": first.normalized},
            "condition_relation": "indication",
            "indication": first.normalized,
            "context_action": context_action,
        }
    if (
        prior is not None
        and prior.turn_type in PATIENT_SAFETY_TURNS
        and prior.condition is not None
        and cues.has("candidate")
        and not attribute
    ):
        # "Má tui bị tăng huyết áp lâu năm.", then "xài thuốc gì?": the condition told before
        return {
            **frame,
            "turn_type": prior.turn_type,
            "condition": prior.condition.model_dump(),
            "condition_relation": "indication",
            "indication": prior.condition.normalized or prior.condition.text,
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }
    if attribute or cues.has("medicine") or cues.has("dose") or cues.has("manage") or _reverse_lookup(cues):
        return {
            **frame,
            "turn_type": "drug_attribute" if attribute else "out_of_scope",
            "attribute": attribute,
            "needs_clarify": True,
            "clarify_reason": ASK_FOR_DRUG,
            "context_action": context_action,
        }
    if tells_only(text, cues) and (
        facts.states_patient or facts.population or facts.weight_kg or facts.age_text
    ):
        # "Con tui 2 tuổi, nặng 12 ký.": the patient, described; the question is still to come,
        # and the next turn keeps this patient (a clarifying prior is always continued).
        return {
            **frame,
            "turn_type": "out_of_scope",
            "needs_clarify": True,
            "clarify_reason": ASK_ABOUT_DESCRIBED_PATIENT,
            "context_action": context_action,
        }
    return {**frame, "turn_type": "out_of_scope", "context_action": context_action}

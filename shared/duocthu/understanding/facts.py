"""Small extractors: the patient facts a turn states (weight, age, population, route, kidney and
liver function, pregnancy, breastfeeding, current medicines, allergies, conditions). The product
names it mentions that the catalogue does not know are `duocthu.understanding.product_names`.

Each is a narrow surface rule over the cue tables (`duocthu.understanding.cues`); none holds drug knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu.catalog.names import foreign_word
from duocthu.catalog.resolver import DrugMatch
from duocthu.core.conditions import ORGAN_FUNCTION_CONDITIONS, ConditionMention, find_conditions
from duocthu.core.labs import lab_states, markers_carried, stated_labs
from duocthu.core.measures import CHILD_BELOW_YEARS, ELDERLY_FROM_YEARS, extract_age, extract_weight
from duocthu.core.sections import ADR_SECTION, CONTRAINDICATION_SECTION, SECTION_PHRASES
from duocthu.core.text import (
    NO_WORDS,
    fold,
    raw_words,
    stop_words,
    tells_only,
)
from duocthu.core.vocabulary import Population, Route
from duocthu.models.frame import PatientContext
from duocthu.understanding.cues import Cue, TurnCues, scan_cues
from duocthu.understanding.medicine_lists import listed_after, sentence_ids, unnamed_in_list
from duocthu.understanding.states_told import function_told, pregnancy_stage
from duocthu.understanding.told_in_words import (
    FILLERS,
    PRESCRIBING_VERBS,
    TAKING_VERBS,
    diagnoses_named,
    reactions_to_unnamed,
)

REDUCED_CLEARANCE = 60  # ml/min: below it a stated ClCr or eGFR is reduced kidney function
# Words that end the object of "đang dùng X" / "dị ứng với X"; so do the words of when it happened
# ("sốc phản vệ với penicilin năm 2019": the allergen is penicilin)
_WHEN = ("năm", "hồi", "lúc", "tháng", "tuần", "lần", "khi")
_STOPS = ("thì", "có", "được", "nên", "dùng", "uống", "không", "và", "nhưng", "mà", "bị", "cần")
_OBJECT_STOP = frozenset(fold(w) for w in (*_STOPS, *_WHEN))
_SUBJECT_LEAD = "subject"  # a verb of use right after who takes it (patient_subject)
# Sentence-final particles: never a medicine's name.
_PARTICLES = frozenset({"á", "à", "ạ", "nhé", "nha", "nhen", "hen", "đó", "ấy", "vậy", "rồi", "luôn", "tiếp"})


@dataclass(frozen=True)
class Facts:
    weight_kg: float | None = None
    age_text: str | None = None
    population: Population | None = None
    route: Route | None = None
    renal_function: str | None = None
    hepatic_function: str | None = None
    pregnancy: bool | None = None
    pregnancy_stage: str | None = None
    breastfeeding: bool | None = None
    current_medications: tuple[str, ...] = ()
    allergies: tuple[str, ...] = ()
    comorbidities: tuple[str, ...] = ()
    # conditions named by their own words ("thiếu men G6PD", understanding_cues patient_condition)
    stated_conditions: tuple[str, ...] = ()
    conditions: tuple[ConditionMention, ...] = ()
    comorbid: tuple[ConditionMention, ...] = ()  # the conditions the patient has ("bị hen")
    current_medication_ids: tuple[str, ...] = ()  # catalogue drugs among current_medications
    current_medication_starts: frozenset[int] = field(default_factory=frozenset)  # their mentions
    object_positions: frozenset[int] = field(default_factory=frozenset)  # tokens of allergy objects
    adverse_reactions: tuple[str, ...] = ()  # past reactions, with their cause: "phù mặt (aspirin)"
    reaction_starts: frozenset[int] = field(default_factory=frozenset)  # those reactions' mentions
    reaction_cause_starts: frozenset[int] = field(default_factory=frozenset)  # their drugs' mentions
    denied: frozenset[int] = field(default_factory=frozenset)  # conditions said not to be ("không sốt")
    in_class: frozenset[int] = field(default_factory=frozenset)  # findings naming a class asked among
    labs: tuple[str, ...] = ()  # laboratory values as written ("K+ 5,4 mmol/l", core.labs)

    def patient_context(self) -> PatientContext:
        return PatientContext(
            comorbidities=self.comorbidities,
            allergies=self.allergies,
            adverse_reactions=self.adverse_reactions,
            current_medications=self.current_medications,
            renal_function=self.renal_function,
            hepatic_function=self.hepatic_function,
            pregnancy=self.pregnancy,
            pregnancy_stage=self.pregnancy_stage,
            breastfeeding=self.breastfeeding,
            labs=self.labs,
        )

    @property
    def complaints(self) -> tuple[ConditionMention, ...]:
        """The conditions a question may ask about: all but the past reactions it tells, those it
        denies ("không sốt") and those naming a class asked among (`_in_class_asked`)."""
        return tuple(
            c
            for c in self.conditions
            if c.start not in self.reaction_starts
            and c.start not in self.denied
            and c.start not in self.in_class
        )

    @property
    def states_patient(self) -> bool:
        """The turn describes a particular patient (so the answer is a decision for that patient)."""
        return bool(self.weight_kg or self.age_text or not self.patient_context().is_empty())


def clause_ids(text: str, tokens: Sequence[str]) -> list[int]:
    """For each word token of the text, the index of its clause (split at , ; . ? ! :)."""
    return sentence_ids(text, tokens, ",;.?!:")


def _object_after(cue: Cue, tokens: Sequence[str], clauses: Sequence[int], limit: int = 4) -> range:
    """Token positions of the phrase a cue introduces: to the clause end, a stop word, or `limit`."""
    end = cue.end
    while (
        end < len(tokens)
        and end - cue.end < limit
        and clauses[end] == clauses[cue.end - 1]
        and fold(tokens[end]) not in _OBJECT_STOP
    ):
        end += 1
    return range(cue.end, end)


def _reduced_clearance(cues: TurnCues) -> bool:
    """A clearance stated as a number below `REDUCED_CLEARANCE` ("ClCr 25", "eGFR 40 ml/phút"):
    the kidney function the formulary's renal dose bands start from."""
    for cue in cues.all("renal"):
        after = cues.tokens[cue.end : cue.end + 3]
        number = next((t for t in after if t.isdigit()), None)
        if number is not None:
            return int(number) < REDUCED_CLEARANCE
    return False


def _population(cues: TurnCues, years: float | None) -> Population | None:
    """The patient's population: the first one the turn names, but a child named beside an adult's
    stated age, or as whose mother the turn speaks of, is someone else (the nursling of "chị 28t …
    cho bé lớn bú", "mẹ bé đang cho bú"); else the stated age's or clearance's."""
    adult = years is not None and years > CHILD_BELOW_YEARS  # "dưới 18 tuổi" is a band, not an age
    found = [
        c for c in cues.all("population") if not (c.value == "tre_em" and (adult or _mothers(cues, c.start)))
    ]
    if found:
        return found[0].value  # type: ignore[return-value]  # checked against POPULATIONS at load
    if _reduced_clearance(cues):
        return "suy_than"
    if years is None:
        return None
    if years < CHILD_BELOW_YEARS:
        return "tre_em"
    return "nguoi_cao_tuoi" if years >= ELDERLY_FROM_YEARS else "nguoi_lon"


def _mothers(cues: TurnCues, at: int) -> bool:
    """The child named at `at` is whose mother the turn speaks of ("mẹ bé đang cho bú", "mẹ của
    cháu"): the mother is the patient, not the child."""
    before = [fold(t) for t in cues.tokens[max(0, at - 2) : at]]
    return before[-1:] == ["me"] or before == ["me", "cua"]


# Months right after a word for a child (or its possessor) are its age; elsewhere a duration. Folded.
_INFANT_MONTHS = re.compile(
    r"\b(?:be|tre|chau|con)(?:\s+(?:toi|em|minh|nha|duoc))?\s+(\d{1,2})\s*thang\b(?!\s*tuoi)"
)


def _age(text: str) -> tuple[str | None, float | None]:
    """The stated age ("5 tuổi", "3 tháng tuổi"), or an infant's months after a word for a child,
    as "6 tháng tuổi" so that the facets read it as the age rule does."""
    age_text, years = extract_age(text)
    if age_text is not None:
        return age_text, years
    match = _INFANT_MONTHS.search(fold(text))
    return extract_age(f"{match.group(1)} tháng tuổi") if match else (None, None)


def extract_facts(text: str, named: Sequence[DrugMatch] = (), cues: TurnCues | None = None) -> Facts:
    """The patient facts `text` states (`cues`: the text's, when already scanned)."""
    cues = cues or scan_cues(text)
    tokens = cues.tokens
    clauses = clause_ids(text, tokens)
    age_text, years = _age(text)
    route = cues.first("route")
    starts = {m.start: m for m in named}
    written = raw_words(text)  # what the patient's medicines and allergies are shown as
    if len(written) != len(tokens):
        written = list(tokens)
    # a colon opens the list a lead introduces ("Thuốc đang dùng: …"), never ends it
    listed = sentence_ids(text, tokens, ",;.?!")
    current, current_ids, current_starts = _current_medications(text, cues, listed, starts, written)
    allergies, objects, stated = _allergies(cues, clauses, starts, written)
    conditions = tuple(c for c in find_conditions(text) if c.start not in stated)
    tells = tells_only(text)
    reactions, reaction_starts, cause_starts = _past_reactions(
        cues, named, conditions, written, clauses, tells
    )
    # told as past, or in a turn that asks nothing: history
    unnamed = reactions_to_unnamed(cues, named, written, clauses, cues.has("past") or tells)
    reactions += [r.text for r in unnamed]
    reaction_starts.update(c.start for r in unnamed for c in conditions if c.start in r.words)
    # a past reaction and its cause are history: no condition the patient has, no medicine taken
    comorbid = [c for c in _comorbid(cues, conditions, objects) if c.start not in reaction_starts]
    caused = {fold(" ".join(written[i : starts[i].end])) for i in cause_starts}
    caused.update(fold(r.cause) for r in unnamed)
    current = [m for m in current if fold(m) not in caused]
    current_starts -= cause_starts
    current_ids = [d for d in current_ids if d in {starts[i].drug_id for i in current_starts}]
    # a condition of the patient named by its own words: a fact, never the complaint
    stated_conditions = [" ".join(written[c.start : c.end]) for c in cues.all("patient_condition")]
    leads = {r.lead for r in unnamed}
    if not cues.has("candidate"):  # in a which-drug question an unnamed condition is the complaint
        asking = clauses[-1] if clauses and text.rstrip().endswith("?") else None
        stated_conditions += diagnoses_named(
            cues, conditions, objects, named, written, clauses, leads, asking
        )
    objects.update(i for r in unnamed for i in r.cause_words)  # a reaction's cause: no drug asked
    stated_conditions += lab_states(text)  # "K+ 2,6": hạ kali huyết, as the sentences name it
    stated_conditions += markers_carried(text)  # "HLA-B*1502 (+)": the allele the patient carries
    comorbidities = [c.normalized for c in comorbid] + stated_conditions
    # a delivery told ("sinh xong 2 tuần") ends the pregnancy, also one told in an earlier turn
    delivered = cues.has("delivered")
    pregnant = not delivered and cues.has("pregnancy")
    return Facts(
        weight_kg=extract_weight(text),
        age_text=age_text,
        population=_population(cues, years),
        route=route.value if route else None,  # type: ignore[arg-type]  # checked against ROUTES at load
        renal_function=function_told(cues.all("renal"), tokens),
        hepatic_function=function_told(cues.all("hepatic"), tokens),
        pregnancy=False if delivered else True if pregnant else None,
        pregnancy_stage=pregnancy_stage(text, written, tokens) if pregnant else None,
        breastfeeding=True if cues.has("breastfeeding") else None,
        current_medications=tuple(dict.fromkeys(current)),
        allergies=tuple(dict.fromkeys(allergies)),
        comorbidities=tuple(dict.fromkeys(comorbidities)),
        stated_conditions=tuple(dict.fromkeys(stated_conditions)),
        conditions=conditions,
        comorbid=tuple(comorbid),
        current_medication_ids=tuple(dict.fromkeys(current_ids)),
        current_medication_starts=frozenset(current_starts),
        object_positions=frozenset(objects),
        adverse_reactions=tuple(dict.fromkeys(reactions)),
        reaction_starts=frozenset(reaction_starts),
        reaction_cause_starts=frozenset(cause_starts),
        denied=frozenset(_denied(cues.folded, conditions)),
        in_class=frozenset(_in_class_asked(cues, conditions)),
        labs=stated_labs(text),
    )


# Words between a "không" and the condition it denies: "không bị sốt", "không có sốt".
_DENIAL_FILLERS = frozenset({"bi", "co", "thay"})


def _in_class_asked(cues: TurnCues, conditions: Sequence[ConditionMention]) -> list[int]:
    """The findings inside the name of a class asked which of ("thuốc giảm đau hạ sốt nào"), when
    the message also states a condition of the patient ("Thiếu G6PD thì …") and names the
    contraindications or the reactions: the class names the drugs asked among, the patient's
    condition is what they are asked about."""
    named = {m.value for m in SECTION_PHRASES.matches(list(cues.tokens))}
    if not cues.has("patient_condition") or not named & {CONTRAINDICATION_SECTION, ADR_SECTION}:
        return []
    asked = [
        k for k in cues.all("drug_class") if any(q.start <= k.start < q.end for q in cues.all("candidate"))
    ]
    return [
        c.start for c in conditions if any(k.start <= c.start and c.start + c.length <= k.end for k in asked)
    ]


def _denied(folded: Sequence[str], conditions: Sequence[ConditionMention]) -> list[int]:
    """Where the conditions a case says the patient does not have stand: "tiêu chảy 2 ngày, không
    sốt" asks about the diarrhoea, never the fever."""

    def no_before(i: int) -> bool:
        return i >= 0 and folded[i] in NO_WORDS

    return [
        c.start
        for c in conditions
        if no_before(c.start - 1)
        or (c.start >= 2 and folded[c.start - 1] in _DENIAL_FILLERS and no_before(c.start - 2))
    ]


def _medication_leads(
    text: str, cues: TurnCues, clauses: Sequence[int], starts: dict[int, DrugMatch]
) -> list[Cue]:
    """Where the medicines the patient takes are introduced: the `current_medication` cues, "đang"
    right before a catalogue drug (the ward drops the verb), and a verb of taking where no question
    is asked or before a which-drug question."""
    tokens = cues.tokens
    leads = list(cues.all("current_medication"))
    leads += [
        Cue("current_medication", _SUBJECT_LEAD, i - 1, 1)
        for i in starts
        if i and fold(tokens[i - 1]) == "dang"
    ]
    if tells_only(text):
        leads += [
            Cue("current_medication", "", i, 1) for i, t in enumerate(tokens) if fold(t) in TAKING_VERBS
        ]
        leads += [  # a catalogue drug only (the subject's lead names no other)
            Cue("current_medication", _SUBJECT_LEAD, i, 1)
            for i, t in enumerate(tokens)
            if fold(t) in PRESCRIBING_VERBS
        ]
    asked = cues.first("candidate")
    if asked is not None:
        # a verb of use after someone (or opening its clause), then a complaint in a later clause, before
        # a which-drug question, tells what the patient takes (in its own clause it may be a reaction)
        subjects = {c.end for c in cues.all("patient_subject")}
        told = [clauses[c.start] for c in find_conditions(text) if c.start < asked.start]
        leads += [
            Cue("current_medication", _SUBJECT_LEAD, i, 1)
            for i in range(asked.start)
            if fold(tokens[i]) in TAKING_VERBS
            and (i in subjects or i == 0 or clauses[i - 1] != clauses[i])  # or opening its clause
            and any(clause > clauses[i] for clause in told)
        ]
    return leads


def _current_medications(
    text: str,
    cues: TurnCues,
    clauses: Sequence[int],
    starts: dict[int, DrugMatch],
    written: Sequence[str],
) -> tuple[list[str], list[str], set[int]]:
    """The medicines the patient takes, as written; the catalogue drugs among them; where those stand."""
    tokens = cues.tokens
    current: list[str] = []
    current_ids: list[str] = []
    current_starts: set[int] = set()
    sentences = sentence_ids(text, tokens)
    for cue in _medication_leads(text, cues, clauses, starts):
        span = _object_after(cue, tokens, clauses, limit=6)
        drugs = [starts[i] for i in span if i in starts]
        # a name the catalogue lacks, as written ("đang uống á" names nothing)
        unnamed = not drugs and cue.value != _SUBJECT_LEAD
        # a name opens with letters: "uống 2 hôm nay" tells how long, "dùng tiếp" goes on
        named_words = len(span) and not tokens[span.start].isdigit()
        if (
            unnamed
            and named_words
            and any(tokens[i] not in stop_words() and tokens[i] not in _PARTICLES for i in span)
        ):
            current.append(" ".join(written[i] for i in span))
        elif unnamed:
            continue
        # the list goes on after either: "đang uống HCTZ và captopril"
        listed = listed_after(drugs[-1].end if drugs else span.stop, tokens, starts, clauses, sentences)
        drugs += listed
        current += [" ".join(written[m.start : m.end]) for m in drugs]
        if listed:
            current += unnamed_in_list(written, span.stop, listed[-1].end)
        current_ids += [m.drug_id for m in drugs]
        current_starts.update(m.start for m in drugs)
    return current, current_ids, current_starts


def _allergies(
    cues: TurnCues, clauses: Sequence[int], starts: dict[int, DrugMatch], written: Sequence[str]
) -> tuple[list[str], set[int], set[int]]:
    """What the patient is allergic to, as written; the tokens of those objects; and the "dị ứng"
    cues that name a medicine (their words are then no complaint)."""
    tokens = cues.tokens
    allergies: list[str] = []
    objects: set[int] = set()
    stated: set[int] = set()  # "dị ứng" saying which medicine the patient is allergic to
    for cue in cues.all("allergy"):
        span = _object_after(cue, tokens, clauses)
        if len(span) and _denied_allergy(cue, cues.folded, clauses):
            objects.update(span)  # what the patient is not allergic to is no complaint either
            stated.update(range(cue.start, cue.end))
        elif len(span):
            allergies.append(" ".join(written[i] for i in span))
            # an allergy to X's own ingredients leaves X the drug asked about
            own = [fold(tokens[i]) for i in span[:2]] == ["thanh", "phan"]
            objects.update(span[:2] if own else span)
            # "dị ứng penicilin" is a fact about the patient; "dị ứng thời tiết" is a complaint
            if any(i in starts or fold(tokens[i]) == "thuoc" or foreign_word(written[i]) for i in span):
                stated.update(range(cue.start, cue.end))
    return allergies, objects, stated


# Words before "dị ứng" in its clause (within ALLERGY_DENIAL_WINDOW words) that deny it
_DENYING = frozenset({"khong", "chua"})
ALLERGY_DENIAL_WINDOW = 4


def _denied_allergy(cue: Cue, folded: Sequence[str], clauses: Sequence[int]) -> bool:
    before = range(max(0, cue.start - ALLERGY_DENIAL_WINDOW), cue.start)
    return any(folded[i] in _DENYING and clauses[i] == clauses[cue.start] for i in before)


def _comorbid(
    cues: TurnCues, conditions: Sequence[ConditionMention], objects: set[int]
) -> list[ConditionMention]:
    """The conditions the patient has: "bị gút", and with a filler word between: "đang bị cơn gút
    cấp", "bị bệnh tiểu đường". Organ function is stated apart; an allergy's object is none."""
    tokens = cues.tokens
    comorbid_starts = {c.end for c in cues.all("comorbidity")}
    comorbid_starts |= {i + 1 for i in comorbid_starts if i < len(tokens) and fold(tokens[i]) in FILLERS}
    return [
        c
        for c in conditions
        if c.start in comorbid_starts
        and c.normalized not in ORGAN_FUNCTION_CONDITIONS
        and c.start not in objects
    ]


# At most this many words (such as "dữ dội") between a reaction and the lead naming its cause.
REACTION_TO_LEAD = 3
# At most this many words from "thuốc" after a reaction lead to the drug it names.
LEAD_TO_NAMED_DRUG = 6
# At most this many words of a reaction told after its drug ("uống X bị phồng rộp da …").
MAX_REACTION_WORDS = 5


def _past_reactions(
    cues: TurnCues,
    named: Sequence[DrugMatch],
    conditions: Sequence[ConditionMention],
    written: Sequence[str],
    clauses: Sequence[int],
    tells: bool,
) -> tuple[list[str], set[int], set[int]]:
    """Reactions told with their cause before a new complaint: the reaction and its drug are the
    patient's history, never what is asked; the complaint after them is the question. Without a
    later complaint the reaction is what is asked."""
    told_as_past = cues.has("past")  # "từng", "tiền sử", "trước đây", "ngưng"
    reactions: list[str] = []
    reaction_starts: set[int] = set()
    cause_starts: set[int] = set()

    def past(start: int, end: int, match: DrugMatch) -> None:
        reaction_starts.update(c.start for c in conditions if start <= c.start < end)
        reaction_starts.add(start)
        cause_starts.add(match.start)
        reactions.append(f"{' '.join(written[start:end])} ({' '.join(written[match.start : match.end])})")

    for match in named:
        # the reaction, then its cause: "phù mặt khi uống aspirin", "SJS do Tegretol"
        lead = next((c for c in cues.all("reaction_lead") if _leads_to(c, match, cues.folded, clauses)), None)
        if lead is not None and (told_as_past or any(c.start >= match.end for c in conditions)):
            before = [c for c in conditions if 0 <= lead.start - (c.start + c.length) <= REACTION_TO_LEAD]
            if before:
                past(before[-1].start, before[-1].start + before[-1].length, match)
                continue
        # the drug, then "bị" and a reaction (to its clause's end), then what is asked: a new
        # complaint after a reaction told as past, or another drug (the one the patient may take now)
        said = next((c for c in cues.all("comorbidity") if 0 <= c.start - match.end <= 1), None)
        if said is None or said.end >= len(clauses) or clauses[said.start] != clauses[match.start]:
            continue
        end, clause = said.end, clauses[said.end]
        while end < len(clauses) and clauses[end] == clause and end - said.end < MAX_REACTION_WORDS:
            end += 1
        complaint = told_as_past and any(c.start >= end for c in conditions)
        # told as past in a turn that asks nothing, or asks which drug: the patient's history,
        # whatever follows it
        history = told_as_past and (tells or cues.has("candidate"))
        if complaint or history or any(m.start >= end for m in named):
            past(said.end, end, match)
    return reactions, reaction_starts, cause_starts


def _leads_to(lead: Cue, match: DrugMatch, folded: Sequence[str], clauses: Sequence[int]) -> bool:
    """A reaction lead naming the drug: right before it ("khi dùng captopril"), or before "thuốc"
    and a few words that end with it in its clause ("khi dùng thuốc huyết áp (hình như là captopril)")."""
    if lead.end == match.start:
        return True
    return (
        lead.end < len(folded)
        and folded[lead.end] == "thuoc"
        and 0 < match.start - lead.end <= LEAD_TO_NAMED_DRUG
        and clauses[lead.end] == clauses[match.start]
    )


def only_current_medications(facts: Facts, named: Sequence[DrugMatch]) -> bool:
    """Every catalogue drug the turn names is named as a medicine the patient already takes:
    in "đang dùng warfarin, bị đau đầu thì dùng thuốc gì?" warfarin is context, not the subject."""
    return bool(named) and all(m.start in facts.current_medication_starts for m in named)


def only_patient_facts(facts: Facts, named: Sequence[DrugMatch]) -> bool:
    """Every catalogue drug the turn names is the patient's (context, not the subject): a medicine
    taken, an allergen, or the cause of a past reaction told before a new complaint."""
    mine = facts.current_medication_starts | facts.object_positions | facts.reaction_cause_starts
    return bool(named) and all(m.start in mine for m in named)

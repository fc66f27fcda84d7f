"""A turn's frame and reading -> its plan: the reply kind and the asks (`duocthu.models.plan`).

This is the one place that turns what a turn means into what it needs: retrieval gathers what the
asks name and no more, and a composer per reply kind words it. The order of the checks is the
order of precedence: a turn that cannot be answered from evidence (an animal, a failed provider,
small talk, out of scope, a question back, no drug the catalogue holds) needs no evidence.
"""

from __future__ import annotations

from duocthu.catalog.drug_names import drug_names, interacting_drugs
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.populations import population_wordings
from duocthu.core.sections import (
    ADR_MANAGEMENT_SECTION,
    ADR_SECTION,
    BREASTFEEDING_SECTION,
    CAUTION_SECTION,
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    INTERACTION_SECTION,
    PHARMACOLOGY_SECTION,
    PREGNANCY_SECTION,
    RELATION_SECTIONS,
    SAFETY_SECTIONS,
    STATE_SECTIONS,
)
from duocthu.core.vocabulary import WHICH_DRUG_TURNS
from duocthu.models.frame import QueryFrame, indication_of
from duocthu.models.plan import Ask, Plan
from duocthu.models.reading import TurnReading
from duocthu.understanding.merge import describes_patient
from duocthu.understanding.reading import unknown_taken

# Turns whose evidence is not one named drug's monograph: they may name no drug.
DRUGLESS_TURNS = frozenset({*WHICH_DRUG_TURNS, "condition_relation", "interaction"})
# From this many drugs asked together a reply quotes pair by pair, not every interaction section.
PAIRS_FROM = 3
# The sections a one-drug answer may quote beside the asked one: where a state the asked section
# is silent on is said (contraindications first), and where a drug's effect is stated.
_BESIDE_ASKED = (CONTRAINDICATION_SECTION, CAUTION_SECTION)
_BESIDE_EFFECT = (PHARMACOLOGY_SECTION, ADR_MANAGEMENT_SECTION)  # and what to do about it
# A described patient's question decides whether they may take the drug when it asks no section or care.
_DECIDED_IN = (None, CAUTION_SECTION)
_PROVIDER_FAILED = ("understanding_provider_unavailable", "understanding_malformed_output")
# Declines before which a which-drug question reads the book (never an animal, a fault or small talk)
_READ_THE_BOOK = frozenset({"needs_clarification", "unknown_drug", "out_of_scope"})


def plan_turn(frame: QueryFrame, reading: TurnReading, resolver: CatalogDrugResolver) -> Plan:
    """The plan of a turn whose frame is `frame` and whose words read as `reading`."""

    def plan(reply: str, **fields: object) -> Plan:
        return Plan.model_validate({"reply": reply, "frame": frame, "reading": reading, **fields})

    declined = _without_evidence(frame, resolver)
    if declined is not None:
        reply, reason = declined
        return plan(reply, reason=reason, asks=_read_before_no(reason, frame, reading, resolver))

    together = interacting_drugs(frame, resolver)
    unknown = reading.joined_unknown_names
    names = {drug: drug_names(resolver, drug) for drug in together}
    fields = {"together": together, "names": names}

    if frame.turn_type == "interaction" or _asks_the_pair(frame, together):
        if len(together) >= 2 or (together and unknown):
            pairs = len(together) + len(unknown) >= PAIRS_FROM
            ask = Ask(kind="together", drugs=together, unknown_names=unknown)
            supports = _whole(together, (INTERACTION_SECTION,)) if pairs else ()
            return plan("pairs" if pairs else "sections", asks=(ask, *supports), **fields)
        if together:  # one drug named: its whole interaction section
            ask = Ask(kind="section", drugs=together[:1], section_key=INTERACTION_SECTION)
            return plan("sections", asks=(ask, *_named_by_others(together[0], reading)), **fields)
        if frame.unknown_drugs:  # only names outside the catalogue: said so, after the book's lines on them
            return plan("decline", reason="unknown_drug", asks=_names_outside(frame), **fields)
        return plan("decline", reason="needs_clarification", **fields)
    if frame.turn_type in WHICH_DRUG_TURNS:
        ask = Ask(kind="condition", query=indication_of(frame), patient_check=True)
        return plan("drug_list", asks=(ask,), **fields)
    if frame.turn_type == "condition_relation":
        return plan(
            "sections", asks=(Ask(kind="relation", candidate_sections=reading.candidate_sections),), **fields
        )

    drug = frame.drugs[0]
    if frame.turn_type in ("drug_attribute", "drug_overview") and len(frame.drugs) > 1:
        known = tuple(d for d in frame.drugs if d in resolver.by_id)
        overview = frame.turn_type == "drug_overview"
        ask = Ask(
            kind="each_drug",
            drugs=known,
            section_key=None if overview else frame.attribute,
            query=None if overview else reading.text,
            reads_section=section_read_for(frame),
        )
        return plan("sections", asks=(ask,), **fields)
    if frame.turn_type == "drug_to_condition":
        uses = Ask(kind="uses", drugs=(drug,), reads_section=section_read_for(frame))
        return plan("sections", asks=(uses, *_one_drug_support(frame)), **fields)
    if frame.turn_type == "dosing_calc":
        ask = Ask(kind="section", drugs=(drug,), section_key=DOSE_SECTION, answering_lines=True)
        return plan("sections", asks=(ask, *_one_drug_support(frame)), dose_calculation=True, **fields)
    if frame.turn_type == "drug_overview":
        return plan("sections", asks=(Ask(kind="overview", drugs=(drug,)),), **fields)

    # every other turn type has returned: what is left is a drug_attribute turn
    own = _own_ask(frame, reading, resolver)
    beside = frame.attribute in (None, CONTRAINDICATION_SECTION) and len(together) > 1
    if beside:
        # a drug added to the medicines taken: its own answer and its pairs with each of them
        pooled = Ask(kind="together", drugs=together, unknown_names=(*unknown, *unknown_taken(frame)))
        supports = (*_one_drug_support(frame), *_whole(together, (INTERACTION_SECTION,)))
        return plan("beside_medicines", asks=(own, pooled, *supports), **fields)
    named_by_others = _named_by_others(drug, reading) if frame.attribute == INTERACTION_SECTION else ()
    return plan("sections", asks=(own, *_one_drug_support(frame), *named_by_others), **fields)


def _own_ask(frame: QueryFrame, reading: TurnReading, resolver: CatalogDrugResolver) -> Ask:
    """A drug_attribute turn's ask of its one drug: its section, or its monograph ordered for the
    question; for a described patient asking whether they may take it (or what to be careful of),
    the decision: the patient's contraindications and pairs beside, ranked over `decision_sections`."""
    about_patient = frame.population is not None or describes_patient(frame)
    decision = frame.attribute in _DECIDED_IN and about_patient
    query = reading.text
    if decision and frame.population is not None and reading.yes_or_no:
        # whether this patient may take it: the monograph ordered in the formulary's words for them too
        query = " ".join((query, *population_wordings(frame.population)))
    return Ask(
        kind="section" if frame.attribute else "monograph",
        whole_section=asks_whole_section(frame, reading, resolver),
        drugs=frame.drugs[:1],
        section_key=frame.attribute,
        query=query,
        with_patient=decision,
        reads_section=section_read_for(frame),
        answering_lines=True,
        candidate_sections=decision_sections(frame, reading) if decision else reading.candidate_sections,
        unknown_names=unknown_taken(frame) if decision else (),
    )


def asks_whole_section(frame: QueryFrame, reading: TurnReading, resolver: CatalogDrugResolver) -> bool:
    """Whether the question asks for a section itself: besides the drug and the section only words
    of asking or of reading a section whole; a maximum, a patient, a finding or any other word asks
    about something in the section, which its answering lines answer."""
    if not frame.attribute or reading.asks_maximum or frame.condition is not None:
        return False
    context = frame.patient_context
    # the drug asked may be read as a medicine taken too ("tác dụng phụ của ibuprofen")
    others = [
        m
        for m in context.current_medications
        if not {d.drug_id for d in resolver.resolve(m)} & {*frame.drugs}
    ]
    about_patient = not context.model_copy(update={"current_medications": ()}).is_empty() or others
    if frame.population is not None or frame.weight_kg is not None or about_patient:
        return False
    return reading.only_section_words


def decision_sections(frame: QueryFrame, reading: TurnReading) -> tuple[str, ...]:
    """Where the formulary says whether this patient may take a drug, for the evidence to rank: the
    section routed to first, the contraindications and precautions, the pregnancy or breastfeeding
    section the facts name, and the interactions when the patient takes other medicines. A question
    neither yes/no nor routed keeps the sections its words point to (none: the ranking decides)."""
    if not reading.yes_or_no and frame.attribute is None:
        return reading.candidate_sections
    context = frame.patient_context
    sections = (
        *((frame.attribute,) if frame.attribute else ()),
        CONTRAINDICATION_SECTION,
        CAUTION_SECTION,
        *((PREGNANCY_SECTION,) if context.pregnancy else ()),
        *((BREASTFEEDING_SECTION,) if context.breastfeeding else ()),
        *((INTERACTION_SECTION,) if context.current_medications else ()),
    )
    return tuple(dict.fromkeys(sections))


def _asks_the_pair(frame: QueryFrame, together: tuple[str, ...]) -> bool:
    """A drug's interactions asked beside a medicine the patient takes ("đang spironolacton, phối
    hợp NSAID có rủi ro gì?"): the pair is read from both monographs, as an interaction is."""
    return (
        frame.turn_type == "drug_attribute" and frame.attribute == INTERACTION_SECTION and len(together) > 1
    )


def _without_evidence(frame: QueryFrame, resolver: CatalogDrugResolver) -> tuple[str, str] | None:
    """(reply, reason) for a turn that cannot be answered from evidence, in order of precedence."""
    if frame.subject_scope == "non_human":
        return "decline", "non_human_subject"
    if frame.system_error in _PROVIDER_FAILED:
        return "decline", "dependency_unavailable"
    if frame.turn_type == "smalltalk":
        return "smalltalk", "smalltalk"
    if frame.turn_type == "out_of_scope" and not frame.needs_clarify:
        return "decline", "out_of_scope"
    if frame.needs_clarify:
        return "clarify", "needs_clarification"
    named = bool(frame.drugs) and frame.drugs[0] in resolver.by_id
    if not named and frame.turn_type not in DRUGLESS_TURNS:
        return "decline", "unknown_drug"
    return None


def _read_before_no(
    reason: str, frame: QueryFrame, reading: TurnReading, resolver: CatalogDrugResolver
) -> tuple[Ask, ...]:
    """What a decline or a question back reads before it is said: a named catalogue drug's own
    lines for an out-of-scope question; for a which-drug question naming a name the catalogue
    lacks and a safety section, the drugs whose section names it; the whole book's lines for a
    which-drug question read as no list (a drug outside the catalogue named, no relation read);
    else nothing."""
    if reason == "out_of_scope" and frame.drugs and frame.drugs[0] in resolver.by_id:
        return (Ask(kind="lines", drugs=frame.drugs[:1]),)
    catalogue_drugs = any(drug in resolver.by_id for drug in frame.drugs)
    safety = [key for key in reading.candidate_sections if key in SAFETY_SECTIONS]
    if reason == "unknown_drug" and reading.asks_which_drug and not catalogue_drugs and safety:
        # a which-drug question of a name with no monograph: other drugs' sections may name it
        return (Ask(kind="relation", unknown_names=frame.unknown_drugs, candidate_sections=tuple(safety)),)
    # an unknown_drug decline is never an interaction turn (that may name no drug): its section tells
    if (
        reason == "unknown_drug"
        and frame.unknown_drugs
        and not catalogue_drugs
        and INTERACTION_SECTION in reading.candidate_sections[:1]
    ):
        return _names_outside(frame)
    if reason in _READ_THE_BOOK and reading.asks_which_drug and not catalogue_drugs:
        # the names it asks among, with no monograph, are said to have none (and read in the book)
        return (Ask(kind="book_lines", unknown_names=reading.outside_formulary),)
    terms = [name for name in frame.unknown_drugs if not world_drug(name)]
    if reason == "unknown_drug" and terms and not catalogue_drugs:
        # a word no drug list holds may be a term of the book ("Clostridioides difficile"): the
        # lines naming it (or a name beside it) answer; only a book that never names them is "not found"
        return (Ask(kind="book_lines", unknown_names=frame.unknown_drugs),)
    return ()


def _names_outside(frame: QueryFrame) -> tuple[Ask, ...]:
    """The interactions of names outside the catalogue: an interaction is written under either
    drug, so the other monographs' sections naming them are what the book says of them."""
    names = frame.unknown_drugs
    return (Ask(kind="relation", unknown_names=names, candidate_sections=(INTERACTION_SECTION,)),)


def _named_by_others(drug: str, reading: TurnReading) -> tuple[Ask, ...]:
    """A which-drug question about one drug's interactions: the formulary writes an interaction
    under either drug, so after X's own section the drugs whose interaction section names X are
    listed; a question about X alone reads X's section only."""
    if not reading.asks_which_drug:
        return ()
    return (Ask(kind="relation", drugs=(drug,), candidate_sections=(INTERACTION_SECTION,)),)


def beside_what_is_taken(rest: Plan, among: tuple[str, ...], resolver: CatalogDrugResolver) -> Plan | None:
    """Drugs offered as a choice beside the one medicine the patient takes ("đang warfarin; trong
    A, B, C cái nào làm tăng INR?"), the rest of the message asking of that medicine: each
    candidate with the medicine taken, as a drug added to it is (`beside_medicines`), never with
    the other candidates; the medicine's own lines for what is asked lead. None otherwise."""
    frame, ask = rest.frame, rest.main_ask
    taken = {m.drug_id for text in frame.patient_context.current_medications for m in resolver.resolve(text)}
    if not frame.drugs and len(taken) == 1 and not (frame.condition and frame.condition.normalized):
        # the medicine told earlier in the conversation, the rest naming no finding the tables
        # know ("làm INR tăng"): what the candidates do to it is in the interaction sections
        frame = frame.model_copy(update={"drugs": tuple(taken)})
        ask = Ask(kind="section", drugs=frame.drugs, section_key=INTERACTION_SECTION, query=rest.reading.text)
        rest = rest.model_copy(update={"frame": frame})
    # the one drug the rest names is the medicine they are asked beside ("… khi dùng cùng warfarin")
    taken = taken or set(frame.drugs)
    if ask is None or len(frame.drugs) != 1 or taken != set(frame.drugs) or frame.drugs[0] in among:
        return None
    together = (frame.drugs[0], *among)
    pooled = Ask(kind="together", drugs=together)
    supports = (*_one_drug_support(frame), *_whole(together, (INTERACTION_SECTION,)))
    names = {drug: drug_names(resolver, drug) for drug in together}
    return rest.model_copy(
        update={
            "reply": "beside_medicines",
            "asks": (ask, pooled, *supports),
            "together": together,
            "names": names,
        }
    )


def _whole(drugs: tuple[str, ...], sections: tuple[str, ...]) -> tuple[Ask, ...]:
    pairs = tuple((drug, key) for drug in drugs for key in sections)
    return (Ask(kind="whole_sections", sections=pairs),) if pairs else ()


def _one_drug_support(frame: QueryFrame) -> tuple[Ask, ...]:
    """The sections a one-drug answer quotes beside the asked one: where the patient's state or
    age group is said when the asked section is silent on it (contraindications, precautions),
    and where the drug's effect asked is stated. A question with neither needs none."""
    context = frame.patient_context
    about_patient = frame.population is not None or bool(context.renal_function or context.hepatic_function)
    effect = _BESIDE_EFFECT if section_read_for(frame) == ADR_SECTION else ()
    # a pregnant or nursing patient's own section says first what the asked one may not
    own = STATE_SECTIONS.get(frame.population or "")
    state = (own,) if own and own != frame.attribute else ()
    return _whole(frame.drugs[:1], (*state, *(_BESIDE_ASKED if about_patient or effect else ()), *effect))


def section_read_for(frame: QueryFrame) -> str | None:
    """The section a named drug's question asks about a finding ("X có trị Y không?": chỉ định;
    "X có gây Y không?": ADR), which `with_section_reading` reads for it; None for any other."""
    section = RELATION_SECTIONS.get(frame.condition_relation or "")
    if frame.turn_type == "drug_to_condition" or (
        frame.turn_type == "drug_attribute" and section == frame.attribute
    ):
        return section
    return None

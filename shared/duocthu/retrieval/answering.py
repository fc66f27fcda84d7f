"""The answering lines of an ask about named drugs: all of their sentences ranked against the
question, best first (the answer layer quotes them before the routed section).

The score is Okapi BM25 computed inside the store over every sentence of the book
(`store.lexical`: term frequency in the sentence and its section heading, IDF from the whole
book), times a prior for the ask's candidate sections (the section the plan routed to). The
question's words are read as the store's lexical search reads them (stop words out, folded),
without the drug's own names (every sentence of its monograph is about it) and without numbers
(a number in a question is the patient's: "80 tuổi", "ClCr 25"). The order keeps the patient's
words below the ask's: the phrases the drug's chỉ định shares with the question (the condition it
is given for) weigh half, a turn naming drugs together puts the lines naming another of them first,
and a follow-up's words weigh double the question it goes on from.

A line counts as found only when it holds two of the question's words (one, for a one-word
question) and scores at least `MIN_SCORE`: BM25 sums the IDF of the words held, so a sentence
sharing only common words with a chatty question ("bn", "uống", "luôn") stays under it, one
holding two of its rarer words passes. A sentence that shares one common word with a question
answers nothing, and a decline must never rest on it either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.catalog.world_drugs import world_drug
from duocthu.core.labs import lab_relation
from duocthu.core.measures import NAMES_A_DOSE
from duocthu.core.phrases import contains_any, word_places
from duocthu.core.populations import population_wordings
from duocthu.core.sections import (
    ADR_MANAGEMENT_SECTION,
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    INDICATION_SECTION,
    INTERACTION_SECTION,
    OVERDOSE_SECTION,
    SAFETY_SECTIONS,
)
from duocthu.core.sentences import split_sentences
from duocthu.core.text import folded_words, words
from duocthu.models.evidence import EvidenceItem, RankedLine
from duocthu.retrieval.advice import directs
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.focus import focus_terms
from duocthu.retrieval.levels import patient_band, relation, sentence_bands
from duocthu.retrieval.limits import bands_in, patient_in_bands
from duocthu.retrieval.question_words import asked_pieces, line_pairs, question_pairs, question_tokens
from duocthu.retrieval.reverse.reading import denies
from duocthu.retrieval.reverse.wordings import wider_findings
from duocthu.retrieval.scopes import NOTHING_ASKED, AskedFor, asked_for
from duocthu.store import VectorStore
from duocthu.store.base import line_lead

# The sentences read per drug, best first, before the prior reorders them (more than any monograph's
# share of lines holding the question's words)
READ_LINES = 64
# The candidate sections' weight: a line there outranks one elsewhere scoring up to this much more
# (the routed section may be wrong: the prior never hides a clearly better line)
SECTION_PRIOR = 0.3
MAX_LINES = 3
OTHER_DRUG_WEIGHT = 2
# The BM25 score a line must reach to count as found (dev set and team gold: the lines holding the
# answer scored 9-26, the ones sharing only chatty words 2-6)
MIN_SCORE = 8.0
# A line after the first leads too only when it scores this share of the first's score
FOLLOWER_SHARE = 0.6
# An indication line says why the drug is given, which a question naming it already tells: unless the
# ask reads the indications or the line advises against a use, it weighs this share of its score
WHY_GIVEN_WEIGHT = 0.7


# A line stating a band the patient's own numbers fall in (an age, a weight, a clearance, a week of
# pregnancy: "Trẻ em từ 2 đến 6 tuổi", "eGFR 30–44") answers for this patient and outranks one that
# scores up to this much more; a line stating only bands the patient is outside answers for another
# and is weighed down as much (kept: the patient's numbers may be misread)
BAND_PRIOR = 0.5
# The sections a prescribing decision for a patient reads, in the book's order
DECIDING = (*SAFETY_SECTIONS, DOSE_SECTION)
DECISION_SECTIONS = frozenset(DECIDING)
# A band line the words did not rank, after a ranked one in the patient's band
BAND_RUNNER_UP = 0.95
# The levels a patient's turn may give as numbers or words the book states bands of
LEVELED = ("renal", "pregnancy")
# Where the book says what to do, read for a band of a laboratory value the patient has
HANDLING_SECTIONS = (ADR_MANAGEMENT_SECTION, OVERDOSE_SECTION)


def scoped(lead: str, sentence: str) -> str:
    """A sentence as read for a patient: under its paragraph's lead-in ("Trẻ em"), unless it
    states an age or weight band of its own (the nearer scope wins)."""
    return f"{lead}: {sentence}" if lead and not bands_in(sentence) else sentence


# Words of a clause about starting a drug: it is for a patient who does not take it yet
STARTING = ("bắt đầu", "khởi đầu", "khởi trị")


def line_fit(drug_id: str, lead: str, sentence: str, patient: PatientProfile | None) -> float:
    """`patient_fit` of a drug's line read under its lead-in; a band in a clause about starting the
    drug ("kali huyết thanh trên 5,0 mmol/l khi bắt đầu điều trị") is no band of a patient who
    already takes it."""
    fit = patient_fit(scoped(lead, sentence), patient)
    if fit > 1 and patient is not None and drug_id in patient.taking and about_starting(sentence):
        # read clause by clause (between semicolons), those on starting it left out
        kept = [clause for clause in sentence.split(";") if not about_starting(clause)]
        return max((patient_fit(scoped(lead, clause), patient) for clause in kept), default=1.0)
    return fit


def about_starting(text: str) -> bool:
    """The text speaks of starting the drug (`STARTING`)."""
    lowered = text.lower()
    return any(word in lowered for word in STARTING)


def patient_fit(text: str, patient: PatientProfile | None) -> float:
    """The weight of a line for the patient: 1 + BAND_PRIOR inside a band it states, its inverse
    outside every band it states, 1 when it states none the patient gives a number for."""
    if patient is None:
        return 1.0
    inside = patient_in_bands(text, patient.age_years, patient.weight_kg)
    found = [] if inside is None else ["inside" if inside else "outside"]
    for concept in LEVELED:
        level = patient.level_text(concept)
        if level:
            found.append(relation(patient_band(level, concept), sentence_bands(text, concept)) or "")
    if patient.lab_values:
        found.append(lab_relation(text, patient.lab_values) or "")
    if "inside" in found:
        return 1 + BAND_PRIOR
    return 1 / (1 + BAND_PRIOR) if "outside" in found else 1.0


# A question whether to use the drug (this patient, this combination) is answered first by a line
# that directs: a contraindication, or a wording that advises against use ("không khuyến cáo",
# "tránh dùng"), before a line that explains why or states a risk; it outranks one scoring up to
# this much more
DIRECTIVE_PRIOR = 0.3


# The book's own "do not use": a line in the contraindications, or one saying so elsewhere
_BARS = ("chống chỉ định", "không được dùng", "không được bắt đầu", "không dùng")


def bars_for(line: RankedLine, patient: PatientProfile, population: bool = True) -> bool:
    """The line of a safety section contraindicates the drug (and does not deny it, `denies`)
    and names what the turn tells of the patient: a condition, an allergy, their population
    (unless not `population`) or organ, or a band their numbers fall in (never one for someone
    else)."""
    said = " ".join(words(line.text))
    stated = any(phrase in said for phrase in _BARS)
    barred = (line.section_key == CONTRAINDICATION_SECTION or stated) and not denies(line.text)
    fit = line_fit(line.drug_id, line.lead, line.text, patient)
    if not barred or line.section_key not in SAFETY_SECTIONS or fit < 1:
        return False
    return fit > 1 or contains_any(line.text, _told_of(patient, population))


# Words of a line about a pair of drugs: it bars the pair, which the interaction lines answer
_PAIRED = ("phối hợp", "đồng thời", "dùng cùng")


def taken_alone(text: str) -> bool:
    """The line is about the drug taken alone, not with another drug."""
    lowered = text.lower()
    return not any(p in lowered for p in _PAIRED)


def _told_bar(line: RankedLine, patient: PatientProfile) -> bool:
    """`bars_for` by what the turn tells of the patient, for the drug `taken_alone` at any dose (a
    line on a dose bars that dose): a population's name is no bar of its own (its bands say whom
    a line is for)."""
    alone = taken_alone(line.text) and not NAMES_A_DOSE.search(line.text)
    return alone and bars_for(line, patient, population=False)


def _told_of(patient: PatientProfile, population: bool = True) -> list[str]:
    """What the turn tells of the patient, as a sentence may name it."""
    context = patient.context
    told = [
        *context.comorbidities,
        # the book may bar a wider disease than the one told: "nhồi máu cơ tim" is ischaemic heart disease
        *(wider for c in context.comorbidities for wider in wider_findings(c)),
        *context.allergies,
        *(r.split(" (")[0] for r in context.adverse_reactions),
    ]
    adult = patient.population == "nguoi_lon"
    told += population_wordings(patient.population) if population and not adult else []
    told += ["suy thận"] * bool(context.renal_function) + ["suy gan"] * bool(context.hepatic_function)
    told += ["mang thai", "có thai"] * bool(context.pregnancy) + ["cho con bú"] * bool(context.breastfeeding)
    return [t for t in told if folded_words(t)]


def words_held(line: RankedLine, tokens: Sequence[str]) -> int:
    _, at = word_places(line.text)  # the line's folded words, read once per process
    return sum(1 for t in tokens if t in at)


def _condition_words(hits: Sequence[RankedLine], tokens: Sequence[str], pairs: Sequence[str]) -> set[str]:
    """The words of the question's pairs that the drug's indications hold (a condition is named
    in a phrase; one shared word is as often a function word), when the question has others."""
    held = {p for line in hits if line.section_key == INDICATION_SECTION for p in line_pairs(line.text)}
    condition = {w for p in held.intersection(pairs) for w in p.split(" ")}
    return condition if set(tokens) - condition else set()


def _each_once(lines: Sequence[RankedLine]) -> list[RankedLine]:
    """Each line at its first (best-ranked) place."""
    first: dict[tuple[str, int], RankedLine] = {}
    for line in lines:
        first.setdefault((line.part_id, line.line_index), line)
    return list(first.values())


def _outside_drugs(tokens: Sequence[str], other_words: Sequence[str]) -> list[str]:
    """The question's words naming a drug the catalogue lacks (`world_drug`): each weighs as
    another drug's name, so its line in this drug's monograph answers the two together whatever
    other word of the question ("xử trí") is commoner."""
    return [t for t in tokens if t not in other_words and not t.isdigit() and world_drug(t)]


def _names_other(line: RankedLine, other_words: Sequence[str], written: Sequence[Sequence[str]]) -> bool:
    """The line names another drug the turn is about: one of its words at a found line's score, or
    every word of a name the question writes in its own words, at any score (a drug's whole name
    is as specific as two rare words, and a long sentence listing many drugs scores low on one)."""
    if line.score >= MIN_SCORE and words_held(line, other_words) > 0:
        return True
    return any(name and words_held(line, name) == len(name) for name in written)


def _names_written(
    question: str,
    drug_id: str,
    drugs: Sequence[tuple[str, Sequence[str]]],
    names: Sequence[str],
    tokens: Sequence[str],
    outside: Sequence[str],
) -> list[list[str]]:
    """The words of each other drug's name the question writes (by any of its names; a several-asks
    message's other question may name it), and of each name outside the catalogue it writes."""
    written = [other[0] for d, other in drugs if d != drug_id and other and contains_any(question, other)]
    by_name = ([t for t in question_tokens(first, names) if t in tokens] for first in written)
    return [*filter(None, by_name), *([t] for t in outside)]


def found(line: RankedLine, tokens: Sequence[str]) -> bool:
    """Whether the line holds enough of the question's words to count as an answer."""
    return line.score >= MIN_SCORE and words_held(line, tokens) >= min(2, len(tokens))


def answering_lines(
    store: VectorStore,
    drugs: Sequence[tuple[str, Sequence[str]]],
    question: str,
    candidates: Sequence[str] = (),
    together: Sequence[tuple[str, Sequence[str]]] = (),
    carried: str = "",
    patient: PatientProfile | None = None,
    decision: bool = False,
    also: str = "",
    why_asked: bool = False,
) -> tuple[RankedLine, ...]:
    """The best lines for the question (`lines_for`), read with the words `also` (the patient's,
    the formulary's words for the clinician's shorthand); a message asking several questions gets
    the best line of each first, in the message's order (ranked whole, the words of one question
    outweigh the other's), then the rest by score: at most MAX_LINES. `why_asked`: the ask reads
    the drug's indications, whatever section it is routed to."""
    why_asked = why_asked or INDICATION_SECTION in candidates
    names = [name for _, drug_names in drugs for name in drug_names]
    pieces = asked_pieces(question, names)
    if len(pieces) < 2:
        return lines_for(
            store, drugs, f"{question} {also}", candidates, together, carried, patient, decision, why_asked
        )
    # the section routed to is the message's: each question is ranked by its own words
    found = [
        lines_for(
            store, drugs, f"{piece} {also}".strip(), (), together, carried, patient, decision, why_asked
        )
        for piece in pieces
    ]
    return firsts_then_rest(found)


def firsts_then_rest(
    found: Sequence[Sequence[RankedLine]], at_most: int = MAX_LINES
) -> tuple[RankedLine, ...]:
    """The best line of each reading first, in their order, then the rest by score: at most `at_most`."""
    firsts = [lines[0] for lines in found if lines]
    rest = sorted((line for lines in found for line in lines[1:]), key=lambda line: -line.score)
    return tuple(_each_once([*firsts, *rest])[:at_most])


def lines_for(
    store: VectorStore,
    drugs: Sequence[tuple[str, Sequence[str]]],
    question: str,
    candidates: Sequence[str] = (),
    together: Sequence[tuple[str, Sequence[str]]] = (),
    carried: str = "",
    patient: PatientProfile | None = None,
    decision: bool = False,
    why_asked: bool = False,
) -> tuple[RankedLine, ...]:
    """The best lines for the question among the sentences of each drug (given with its names:
    a drug's own names are no term of its lines, another drug's named in the question is, and
    so are the other drugs the turn is about `together`), best first: at most MAX_LINES, each
    found, those after the first within FOLLOWER_SHARE of its score; () when none is found."""
    kept: list[RankedLine] = []
    together_lines: list[RankedLine] = []
    for drug_id, names in drugs:
        # the other drugs by the name their monographs go by: a brand in the question ("Sintrom")
        # is written by its INN in this drug's interactions ("acenocoumarol")
        others = " ".join(other[:1][0] for d, other in (*drugs, *together) if d != drug_id and other)
        tokens = question_tokens(f"{question} {others}", names)
        doses_for = asked_for(store, drug_id, f"{question} {carried}")
        if not tokens:  # no words of its own ("còn X thì sao?"): what the book says of this patient
            read = [*candidates, *(k for k in DECIDING if k not in candidates)] if decision else candidates
            kept += band_lines(store, drug_id, read, patient, (), decision, doses_for)
            continue
        # the other drugs' names weigh double: a line on the two answers before one on the condition
        other_words = [t for t in question_tokens(others, names) if t in tokens]
        outside = _outside_drugs(tokens, other_words)
        drug_words = [*other_words, *outside]
        named = drug_words * (OTHER_DRUG_WEIGHT - 1)
        pairs = question_pairs(f"{question} {others}", tokens)
        terms = [*tokens, *named, *pairs, *focus_terms(question)]
        terms, tokens, scale = _going_on(terms, tokens, question_tokens(carried, names))
        hits = store.search_lines(terms, drug_id=drug_id, limit=READ_LINES)
        hits = (
            [line.model_copy(update={"score": line.score / scale}) for line in hits] if scale != 1 else hits
        )
        other_names: list[list[str]] = []  # a name alone finds only where the words find nothing
        if INTERACTION_SECTION in candidates and not any(found(line, tokens) for line in hits):
            other_names = _names_written(question, drug_id, (*drugs, *together), names, tokens, outside)
        # a line naming another drug asked with this one answers "the two together" by that name
        # alone (an interaction is one sentence naming both)
        answers = [
            line for line in hits if found(line, tokens) or _names_other(line, drug_words, other_names)
        ]
        condition = _condition_words(hits, tokens, pairs) if INDICATION_SECTION not in candidates else set()
        if condition:
            # the phrases the drug's indications share with the question name what the patient
            # has (why the drug is given), not what is asked of it: the question's other words
            # weigh double in the order, so a line on the condition does not outrank the one
            # answering the ask; what counts as found stays read at the question's own weights
            kept_ids = {(line.part_id, line.line_index) for line in answers}
            best = max((line.score for line in answers), default=0.0)
            asked = [t for t in terms if not condition.intersection(t.split(" "))]
            hits = store.search_lines([*terms, *asked], drug_id=drug_id, limit=READ_LINES)
            hits = [line for line in hits if (line.part_id, line.line_index) in kept_ids]
            # back on the question's scale (its best line's score), beside the other drugs' lines
            scale = best / hits[0].score if hits else 1.0
            answers = [line.model_copy(update={"score": line.score * scale}) for line in hits]
        mine = [_weighed(line, candidates, patient, decision, doses_for, why_asked) for line in answers]
        kept += band_lines(store, drug_id, candidates, patient, mine, decision, doses_for)
        kept += mine
        together_lines += [line for line in mine if other_words and words_held(line, other_words)]
    # a question naming drugs together asks about them together: a line naming another of them
    # answers it before any line on the patient's condition, however many of its words that shares;
    # a line stating a band the patient's own numbers fall in answers for them whatever is asked
    if together_lines:
        kept = [*together_lines, *(line for line in kept if _for_patient(line, candidates, patient))]
    if not kept:
        return ()
    kept.sort(key=lambda line: -line.score)  # stable: ties keep the store's book order
    kept = _each_once(kept)
    best = kept[0].score
    lead = [line for line in kept if line.score >= FOLLOWER_SHARE * best][:MAX_LINES]
    if decision and patient is not None and not patient.is_empty():
        # among the lines that answer for a patient, one that bars the drug for them goes first
        lead.sort(key=lambda line: not bars_for(line, patient))  # stable: else by score
    return tuple(lead)


def _going_on(
    terms: Sequence[str], tokens: Sequence[str], carried: Sequence[str]
) -> tuple[list[str], list[str], float]:
    """A follow-up's words weigh double the ask it carries on (`carried`), which still ranks its
    lines; a line holding words of either counts, its score read on the turn's own scale (the
    returned divisor)."""
    go_on = [t for t in carried if t not in tokens]
    if not go_on:
        return list(terms), list(tokens), 1.0
    return [*terms, *terms, *go_on], [*tokens, *go_on], 2.0


def _weighed(
    line: RankedLine,
    candidates: Sequence[str],
    patient: PatientProfile | None,
    decision: bool,
    asked: AskedFor,
    why_asked: bool,
) -> RankedLine:
    prior = _prior(line, candidates, patient, decision, asked)
    why_given = line.section_key == INDICATION_SECTION and not why_asked
    prior *= WHY_GIVEN_WEIGHT if why_given and not directs(line) else 1.0
    return line.model_copy(update={"score": line.score * prior})


def _for_patient(line: RankedLine, candidates: Sequence[str], patient: PatientProfile | None) -> bool:
    """The line states a band the patient's own numbers fall in, in a section that decides or
    says what to do."""
    decides = line.section_key in (*candidates, *DECISION_SECTIONS, *HANDLING_SECTIONS)
    return decides and line_fit(line.drug_id, line.lead, line.text, patient) > 1


def band_lines(
    store: VectorStore,
    drug_id: str,
    candidates: Sequence[str],
    patient: PatientProfile | None,
    ranked: Sequence[RankedLine],
    decision: bool = False,
    asked: AskedFor = NOTHING_ASKED,
) -> list[RankedLine]:
    """The sentences of the asked sections stating a band the patient's numbers fall in ("eGFR
    30–44" for eGFR 38, "3 tháng cuối" at 32 weeks) that the question's words did not rank: they
    answer for this patient whatever words the question uses: they score as its best line, just
    under it when that line is in the patient's band too; for a question whether to use the drug,
    one that directs goes before one that explains, as among ranked lines. For a question whether
    to use the drug, the contraindications are read too: a line there naming what the turn tells
    of the patient (`bars_for`) answers it as a band line does, whatever words the question uses."""
    if patient is None or patient.is_empty():
        return []
    have = {(line.part_id, line.line_index) for line in ranked}
    top = max(ranked, key=lambda line: line.score, default=None)
    best = top.score if top else MIN_SCORE * (1 + SECTION_PRIOR)
    # just under it only when its band counts: in a section asked or one a decision reads (`_prior`)
    counts = top is not None and (top.section_key in candidates or top.section_key in DECISION_SECTIONS)
    fits = top is not None and line_fit(top.drug_id, top.lead, top.text, patient) > 1
    best *= BAND_RUNNER_UP if top and counts and fits else 1.0
    out = []
    barring = (CONTRAINDICATION_SECTION,) if decision and CONTRAINDICATION_SECTION not in candidates else ()
    told_of = _told_of(patient, population=False) if decision else []
    # a laboratory value told is the patient's wherever the book states its band: what to do at it
    # is often written where reactions are handled ("Khi kali huyết trên 5,5 mmol/l, giảm liều …")
    labs = patient.lab_values
    handling = tuple(k for k in HANDLING_SECTIONS if k not in candidates) if labs else ()
    for section in (*candidates, *barring, *handling):
        for part in store.find_by_section(drug_id, section):
            for index, sentence in enumerate(split_sentences(part.text)):
                lead = line_lead(part.section_key, part.text, index)
                if section in handling and lab_relation(sentence, labs) != "inside":
                    continue
                inside = line_fit(drug_id, lead, sentence, patient) > 1
                # a bar the words ranked low is raised to a bar's place, and so is a told value's band
                # where the book says what to do; another band line ranked keeps its own
                if inside and (part.id, index) in have and section not in handling:
                    continue
                if not inside and (section not in SAFETY_SECTIONS or not contains_any(sentence, told_of)):
                    continue  # read first by its words, before it is made a line
                line = part_line(part, sentence, index, best)
                if section in barring and not taken_alone(sentence):
                    continue  # read for a bar only: one on a pair bars the pair (the interaction lines)
                if not inside and not (_told_bar(line, patient) and not asked.another_form(line.text)):
                    continue
                # a bar named by what the turn tells follows the best line; the final order puts bars first
                told = 1.0 if inside else BAND_RUNNER_UP
                out.append(line.model_copy(update={"score": best * told * scope_fit(line, asked)}))
    out.sort(key=lambda line: not (decision and directs(line)))  # stable: else the book's order
    return out[:MAX_LINES]


def scope_fit(line: RankedLine, asked: AskedFor) -> float:
    """A dose line whose lead-in names a condition the question does not ask about doses another
    indication, and a line opening with a form the question does not name is about another form
    (`duocthu.retrieval.scopes`): each weighed as a line for another patient's band."""
    another = line.section_key == DOSE_SECTION and asked.doses_another(scoped(line.lead, line.text))
    form = f"{line.lead}: {line.text}" if line.lead else line.text
    return 1 / (1 + BAND_PRIOR) if another or asked.another_form(form) else 1.0


def _prior(
    line: RankedLine,
    candidates: Sequence[str],
    patient: PatientProfile | None,
    decision: bool = False,
    asked: AskedFor = NOTHING_ASKED,
) -> float:
    """The candidate sections' prior, and the patient's band: a line in it answers for them in a
    section asked or one a prescribing decision reads (an indication "từ 2 tuổi" says who the
    drug is for, not what to give), one outside every band it states answers for another
    wherever it stands; for a question whether to use the drug (`decision`), a line that directs."""
    fit = line_fit(line.drug_id, line.lead, line.text, patient)
    prior = 1 + SECTION_PRIOR if line.section_key in candidates else 1.0
    prior *= 1 + DIRECTIVE_PRIOR if decision and directs(line) else 1.0
    decides = line.section_key in candidates or line.section_key in DECISION_SECTIONS
    return prior * (fit if decides else min(fit, 1.0)) * scope_fit(line, asked)


def part_line(part: EvidenceItem, text: str, index: int, score: float) -> RankedLine:
    """A sentence (or a clause of it) of a part as a ranked line, cited as the part is."""
    return RankedLine(
        lead=line_lead(part.section_key, part.text, index), text=text, drug_id=part.drug_id,
        display_name=part.display_name, section_key=part.section_key,
        part_id=part.id, part_index=part.part_index, line_index=index, score=score,
        source_refs=part.source_refs, needs_visual_check=part.needs_visual_check,
    )  # fmt: skip

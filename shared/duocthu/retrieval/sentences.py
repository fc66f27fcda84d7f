"""How one sentence of a monograph's safety section stands to this patient (used by
`duocthu.retrieval.safety`): whether it is about them at all, and whether it reads as a
contraindication, a caution or a statement that nothing changes for them.

A contraindications sentence naming the patient's anchor is CONTRAINDICATED, but CAUTION when it
says it is not (or only relatively) a contraindication; when it names a kidney or liver level or a
pregnancy stage the patient is outside of (`levels`; a level the turn does not give keeps the
contraindication: it may be the patient's); when it holds only with a medicine taken together or
for an age group the patient is not known to be in; when it names the patient's state only as what
the drug may bring on. A clause of another section saying no change is needed, without reserve, at
the patient's level, is NO_CHANGE_STATED. Cue words are data (`data/patient_cues.tsv`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from duocthu.core.caching import text_cache
from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import CONTRAINDICATION_SECTION
from duocthu.core.sentences import split_sentences
from duocthu.core.tables import table_records
from duocthu.core.text import raw_words, words
from duocthu.core.vocabulary import FacetStatus
from duocthu.models.evidence import SafetyFacet
from duocthu.retrieval.facets import AGE_CONCEPTS, FacetQuery, PatientProfile, anchor_table
from duocthu.retrieval.interactions import phrase_in, phrases_in
from duocthu.retrieval.levels import SCALES, patient_band, relation, sentence_bands
from duocthu.retrieval.limits import limits_in, patient_inside

# Whole sentences: "không phải là chống chỉ định ..., nhưng ...; ..." qualifies its clauses after ";" too.


# A part's sentences, kept per process: a patient turn reads its candidates' safety sections
# sentence by sentence, the same parts for every patient checked for those drugs, and a part is
# longer than core's text cache keeps (its text and sentences, ~4 KB a part: ~8 MB at most here).
part_sentences = lru_cache(maxsize=2048)(split_sentences)


@lru_cache(maxsize=1)
def cues() -> Mapping[str, tuple[str, ...]]:
    cues: dict[str, list[str]] = {}
    for row in table_records("patient_cues.tsv"):
        cues.setdefault(row["kind"], []).append(row["phrase"])
    return {kind: tuple(phrases) for kind, phrases in cues.items()}


@text_cache(maxsize=8192)  # the book's sentences recur across turns: read once per kind
def has_cue(sentence: str, kind: str) -> bool:
    """Whether a cue of `kind` stands in the sentence (the diacritics rule, the cue as typed)."""
    return phrases_in(words(sentence), cues()[kind])


def no_change_words(sentence: str) -> str | None:
    """The words of a sentence that say no change is needed, as written ("không cần điều chỉnh
    liều"): what a table cell quotes for a facet that states no change."""
    tokens = raw_words(sentence)
    for phrase in cues()["no_change"]:
        start = next(phrase_starts(tokens, words(phrase), lenient=True), None)
        if start is not None:
            return " ".join(tokens[start : start + len(words(phrase))])
    return None


def advice(text: str) -> tuple[str, ...]:
    """The one sentence of a section-route part a compact answer quotes: the first with the
    strongest advice (data/patient_cues.tsv), else the first sentence."""
    sentences = split_sentences(text)
    for phrase in cues()["advice"]:
        for sentence in sentences:
            if phrase_in(words(sentence), phrase):
                return (sentence,)
    return tuple(sentences[:1])


def _not_a_contraindication(sentence: str) -> bool:
    tokens = words(sentence)
    return any(phrase_in(tokens, p) for p in anchor_table().not_contraindication)


def _at_level(profile: PatientProfile, sentence: str, named: frozenset[str], may_be: bool = False) -> bool:
    """The sentence speaks of the patient's own level: it names an anchor without levels, or a
    kidney, liver or pregnancy level the patient is inside (or names that concept with no level);
    with `may_be`, also one the patient may be at ("suy thận" against "suy thận nặng", a pregnancy
    of unknown stage against "3 tháng cuối")."""
    accepted: tuple[str | None, ...] = (None, "inside", "unknown") if may_be else (None, "inside")
    leveled = named & SCALES.keys()
    if not leveled or named - leveled:
        return True
    tokens = words(sentence)
    spans = anchor_table().index.matches(tokens)
    for concept in leveled:
        mentions = [range(m.start, m.start + m.length) for m in spans if m.value == concept]
        others = [m.start for m in spans if m.value != concept]
        bands = sentence_bands(sentence, concept, mentions, others)
        if relation(patient_band(profile.level_text(concept), concept), bands) in accepted:
            return True
    return False


# A pregnant or nursing patient's sentence that names a newborn or a child names the baby at risk
# ("độc tính trên thai nhi và trẻ sơ sinh", "hạ glucose huyết ở trẻ bú mẹ"), not another patient.
MOTHER_CONCEPTS: frozenset[str] = frozenset({"pregnancy", "breastfeeding"})


def _for_someone_else(
    profile: PatientProfile, sentence: str, facet: SafetyFacet, named: frozenset[str]
) -> bool:
    """A contraindication that holds for another patient than this one as far as the turn tells:
    only with a medicine taken together ("Chống chỉ định phối hợp ... với aliskiren ở người suy
    thận": the interaction facet reads the patient's medicines), or for an age group, a pregnancy
    or breastfeeding the patient is not known to be in ("Với dạng tiêm cho trẻ sơ sinh đẻ non: ...
    suy thận rõ")."""
    if facet == "warnings" and has_cue(sentence, "coadministration"):
        return True
    if named & MOTHER_CONCEPTS:
        return False
    # "Trong thời kỳ mang thai, không dùng … để điều trị phù hay tăng huyết áp": for a patient not
    # said to be pregnant, a contraindication of pregnancy is someone else's, as an age group is
    groups = anchor_table().concepts_in(sentence) & (AGE_CONCEPTS | MOTHER_CONCEPTS)
    return bool(groups - profile.stated_concepts())


# Words a consequence cue may stand before the state it brings on: "gây ra tình trạng suy thận".
CONSEQUENCE_GAP = 2


def only_as_consequence(sentence: str, named: frozenset[str]) -> bool:
    """Every mention of the patient's states (other than age) in the sentence is what something
    may bring on ("Không dùng ở người hẹp động mạch thận hai bên, vì thuốc có thể gây suy thận
    cấp"), `data/patient_cues.tsv` consequence: the sentence is not about a patient in that state."""
    tokens = words(sentence)
    states = named - AGE_CONCEPTS
    mentions = [m.start for m in anchor_table().index.matches(tokens) if m.value in states]
    spans = [(i, i + len(words(p))) for p in cues()["consequence"] for i in phrase_starts(tokens, words(p))]
    # the cue starts before the mention and ends at most a gap before it, or inside it ("làm suy
    # giảm" over "suy giảm chức năng thận")
    return bool(mentions) and all(
        any(start < m <= end + CONSEQUENCE_GAP for start, end in spans) for m in mentions
    )


def _a_past_reaction(profile: PatientProfile, sentence: str, named: frozenset[str]) -> bool:
    """The sentence names the patient's kidney or liver only as a past reaction to a drug
    (`data/patient_cues.tsv` past_reaction), and the patient tells no past reaction: it is not
    about their organ's level."""
    context = profile.context
    organs = named & {"renal", "hepatic"}
    told = context.adverse_reactions or context.allergies
    return bool(organs) and organs == named and not told and has_cue(sentence, "past_reaction")


def _states_no_change(query: FacetQuery, profile: PatientProfile, sentence: str) -> bool:
    """Every clause naming the patient says, without reserve and at the patient's level, that no
    change is needed: "Người cao tuổi và người suy thận: không cần chỉnh liều; người suy gan: dùng
    thận trọng" states no change for the kidney, not for the liver."""
    clauses = [(c, keys) for c in sentence.split(";") if (keys := query.named_in(c))]
    return bool(clauses) and all(
        has_cue(c, "no_change") and not has_cue(c, "reserve") and _at_level(profile, c, keys)
        for c, keys in clauses
    )


def _taken_together(query: FacetQuery, sentence: str) -> bool:
    """A word of taking together in a clause that names the medicine taken (or its class): "…
    khi dùng thuốc ức chế enzym chuyển cần được đánh giá kỹ; nếu … khi đang dùng losartan …" names
    the class only as a past reaction's cause, and takes nothing with it."""
    return any(has_cue(c, "coadministration") for c in sentence.split(";") if query.named_in(c))


def sentence_status(
    query: FacetQuery, profile: PatientProfile, section: str, sentence: str, named: frozenset[str]
) -> FacetStatus | None:
    """How one sentence naming the patient's anchors stands to this patient: None when it is not
    about them after all (an age or weight limit the patient is outside; a medicine's class named
    in a contraindication without a word of taking the two together)."""
    contraindication = section == CONTRAINDICATION_SECTION
    if query.facet == "interaction" and contraindication and not _taken_together(query, sentence):
        return None
    if named <= AGE_CONCEPTS:
        inside = patient_inside(limits_in(sentence), profile.age_years, profile.weight_kg)
        if inside is False:
            return None
        # a bare "trẻ em", or a limit on what the turn does not give: read it, not a verdict
        contraindication = contraindication and inside is True
    elif query.facet != "interaction":
        # A severity or stage the patient is outside of is quoted as a caution. One the turn does
        # not tell stays a contraindication (its sentence, which names the level, is quoted): a
        # contraindication that may apply is never shown as a caution.
        contraindication = contraindication and _at_level(profile, sentence, named, may_be=True)
        contraindication = contraindication and not _for_someone_else(profile, sentence, query.facet, named)
        contraindication = contraindication and not only_as_consequence(sentence, named)
        contraindication = contraindication and not _a_past_reaction(profile, sentence, named)
        if section != CONTRAINDICATION_SECTION and _states_no_change(query, profile, sentence):
            return "NO_CHANGE_STATED"
    if contraindication and not _not_a_contraindication(sentence):
        return "CONTRAINDICATED"
    return "CAUTION"

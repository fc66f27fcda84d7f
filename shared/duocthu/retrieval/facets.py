"""The patient's stage-2 searches (`duocthu.retrieval.safety`): from the patient a turn describes,
what each safety facet searches for, in which sections, and what a part must name to count.

A clinical anchor (`data/clinical_anchors.tsv`) is a concept both sides must name: kidney or liver
function, a named disease, pregnancy, breastfeeding, an age band. Overlap on generic words
("chức năng", "suy", "nặng") never counts. A patient term the table does not know anchors as
itself, a whole-word phrase once generic words are trimmed from its ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Literal

from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.labs import patient_labs
from duocthu.core.measures import CHILD_BELOW_YEARS, ELDERLY_FROM_YEARS, extract_age
from duocthu.core.phrases import PhraseIndex, word_places
from duocthu.core.sections import CONTRAINDICATION_SECTION, INTERACTION_SECTION
from duocthu.core.tables import table_records
from duocthu.core.terms import names_finding
from duocthu.core.text import fold, typed_matches, typed_token, words
from duocthu.core.vocabulary import POPULATIONS, Population
from duocthu.models.evidence import SafetyFacet
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.retrieval.interactions import classes_named
from duocthu.retrieval.levels import SCALES, patient_band

# The sections each facet searches, and no other.
FACET_SECTIONS: Mapping[SafetyFacet, tuple[str, ...]] = {
    "interaction": (INTERACTION_SECTION,),
    "warnings": ("chong_chi_dinh", "than_trong"),
    "dosage": ("lieu_luong_va_cach_dung",),
    "pregnancy": ("thoi_ky_mang_thai",),
    "breastfeeding": ("thoi_ky_cho_con_bu",),
}
# Concepts that change a dose: organ function and age. A disease or pregnancy is a warning, not a
# dosing context.
DOSAGE_CONTEXT_CONCEPTS: frozenset[str] = frozenset({"renal", "hepatic", "child", "neonate", "elderly"})
NEONATE_BELOW_YEARS = 28 / 365
# Concepts a sentence may bound by age or weight ("trẻ em dưới 3 tháng tuổi"): duocthu.retrieval.limits
AGE_CONCEPTS: frozenset[str] = frozenset({"child", "neonate"})


# --- The anchor table ------------------------------------------------------------------------


@dataclass(frozen=True)
class AnchorTable:
    """data/clinical_anchors.tsv, loaded and checked (see the file's header for the kinds)."""

    concepts: Mapping[str, tuple[str, ...]]  # concept -> its phrases
    by_population: Mapping[str, str]  # frame population value -> concept
    generic: frozenset[str]  # words that never count (NFC, case-folded, marks kept)
    not_contraindication: tuple[str, ...]
    index: PhraseIndex[str]  # phrase -> concept, for reading a patient's terms

    def concepts_in(self, term: str) -> frozenset[str]:
        """The concepts a patient term names (typed without marks, it matches the folded form)."""
        return frozenset(m.value for m in self.index.matches(words(term)))

    def own_phrase(self, term: str) -> str | None:
        """A term the table does not know, as the phrase it anchors on: generic words trimmed from
        both ends; None when nothing specific is left."""
        tokens = words(term)
        while tokens and tokens[0] in self.generic:
            tokens.pop(0)
        while tokens and tokens[-1] in self.generic:
            tokens.pop()
        return " ".join(tokens) or None


@lru_cache(maxsize=1)
def anchor_table() -> AnchorTable:
    rows = table_records("clinical_anchors.tsv")
    generic = frozenset(w for r in rows if r["kind"] == "generic" for w in words(r["phrase"]))
    concepts: dict[str, list[str]] = {}
    by_population: dict[str, str] = {}
    negations: list[str] = []
    index: PhraseIndex[str] = PhraseIndex()
    for number, row in enumerate(rows, start=2):
        concept, phrase, kind = row["concept"], row["phrase"].strip(), row["kind"]
        where = f"clinical_anchors.tsv row {number} ({phrase!r})"
        if kind == "anchor":
            if not set(words(phrase)) - generic:
                raise ValueError(f"{where}: an anchor made of generic words only")
            concepts.setdefault(concept, []).append(phrase)
            index.add(phrase, concept)
        elif kind == "population":
            if phrase not in POPULATIONS:
                raise ValueError(f"{where}: not a population value")
            by_population[phrase] = concept
        elif kind == "not_contraindication":
            negations.append(phrase)
        elif kind != "generic":
            raise ValueError(f"{where}: unknown kind {kind!r}")
    unknown = sorted(set(by_population.values()) - concepts.keys())
    if unknown:
        raise ValueError(f"clinical_anchors.tsv: populations name concepts without phrases: {unknown}")
    return AnchorTable(
        concepts={c: tuple(p) for c, p in concepts.items()},
        by_population=by_population,
        generic=generic,
        not_contraindication=tuple(negations),
        index=index,
    )


# --- Facet queries ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Anchor:
    """Something a part must name to count: a concept, a patient's own phrase, or a medicine."""

    key: str  # the concept ("renal"), "term:<phrase>", or the medicine's drug_id
    phrases: tuple[str, ...]  # any one, as a whole-word phrase, names it


@dataclass(frozen=True, slots=True)
class FacetQuery:
    facet: SafetyFacet
    sections: tuple[str, ...]
    # lexical: the parts a lexical search finds; section: every part, each about the patient by
    # its section; read: every part of the sections, kept when it names an anchor
    route: Literal["lexical", "section", "read"]
    terms: tuple[str, ...] = ()  # the query source: the patient's own words for this facet
    anchors: tuple[Anchor, ...] = ()
    # a current medicine's classes ({drug_id: classes}, data/drug_classes.tsv) and the candidate's
    # own: a part naming the class names the medicine ("thuốc chống đông đường uống" for warfarin)
    classes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    own_classes: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        """The lexical query: this facet's terms and its anchors' phrases, nothing else."""
        phrases = [*self.terms, *(p for a in self.anchors for p in a.phrases)]
        return " ; ".join(dict.fromkeys(phrases))

    def named_in(self, text: str) -> frozenset[str]:
        """The anchors (keys) the text names; never a phrase standing inside a term that holds its
        words but is not it ("thiếu máu" in "bệnh tim thiếu máu cục bộ", data/distinct_terms.tsv)."""
        tokens, at = word_places(text)

        def names(phrase: tuple[tuple[str, bool], ...], head: str, needs: frozenset[str]) -> bool:
            if not needs <= at.keys():  # a word of the phrase is missing: it cannot stand here
                return False
            n = len(phrase)
            starts = (
                i
                for i in at[head]
                if i + n <= len(tokens)
                and all(typed_matches(q, t) for q, t in zip(phrase, tokens[i : i + n], strict=True))
            )
            return any(names_finding(tokens, i, n) for i in starts)

        read, heads = _read_anchors(self.anchors)
        named = (
            set()  # most of a section's sentences hold no first word of any anchor: one set test
            if at.keys().isdisjoint(heads)
            else {key for key, phrases in read if any(names(*p) for p in phrases)}
        )
        if self.classes:
            written = classes_named(text, affirmed_only=True, own=self.own_classes)
            named |= {drug for drug, classes in self.classes.items() if classes & written.keys()}
        return frozenset(named)


_Phrase = tuple[tuple[tuple[str, bool], ...], str, frozenset[str]]  # typed words, first folded, all


@lru_cache(maxsize=256)  # one entry per patient and facet: the anchors of a turn, read once
def _read_anchors(
    anchors: tuple[Anchor, ...],
) -> tuple[tuple[tuple[str, tuple[_Phrase, ...]], ...], frozenset[str]]:
    """Each anchor's phrases as words, with the folded words a text must hold for the phrase to
    stand in it under the diacritics rule (both sides fold to the same word); and the folded first
    words of them all (a text holding none of them names no anchor)."""
    read = tuple((a.key, tuple(_read_phrase(words(p)) for p in a.phrases if words(p))) for a in anchors)
    return read, frozenset(head for _, phrases in read for _, head, _ in phrases)


def _read_phrase(tokens: list[str]) -> _Phrase:
    """A phrase as typed tokens (`typed_token`), its first word folded, and its folded words."""
    return tuple(map(typed_token, tokens)), fold(tokens[0]), frozenset(map(fold, tokens))


@dataclass(frozen=True)
class PatientProfile:
    """The patient a turn describes: the frame's PatientContext plus the age facts the frame keeps
    outside it (population, age_text)."""

    context: PatientContext = field(default_factory=PatientContext)
    population: Population | None = None
    age_text: str | None = None
    weight_kg: float | None = None
    taking: frozenset[str] = frozenset()  # catalogue drugs among their medicines, where resolved

    @classmethod
    def from_frame(cls, frame: QueryFrame) -> PatientProfile:
        return cls(frame.patient_context, frame.population, frame.age_text, frame.weight_kg)

    @cached_property  # read for every sentence a patient's turn ranks
    def lab_values(self) -> dict[str, float]:
        """The laboratory values the patient's state gives, by lab (core.labs): the last told of
        each, as the conversation tells them in order (a new INR replaces the morning's)."""
        return {lab: value for told in self.context.labs for lab, value in patient_labs(told).items()}

    @property
    def age_years(self) -> float | None:
        return extract_age(self.age_text or "")[1]

    def is_empty(self) -> bool:
        return self.context.is_empty() and self.population in (None, "nguoi_lon") and not self.age_text

    def level_text(self, concept: str) -> str | None:
        """What the patient's state says of a concept's level (`duocthu.retrieval.levels`)."""
        c = self.context
        return {"renal": c.renal_function, "hepatic": c.hepatic_function, "pregnancy": c.pregnancy_stage}.get(
            concept
        )

    def levels_not_told(self) -> tuple[str, ...]:
        """The kidney, liver or pregnancy state the patient has without a level the turn gives
        ("suy thận", "đang mang thai"): a contraindication at some level counts as theirs."""
        stated = {"renal": self.context.renal_function, "hepatic": self.context.hepatic_function,
                  "pregnancy": self.pregnant}  # fmt: skip
        return tuple(c for c, s in stated.items() if s and patient_band(self.level_text(c), c) == SCALES[c])

    @property
    def pregnant(self) -> bool:
        return bool(self.context.pregnancy) or self.population == "phu_nu_co_thai"

    @property
    def breastfeeding(self) -> bool:
        return bool(self.context.breastfeeding) or self.population == "phu_nu_cho_con_bu"

    def stated_concepts(self) -> frozenset[str]:
        """Concepts the patient's state gives without words of its own: the population, an age
        band from the stated age, pregnancy and breastfeeding."""
        table = anchor_table()
        found = set()
        if self.population is not None and self.population in table.by_population:
            found.add(table.by_population[self.population])
        _, years = extract_age(self.age_text or "")
        if years is not None:
            if years < NEONATE_BELOW_YEARS:
                found.add("neonate")
            if years < CHILD_BELOW_YEARS:
                found.add("child")
            elif years >= ELDERLY_FROM_YEARS:
                found.add("elderly")
        if self.pregnant:
            found.add("pregnancy")
        if self.breastfeeding:
            found.add("breastfeeding")
        return frozenset(found)

    def interaction_query(self, resolver: CatalogDrugResolver, candidate: str) -> FacetQuery | None:
        """The candidate's interaction section, searched by the catalogue names of the patient's
        current medicines (the candidate itself left out); a medicine the catalogue does not know
        has no names and cannot match."""
        anchors: dict[str, Anchor] = {}
        for text in self.context.current_medications:
            for match in resolver.resolve(text):
                names = drug_names(resolver, match.drug_id)
                if match.drug_id != candidate and names:
                    anchors.setdefault(match.drug_id, Anchor(match.drug_id, names))
        if not anchors:
            return None
        # the candidate's contraindications too: "Phối hợp với thuốc chống đông đường uống" is a
        # contraindication of the patient's medicine (safety reads such a sentence only with a
        # word of taking the two together)
        return FacetQuery(
            "interaction",
            (*FACET_SECTIONS["interaction"], CONTRAINDICATION_SECTION),
            "read",
            terms=self.context.current_medications,
            anchors=tuple(anchors.values()),
        )

    def warning_query(self, resolver: CatalogDrugResolver) -> FacetQuery | None:
        c = self.context
        terms = (*c.comorbidities, *c.allergies, *c.adverse_reactions, *_present(c.renal_function),
                 *_present(c.hepatic_function), *c.labs)  # fmt: skip
        query = _anchored("warnings", terms, self.stated_concepts(), own_phrases=True)
        # An allergy to a catalogue drug (or a past reaction to one) anchors on every name the
        # formulary uses for it: a patient who writes "aspirin" is allergic to what the
        # monographs call "acid acetylsalicylic".
        allergens = [
            Anchor(f"allergy:{match.drug_id}", names)
            for text in (*c.allergies, *c.adverse_reactions)  # "phù mặt (aspirin)" names its cause
            for match in resolver.resolve(text)
            if (names := drug_names(resolver, match.drug_id))
        ]
        if not allergens:
            return query
        if query is None:
            return FacetQuery("warnings", FACET_SECTIONS["warnings"], "lexical", terms, tuple(allergens))
        return replace(query, anchors=(*query.anchors, *allergens))

    def dosage_context_query(self) -> FacetQuery | None:
        c = self.context
        terms = (*_present(c.renal_function), *_present(c.hepatic_function), *c.labs)
        return _anchored("dosage", terms, self.stated_concepts(), only=DOSAGE_CONTEXT_CONCEPTS)

    def facet_queries(self, resolver: CatalogDrugResolver, candidate: str) -> list[FacetQuery]:
        queries = [
            self.interaction_query(resolver, candidate),
            self.warning_query(resolver),
            self.dosage_context_query(),
        ]
        if self.pregnant:
            queries.append(FacetQuery("pregnancy", FACET_SECTIONS["pregnancy"], "section"))
        if self.breastfeeding:
            queries.append(FacetQuery("breastfeeding", FACET_SECTIONS["breastfeeding"], "section"))
        return [q for q in queries if q is not None]


def _present(value: str | None) -> tuple[str, ...]:
    return (value,) if value else ()


def _anchored(
    facet: SafetyFacet,
    terms: Sequence[str],
    stated: Iterable[str],
    *,
    own_phrases: bool = False,
    only: frozenset[str] | None = None,
) -> FacetQuery | None:
    table = anchor_table()
    concepts = set(stated)
    phrases: list[str] = []
    for term in terms:
        found = table.concepts_in(term)
        if found:
            concepts |= found
        elif own_phrases and (own := table.own_phrase(term)):
            phrases.append(own)
    if only is not None:
        concepts &= only
    anchors = [Anchor(c, table.concepts[c]) for c in sorted(concepts)]
    anchors += [Anchor(f"term:{p}", (p,)) for p in dict.fromkeys(phrases)]
    if not anchors:
        return None
    return FacetQuery(facet, FACET_SECTIONS[facet], "lexical", terms=tuple(terms), anchors=tuple(anchors))

"""The contraindication clauses that bar a drug for a patient's allergy or past reaction: a clause
stating a hypersensitivity to the drug the patient reacted to, by its name or by a class its
"Loại thuốc" puts it in (the cross-reactions the book writes: an anaphylaxis to amoxicillin is
one "với penicilin" in cefuroxime's contraindications). A drug outside the catalogue is classed
by its "Loại thuốc" in the kit's ATC table (data/world_classes.tsv, `outside_classes`).

A clause that names the kind of reaction it is about ("quá mẫn tức thì và nặng (như sốc phản vệ,
phù mạch …)") bars only a patient whose turn or recorded reactions name one of them: a rash is not the
reaction it excludes, and the clause, quoted among the answering lines, says so itself."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.conditions import find_conditions
from duocthu.core.sections import CONTRAINDICATION_SECTION
from duocthu.core.text import fold, words
from duocthu.models.evidence import EvidenceItem, FacetAssessment, RankedLine
from duocthu.models.frame import PatientContext
from duocthu.retrieval.answering import part_line
from duocthu.retrieval.interactions import classes_named, drug_classes, names_in, outside_classes
from duocthu.retrieval.sentences import part_sentences
from duocthu.store import VectorStore

# The book's words for a hypersensitivity: a clause holding none is about something else
HYPERSENSITIVITY = ("qua man", "di ung", "man cam", "phan ve")
# The reaction named by a hypersensitivity word itself, never a kind of one
_GENERIC = frozenset({"di ung", "qua man", "man cam"})


Allergens = dict[str, Sequence[str]]  # an allergen (a drug id, or "class:<class>"): its names
AllergenClasses = dict[str, frozenset[str]]


def allergens_told(
    store: VectorStore, resolver: CatalogDrugResolver, context: PatientContext
) -> tuple[Allergens, AllergenClasses]:
    """What the patient is allergic or reacted to: each catalogue drug named, with its names and
    the classes its "Loại thuốc" puts it in; an allergy told as a class ("dị ứng penicilin") is to
    every member, and so is one to a drug outside the catalogue, by its class in the ATC table."""
    told = (*context.allergies, *context.adverse_reactions)
    reacted = (m.drug_id for text in told for m in resolver.resolve(text))
    allergens: Allergens = {a: drug_names(resolver, a) for a in reacted}
    classes: AllergenClasses = {a: drug_classes(store, a) for a in allergens}
    outside = outside_classes(text for text in told if not resolver.resolve(text))
    for told_class in {c for text in told for c in classes_named(text, affirmed_only=True)} | outside:
        allergens[f"class:{told_class}"], classes[f"class:{told_class}"] = (), frozenset({told_class})
    return allergens, classes


# The signs by which a clinician tells an immediate, severe reaction without naming it ("phù mặt,
# khó thở, phải cấp cứu"), folded and read in the recorded reaction only: a clause barring the drug
# for "quá mẫn tức thì và nặng (như sốc phản vệ, phù mạch …)" bars it for such a patient too, its
# examples being examples
SEVERE_SIGNS = ("kho tho", "tho rit", "phu mat", "phu moi", "sung mat", "sung moi", "phu thanh quan",
                "tut huyet ap", "cap cuu")  # fmt: skip
IMMEDIATE = "phan ve"  # the kind a clause about an immediate, severe reaction names


def reactions_named(text: str) -> frozenset[str]:
    """The kinds of reaction a text names (folded): the conditions it names, and an anaphylaxis."""
    named = {fold(c.normalized) for c in find_conditions(text)} - _GENERIC
    return frozenset(named | ({IMMEDIATE} if IMMEDIATE in fold(text) else set()))


def severe_signs(reactions: Iterable[str]) -> bool:
    """A recorded reaction told by the signs of an immediate, severe one (`SEVERE_SIGNS`)."""
    folded = [f" {' '.join(words(fold(r)))} " for r in reactions]
    return any(f" {sign} " in text for text in folded for sign in SEVERE_SIGNS)


def allergy_lines(
    store: VectorStore,
    drug_id: str,
    allergens: Mapping[str, Sequence[str]],
    classes: Mapping[str, frozenset[str]],
    told: str,
    severe: bool = False,
) -> list[RankedLine]:
    """The clauses of the drug's contraindications that bar it for a patient allergic to (or who
    reacted to) `allergens` (drug id: its names), named or by one of their `classes`; `told`: the
    turn's words and the reactions recorded, read for the kind of reaction the patient had;
    `severe`: a recorded reaction had the signs of an immediate, severe one (`severe_signs`)."""
    had = reactions_named(told) | ({IMMEDIATE} if severe else set())
    out: list[RankedLine] = []
    for part in store.find_by_section(drug_id, CONTRAINDICATION_SECTION):
        for index, sentence in enumerate(part_sentences(part.text)):
            for clause in sentence.split(";"):
                folded = fold(clause)
                kinds = reactions_named(clause)
                # a hypersensitivity clause, or one naming the kind of reaction this patient had
                # ("Tiền sử phản ứng phản vệ … sau khi dùng penicilin là chống chỉ định tuyệt đối")
                if not any(word in folded for word in HYPERSENSITIVITY) and not kinds & had:
                    continue
                named_classes = set(classes_named(clause, affirmed_only=True))
                about = names_in(clause, allergens) or {
                    a for a in allergens if classes.get(a, frozenset()) & named_classes
                }
                if about and (not kinds or kinds & had):
                    out.append(part_line(part, clause.strip(), index, 0.0))
    # a clause naming the kind of reaction this patient had is about them: it is quoted first
    out.sort(key=lambda line: not (reactions_named(line.text) & had))  # stable: else book order
    return out


@dataclass(frozen=True)
class AllergyReading:
    """What a patient is allergic or reacted to, read once for every drug a list checks."""

    allergens: Allergens
    classes: AllergenClasses
    told: str  # the allergies and reactions recorded, read for the kind of reaction
    severe: bool  # a recorded reaction had the signs of an immediate, severe one

    def bars(self, store: VectorStore, drug_id: str) -> list[RankedLine]:
        return allergy_lines(store, drug_id, self.allergens, self.classes, self.told, self.severe)


def allergy_reading(
    store: VectorStore, resolver: CatalogDrugResolver, context: PatientContext, said: str = ""
) -> AllergyReading | None:
    """The patient's allergies and past reactions as the bars read them, the kind of reaction as
    the turn (`said`) or the conversation's record tells it; None without a drug or class they name."""
    told = (*context.allergies, *context.adverse_reactions)
    allergens, classes = allergens_told(store, resolver, context) if told else ({}, {})
    if not allergens:
        return None
    return AllergyReading(
        allergens, classes, " ".join((said, *told)), severe_signs(context.adverse_reactions)
    )


def with_allergy_bars(
    store: VectorStore,
    drug_id: str,
    allergy: AllergyReading | None,
    facets: tuple[FacetAssessment, ...],
    evidence: list[EvidenceItem],
) -> tuple[tuple[FacetAssessment, ...], list[EvidenceItem]]:
    """A listed drug whose contraindications bar it for what the patient is allergic or reacted
    to, by name or by class (`allergy_lines`: "quá mẫn … với penicilin" after an anaphylaxis to
    amoxicillin), as a drug asked by name is: its warnings contraindicated, the clause quoted first."""
    bars = allergy.bars(store, drug_id) if allergy else []
    if not bars:
        return facets, evidence
    parts = {p.id: p for p in store.find_by_section(drug_id, CONTRAINDICATION_SECTION)}
    barring = [parts[line.part_id] for line in bars if line.part_id in parts]
    quotes = tuple(line.text for line in bars)
    ids = tuple(dict.fromkeys(p.id for p in barring))
    warned = FacetAssessment(facet="warnings", status="CONTRAINDICATED", evidence_ids=ids, quotes=quotes)
    merged = [
        f.model_copy(
            update={
                "status": "CONTRAINDICATED",
                "evidence_ids": tuple(dict.fromkeys((*ids, *f.evidence_ids))),
                "quotes": tuple(dict.fromkeys((*quotes, *f.quotes))),
            }
        )
        if f.facet == "warnings"
        else f
        for f in facets
    ]
    if not any(f.facet == "warnings" for f in facets):
        merged.append(warned)
    have = {item.id for item in evidence}
    return tuple(merged), [*(p for p in dict.fromkeys(barring) if p.id not in have), *evidence]

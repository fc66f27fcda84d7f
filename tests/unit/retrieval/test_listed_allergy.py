"""A listed drug checked for a patient's allergy or past reaction as a drug asked by name is
(`allergy.with_allergy_bars`, `allergy.allergy_lines`): a clause of its contraindications naming
the allergen or its class bars it, when the clause's kind of reaction is the patient's."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import PatientContext
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.interactions import reacted_to
from duocthu.retrieval.safety import retrieve_patient_drug_context
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore


def _warnings(store: EdgeStore, catalog: Catalog, context: PatientContext) -> tuple[str, tuple[str, ...]]:
    profile = PatientProfile(context, "tre_em", "4 tuổi", 16.0)
    bundle = retrieve_patient_drug_context(store, CatalogDrugResolver(catalog), ["cefuroxim"], profile)
    assessment = next(c for c in bundle.candidate_statuses if c.drug_id == "cefuroxim")
    warnings = next(f for f in assessment.facets if f.facet == "warnings")
    return warnings.status, warnings.quotes


def test_a_class_cross_reaction_bars_a_listed_drug(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    store, catalog, _ = sample_index
    # an anaphylaxis to amoxicillin is one "với penicilin" in cefuroxime's contraindications
    status, quotes = _warnings(store, catalog, PatientContext(allergies=("amoxicilin (sốc phản vệ)",)))
    assert status == "CONTRAINDICATED" and any("penicilin" in q for q in quotes)
    # a rash is not the immediate, severe reaction that clause is about
    status, quotes = _warnings(store, catalog, PatientContext(adverse_reactions=("nổi mẩn (amoxicilin)",)))
    assert not any("penicilin" in q for q in quotes)
    # face swelling and breathlessness needing emergency care are the signs of such a reaction
    told = PatientContext(adverse_reactions=("phù mặt khó thở phải cấp cứu (amoxicilin)",))
    status, quotes = _warnings(store, catalog, told)
    assert status == "CONTRAINDICATED" and any("penicilin" in q for q in quotes)


def test_the_reaction_the_turn_tells_picks_the_clause_about_it(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    """The allergy recorded without its kind ("penicilin"), the turn telling it ("sốc phản vệ"):
    amoxicillin's clause naming that reaction bars and is quoted first, though it says "phản ứng
    phản vệ" rather than "quá mẫn"."""
    store, catalog, _ = sample_index
    profile = PatientProfile(PatientContext(allergies=("penicilin",)), "nguoi_lon", "22 tuổi", None)
    said = "tiền sử sốc phản vệ với penicilin năm 2019, thay bằng gì?"
    resolver = CatalogDrugResolver(catalog)
    bundle = retrieve_patient_drug_context(store, resolver, ["amoxicilin"], profile, said=said)
    warnings = next(f for c in bundle.candidate_statuses for f in c.facets if f.facet == "warnings")
    assert warnings.status == "CONTRAINDICATED"
    assert "là chống chỉ định tuyệt đối" in warnings.quotes[0]
    # not told: the hypersensitivity clause still bars, quoted first
    bundle = retrieve_patient_drug_context(store, resolver, ["amoxicilin"], profile)
    warnings = next(f for c in bundle.candidate_statuses for f in c.facets if f.facet == "warnings")
    assert warnings.status == "CONTRAINDICATED" and "quá mẫn" in warnings.quotes[0]


def test_the_class_of_a_drug_reacted_to_names_it_in_the_lines_of_the_drug_asked(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # cefuroxime's lines name amoxicillin only by its class: "dị ứng nhẹ … với penicilin"
    store, catalog, _ = sample_index
    context = PatientContext(adverse_reactions=("nổi ban ngứa (amoxicillin)",))
    together = dict(reacted_to(store, CatalogDrugResolver(catalog), context, ("cefuroxim",)))
    assert "amoxicilin" in together and together.get("penicilin") == ("penicilin",)
    assert not reacted_to(store, CatalogDrugResolver(catalog), context, ("amoxicilin",))

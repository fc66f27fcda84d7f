"""The safety facets read the text, not the words (issue 25): age and weight limits compared with
the patient's, a current medicine's class named in a contraindication, the alternative a section
names, a section the monograph lacks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, RankedDrug
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.limits import Limit, bands_in, limits_in, patient_inside
from duocthu.retrieval.safety import (
    NameIndex,
    _preferred,
    named_alternatives,
    preferred_in_state,
    retrieve_patient_drug_context,
    with_patient_safety,
)
from duocthu.store.edge import EdgeStore

from tests.factories import publish, section_chunks

PARTS: dict[str, dict[str, list[str]]] = {
    "ibuxen": {
        "loai_thuoc": ["Thuốc chống viêm không steroid."],
        "chi_dinh": ["Giảm đau đầu, đau răng."],
        "chong_chi_dinh": [
            "Trẻ em dưới 3 tháng tuổi hoặc cân nặng dưới 5 kg.",
            "Phối hợp với thuốc chống đông đường uống.",
            "Hen phế quản khởi phát do thuốc chống đông.",  # a class, no word of taking it with
        ],
        "tuong_tac_thuoc": ["Thuốc chống đông (coumadol): tăng nguy cơ chảy máu."],
    },
    "paranol": {
        "loai_thuoc": ["Thuốc giảm đau, hạ sốt."],
        "chi_dinh": ["Giảm đau đầu và hạ sốt ở trẻ em mọi lứa tuổi."],
        "chong_chi_dinh": ["Không dùng chế phẩm người lớn cho trẻ em."],  # a bare "trẻ em"
        "than_trong": ["Trẻ em không dùng quá 5 ngày."],
    },
    "coumadol": {
        "loai_thuoc": ["Thuốc chống đông máu đường uống, kháng vitamin K."],
        "tuong_tac_thuoc": [
            "Thuốc chống viêm không steroid như ibuxen: nên tránh, nếu cần giảm đau ưu tiên paranol."
        ],
    },
}
TITLES = {"ibuxen": "Ibuxen", "paranol": "Paranol", "coumadol": "Coumadol"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("reading")))
    publish(edge, section_chunks(PARTS, TITLES))
    yield edge
    edge.close()


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    drugs = tuple(CatalogDrug(drug_id=d, title=t, aliases=()) for d, t in TITLES.items())
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))


def statuses(bundle: EvidenceBundle, drug_id: str) -> dict[str, tuple[str, bool]]:
    assessment = next(c for c in bundle.candidate_statuses if c.drug_id == drug_id)
    return {f.facet: (f.status, f.section_absent) for f in assessment.facets}


# -- limits as data -----------------------------------------------------------------------------


def test_limits_are_read_with_their_measure_and_band() -> None:
    assert limits_in("Trẻ em dưới 3 tháng tuổi hoặc cân nặng dưới 5 kg.") == (
        Limit("age", 0.25),
        Limit("weight", 5.0),
    )
    assert limits_in("trẻ từ 2 đến dưới 6 tuổi dùng dung dịch") == (Limit("age", 6.0, 2.0),)
    assert limits_in("Trẻ em và thiếu niên dưới 16 tuổi bị sốt") == (Limit("age", 16.0),)
    assert limits_in("Trẻ em dùng liều theo cân nặng.") == ()


def test_the_patient_is_inside_a_limit_outside_it_or_unmeasured() -> None:
    infants = limits_in("Trẻ em dưới 3 tháng tuổi hoặc cân nặng dưới 5 kg.")
    assert patient_inside(infants, age_years=3.0, weight_kg=None) is False  # a 3-year-old
    assert patient_inside(infants, age_years=2 / 12, weight_kg=None) is True
    assert patient_inside(infants, age_years=None, weight_kg=4.0) is True
    assert patient_inside(infants, age_years=None, weight_kg=None) is None
    assert patient_inside(limits_in("trẻ từ 2 đến dưới 6 tuổi"), age_years=1.0, weight_kg=None) is False


def test_an_open_band_of_childrens_ages_ends_with_childhood() -> None:
    # "Trẻ em từ 1 tuổi" is no line for a man of 55; "Người lớn và trẻ em từ 12 tuổi" is
    children = bands_in("Trẻ em từ 1 tuổi và cân nặng từ 10 kg trở lên (đường uống): 10 mg/ngày")
    assert patient_inside(children, age_years=55.0, weight_kg=None) is False
    assert patient_inside(children, age_years=8.0, weight_kg=None) is True
    for with_adults in (
        "Người lớn và trẻ em từ 12 tuổi trở lên: 1 g",
        "trẻ từ 12 tuổi và người lớn 10–20 mg",
    ):
        assert patient_inside(bands_in(with_adults), age_years=55.0, weight_kg=None) is True
    # a sentence whose lead-in names children: each open age band in it is a child's
    dose = bands_in("Trẻ em: dưới 5 tuổi 0,5 mg/ngày; từ 5 đến 10 tuổi 1 mg/ngày; trên 10 tuổi 1,5 mg/ngày")
    assert patient_inside(dose, age_years=45.0, weight_kg=None) is False
    assert patient_inside(dose, age_years=12.0, weight_kg=None) is True


# -- age and weight in the facets ---------------------------------------------------------------


def child(age: str | None = None, weight: float | None = None) -> PatientProfile:
    return PatientProfile(PatientContext(), "tre_em", age, weight)


def test_an_infant_contraindication_is_not_a_three_year_olds(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    older = retrieve_patient_drug_context(store, resolver, ["ibuxen"], child("3 tuổi"))
    assert statuses(older, "ibuxen")["warnings"] == ("INSUFFICIENT_EVIDENCE", False)
    infant = retrieve_patient_drug_context(store, resolver, ["ibuxen"], child("2 tháng tuổi"))
    assert statuses(infant, "ibuxen")["warnings"][0] == "CONTRAINDICATED"
    light = retrieve_patient_drug_context(store, resolver, ["ibuxen"], child(weight=4.0))
    assert statuses(light, "ibuxen")["warnings"][0] == "CONTRAINDICATED"


def test_a_bare_child_mention_in_the_contraindications_is_read_not_a_verdict(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    bundle = retrieve_patient_drug_context(store, resolver, ["paranol"], child("3 tuổi"))
    assert statuses(bundle, "paranol")["warnings"][0] == "CAUTION"


# -- a current medicine by its class ------------------------------------------------------------


def test_a_contraindication_naming_the_medicines_class_is_contraindicated(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    profile = PatientProfile(PatientContext(current_medications=("coumadol",)))
    bundle = retrieve_patient_drug_context(store, resolver, ["ibuxen"], profile)
    assessment = bundle.candidate_statuses[0]
    interaction = next(f for f in assessment.facets if f.facet == "interaction")
    assert interaction.status == "CONTRAINDICATED"
    assert "Phối hợp với thuốc chống đông đường uống." in interaction.quotes
    # the class named for another reason (a reaction it caused) is not about the patient's medicine
    assert not any("Hen phế quản" in q for q in interaction.quotes)


def test_a_facet_whose_sections_the_monograph_lacks_says_so(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    profile = PatientProfile(PatientContext(pregnancy=True))
    bundle = retrieve_patient_drug_context(store, resolver, ["paranol"], profile)
    assert statuses(bundle, "paranol")["pregnancy"] == ("INSUFFICIENT_EVIDENCE", True)


# -- the alternative a section names ------------------------------------------------------------


def test_the_alternative_a_medicines_section_names_is_quoted_and_checked(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    found = named_alternatives(store, resolver, ["coumadol"], ["ibuxen", "coumadol"])
    assert [(a.source_drug_id, a.drug_id) for a, _ in found] == [("coumadol", "paranol")]  # never ibuxen
    frame = QueryFrame(
        turn_type="symptom_to_drug",
        patient_context=PatientContext(current_medications=("coumadol",)),
    )
    stage_one = EvidenceBundle(
        decision="ANSWERABLE",
        reason="grounded_evidence_available",
        evidence=tuple(store.find_by_section("ibuxen", "chi_dinh")),
        ranked_drugs=(RankedDrug(drug_id="ibuxen", display_name="Ibuxen", score=1.0),),
    )
    bundle = with_patient_safety(stage_one, store, resolver, frame)
    assert [c.drug_id for c in bundle.candidate_statuses] == ["ibuxen", "paranol"]
    assert [a.drug_id for a in bundle.named_alternatives] == ["paranol"]
    # each checked drug carries its whole contraindication section
    contraindications = {
        (e.drug_id, e.part_index) for e in bundle.evidence if e.section_key == "chong_chi_dinh"
    }
    assert contraindications == {("ibuxen", 0), ("ibuxen", 1), ("ibuxen", 2), ("paranol", 0)}


def test_a_drug_named_after_not_advised_is_never_the_alternative() -> None:
    avoid = "Phối hợp chống chỉ định hoặc không nên dùng: miconazol; các thuốc như ibuxen làm tăng chảy máu."

    def preferred(sentence: str, name: str) -> bool:
        tokens = words(sentence)
        return _preferred(tokens, NameIndex({"d": (name,)}).starts(tokens).get("d", []))

    assert not preferred(avoid, "ibuxen")
    assert preferred("Nên tránh ibuxen, nếu cần giảm đau ưu tiên paranol.", "paranol")
    assert preferred("Không nên dùng ibuxen; nên dùng paranol.", "paranol")


def test_a_drug_its_own_pregnancy_section_calls_preferred_is_offered_as_such(tmp_path: Path) -> None:
    parts = {
        "paranol": {
            "thoi_ky_mang_thai": ["Paranol qua nhau thai. Paranol là thuốc giảm đau được ưu tiên lựa chọn."]
        },
        # a preference the drug is denied, or one for something else, is no alternative
        "ibuxen": {"thoi_ky_mang_thai": ["Ibuxen không phải là lựa chọn ưu tiên khi mang thai."]},
        "coumadol": {
            "thoi_ky_mang_thai": ["Nên ưu tiên các biện pháp khác khi có thể; coumadol gây dị tật."]
        },
    }
    edge = EdgeStore(tmp_path)
    publish(edge, section_chunks(parts, TITLES))
    pregnant = PatientProfile(PatientContext(pregnancy=True))
    drugs = ["ibuxen", "paranol", "coumadol"]
    try:
        found = preferred_in_state(edge, _resolver(), drugs, pregnant)
        assert [(a.source_drug_id, a.drug_id) for a, _ in found] == [("paranol", "paranol")]
        assert found[0][0].text.startswith("Paranol là thuốc giảm đau được ưu tiên")
        assert (
            preferred_in_state(edge, _resolver(), drugs, PatientProfile(PatientContext(breastfeeding=True)))
            == []
        )
    finally:
        edge.close()


def _resolver() -> CatalogDrugResolver:
    drugs = tuple(CatalogDrug(drug_id=d, title=t, aliases=()) for d, t in TITLES.items())
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))

"""A patient's level against a sentence's (issue 25): kidney and liver severity in words and
numbers, pregnancy stage, and the sentences saying no change is needed. Invented drugs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import PatientContext
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.levels import patient_band, relation, sentence_bands
from duocthu.retrieval.safety import retrieve_patient_drug_context
from duocthu.retrieval.sentences import no_change_words
from duocthu.store.edge import EdgeStore

from tests.factories import publish, section_chunks

PARTS: dict[str, dict[str, list[str]]] = {
    "renomid": {
        "chong_chi_dinh": ["Suy gan nặng, suy thận nặng (độ thanh thải creatinin dưới 30 ml/phút)."],
        "lieu_luong_va_cach_dung": ["Người suy thận: không cần chỉnh liều; người suy gan: dùng thận trọng."],
    },
    "gestalin": {
        "chong_chi_dinh": ["Ba tháng cuối thai kỳ."],
        "thoi_ky_mang_thai": ["Trong 3 tháng đầu chỉ dùng khi thật cần thiết."],
    },
    "fetopril": {
        "chong_chi_dinh": [
            "Chống chỉ định trong 3 tháng giữa và 3 tháng cuối của thai kỳ do độc tính trên thai nhi "
            "và trẻ sơ sinh."
        ],
    },
    "hepamycin": {
        "chong_chi_dinh": ["Người có tiền sử rối loạn chức năng gan liên quan đến việc dùng hepamycin."],
    },
    "gravidol": {
        "chong_chi_dinh": ["Trong thời kỳ mang thai, không dùng gravidol để điều trị tăng huyết áp."],
    },
    "warnexin": {
        "chong_chi_dinh": ["Chống chỉ định phối hợp với aliskiren ở người suy thận."],
        "lieu_luong_va_cach_dung": ["Suy thận: không cần chỉnh liều ban đầu nhưng theo dõi chặt hơn."],
    },
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("levels")))
    publish(edge, section_chunks(PARTS))
    yield edge
    edge.close()


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    drugs = tuple(CatalogDrug(drug_id=d, title=d.title()) for d in PARTS)
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))


def facets(store: EdgeStore, resolver: CatalogDrugResolver, drug: str, **context: object) -> dict[str, str]:
    bundle: EvidenceBundle = retrieve_patient_drug_context(
        store,
        resolver,
        [drug],
        PatientProfile(PatientContext(**context)),  # type: ignore[arg-type]
    )
    assessment = bundle.candidate_statuses[0]
    assert assessment.status != "NO_CHANGE_STATED"  # never a candidate's status
    return {f.facet: f.status for f in assessment.facets}


def test_levels_are_bands_and_the_patient_is_inside_outside_or_unknown() -> None:
    # Given a contraindication naming severe kidney failure in words and in ml/min
    sentence = "Suy thận nặng (độ thanh thải creatinin dưới 30 ml/phút)."
    bands = sentence_bands(sentence, "renal", [range(0, 2)])
    # Then a stated clearance inside is inside, a mild patient outside, "suy thận" alone unknown
    assert relation(patient_band("clcr 20", "renal"), bands) == "inside"
    assert relation(patient_band("suy thận nhẹ", "renal"), bands) == "outside"
    assert relation(patient_band("egfr 50", "renal"), bands) == "outside"
    assert relation(patient_band("suy thận", "renal"), bands) == "unknown"
    assert relation(patient_band("suy thận", "renal"), ()) is None  # no level named: the concept as such
    # and pregnancy stages by trimester, week and month
    last = sentence_bands("Ba tháng cuối thai kỳ.", "pregnancy")
    assert relation(patient_band("thai 7 tháng", "pregnancy"), last) == "inside"
    assert relation(patient_band("tuần 10", "pregnancy"), last) == "outside"
    assert relation(patient_band(None, "pregnancy"), last) == "unknown"
    assert (
        relation(patient_band("tuần 21", "pregnancy"), sentence_bands("Từ tuần thứ 20 trở đi", "pregnancy"))
        == "inside"
    )


def test_a_level_word_belongs_to_the_organ_it_follows() -> None:
    sentence = "Suy gan nặng, suy thận nhẹ."
    assert sentence_bands(sentence, "renal", [range(3, 5)], [0]) == ((60.0, 90.0),)
    assert sentence_bands(sentence, "hepatic", [range(0, 2)], [3]) == ((3.0, 4.0),)


def test_severity_decides_the_contraindication(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    assert facets(store, resolver, "renomid", renal_function="suy thận nặng")["warnings"] == "CONTRAINDICATED"
    assert facets(store, resolver, "renomid", renal_function="egfr 25")["warnings"] == "CONTRAINDICATED"
    assert facets(store, resolver, "renomid", renal_function="suy thận nhẹ")["warnings"] == "CAUTION"
    # a level the turn does not give: the contraindication may be theirs, so it stays one (quoted)
    assert facets(store, resolver, "renomid", renal_function="suy thận")["warnings"] == "CONTRAINDICATED"
    assert (
        facets(store, resolver, "renomid", hepatic_function="xơ gan child pugh c")["warnings"]
        == "CONTRAINDICATED"
    )


def test_the_stage_decides_a_stage_bound_contraindication(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    assert facets(store, resolver, "gestalin", pregnancy=True, pregnancy_stage="thai 8 tháng")[
        "warnings"
    ] == ("CONTRAINDICATED")
    assert (
        facets(store, resolver, "gestalin", pregnancy=True, pregnancy_stage="tuần 10")["warnings"]
        == "CAUTION"
    )
    # the stage unknown: the contraindication may be theirs
    assert facets(store, resolver, "gestalin", pregnancy=True)["warnings"] == "CONTRAINDICATED"


def test_no_change_is_stated_per_clause_and_never_with_reserve(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given "Người suy thận: không cần chỉnh liều; người suy gan: dùng thận trọng"
    assert facets(store, resolver, "renomid", renal_function="suy thận")["dosage"] == "NO_CHANGE_STATED"
    assert facets(store, resolver, "renomid", hepatic_function="suy gan")["dosage"] == "CAUTION"
    # "không cần chỉnh liều ban đầu nhưng theo dõi": a caution
    assert facets(store, resolver, "warnexin", renal_function="suy thận")["dosage"] == "CAUTION"
    assert no_change_words("Suy thận: Không cần điều chỉnh liều.") == "Không cần điều chỉnh liều"


def test_a_contraindication_with_a_medicine_taken_together_is_a_caution_for_warnings(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    assert facets(store, resolver, "warnexin", renal_function="suy thận")["warnings"] == "CAUTION"


def test_a_newborn_named_in_a_pregnancy_contraindication_is_the_baby_at_risk(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # not "for an age group the patient is not known to be in": the mother is the patient
    assert facets(store, resolver, "fetopril", pregnancy=True)["warnings"] == "CONTRAINDICATED"
    early = facets(store, resolver, "fetopril", pregnancy=True, pregnancy_stage="tuần 8")
    assert early["warnings"] == "CAUTION"


def test_an_organ_named_as_a_past_reaction_to_a_drug_is_not_the_patients_level(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    assert facets(store, resolver, "hepamycin", hepatic_function="suy gan nhẹ")["warnings"] == "CAUTION"
    # the patient tells a past reaction: the sentence may be about them
    told = facets(store, resolver, "hepamycin", hepatic_function="suy gan", adverse_reactions=("vàng da",))
    assert told["warnings"] == "CONTRAINDICATED"
    assert facets(store, resolver, "renomid", hepatic_function="suy gan")["warnings"] == "CONTRAINDICATED"


def test_a_pregnancy_contraindication_is_someone_elses_for_a_patient_not_said_pregnant(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    hypertensive = {"comorbidities": ("tăng huyết áp",)}
    assert facets(store, resolver, "gravidol", **hypertensive)["warnings"] == "CAUTION"
    pregnant = facets(store, resolver, "gravidol", pregnancy=True, **hypertensive)
    assert pregnant["warnings"] == "CONTRAINDICATED"

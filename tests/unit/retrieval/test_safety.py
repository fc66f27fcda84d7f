"""Stage-2 patient safety facets (reference 09 §6) over a real Edge shard of hand-made parts: the
searches each facet runs, the clinical-anchor rule, the caps, and absence as
INSUFFICIENT_EVIDENCE. Drug names are invented so that nothing depends on the sample formulary."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.chunk import Chunk, point_id
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.safety import (
    assess_patient_candidates,
    retrieve_patient_drug_context,
    with_patient_safety,
)
from duocthu.retrieval.sentences import only_as_consequence
from duocthu.store.edge import EdgeStore

from tests.factories import make_chunk, publish
from tests.unit.retrieval.patients import NAMES, names_resolver, patient

PARTS: dict[str, dict[str, list[str]]] = {
    "dronaxin": {
        "tuong_tac_thuoc": [
            "Pelmorin: dronaxin làm tăng nồng độ pelmorin trong huyết tương; cần theo dõi.",
            # kidney words and no medicine: a CKD patient's words must not make this an interaction
            "Thuốc lợi tiểu làm tăng nguy cơ suy thận ở người bệnh thận mạn tính.",
            "Esopelmorin không có tương tác đáng kể.",  # a longer word, not pelmorin
        ],
        "chong_chi_dinh": [
            "Quá mẫn với dronaxin. Suy thận nặng (độ thanh thải creatinin dưới 30 ml/phút).",
            "Suy giảm chức năng gan nặng.",  # shares only generic words with a kidney patient
            "Không phối hợp với pelmorin.",  # the medicine's contraindication: the interaction facet's
            "Phụ nữ có thai.",
        ],
        "than_trong": [
            "Người cao tuổi cần theo dõi chức năng thận.",  # routine monitoring, no kidney anchor
            "Suy thận: khởi đầu liều thấp và theo dõi kali.",
        ],
        "lieu_luong_va_cach_dung": [
            "Người lớn: 10 mg mỗi ngày.",
            "Suy thận (thanh thải creatinin 10–30 ml/phút): 5 mg mỗi ngày.",
            "Trẻ em: 0,1 mg/kg mỗi ngày.",
        ],
        "thoi_ky_mang_thai": ["Tránh dùng trong 3 tháng đầu.", "Không dùng trong 3 tháng cuối."],
        "thoi_ky_cho_con_bu": ["Thuốc qua sữa mẹ với lượng nhỏ."],
    },
    "pelmorin": {
        "tuong_tac_thuoc": ["Dronaxin làm tăng nồng độ pelmorin."],
        "chong_chi_dinh": ["Quá mẫn với pelmorin."],
    },
    "feltamid": {
        "chong_chi_dinh": ["Suy gan không phải là chống chỉ định nhưng cần giảm liều."],
        "than_trong": ["Suy gan: dùng liều thấp."],
    },
    "quetafil": {"chong_chi_dinh": ["Suy thận nặng."]},
    "zorvudin": {"tuong_tac_thuoc": ["Bảng tương tác (lỗi trích xuất)."]},
}
QUARANTINED = {("zorvudin", "tuong_tac_thuoc")}


def chunk(drug_id: str, section_key: str, part: int, text: str) -> Chunk:
    return make_chunk(
        drug_id,
        section_key,
        part,
        text,
        quarantined=(drug_id, section_key) in QUARANTINED,
        display_name=NAMES[drug_id][0],
    )


def corpus() -> list[Chunk]:
    return [
        chunk(drug, key, i, text)
        for drug, sections in PARTS.items()
        for key, texts in sections.items()
        for i, text in enumerate(texts)
    ]


class Recording:
    """The store, with every lexical search and section read it is asked for written down."""

    def __init__(self, store: EdgeStore):
        self.store = store
        self.searches: list[tuple[str, frozenset[str]]] = []
        self.sections: list[tuple[str, str]] = []

    def search_lexical(self, query: str, *, section_keys: Collection[str] | None = None, **kw: Any) -> Any:
        self.searches.append((query, frozenset(section_keys or ())))
        return self.store.search_lexical(query, section_keys=section_keys, **kw)

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        self.sections.append((drug_id, section_key))
        return self.store.find_by_section(drug_id, section_key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("safety")))
    chunks = corpus()
    publish(edge, chunks)
    yield edge
    edge.close()


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    return names_resolver()


def texts(bundle: EvidenceBundle) -> list[str]:
    return [e.text for e in bundle.evidence]


def facet(bundle: EvidenceBundle, drug_id: str, name: str) -> tuple[str, list[str]]:
    """(status, texts) of one facet of one candidate."""
    by_id = {e.id: e.text for e in bundle.evidence}
    assessment = next(c for c in bundle.candidate_statuses if c.drug_id == drug_id)
    found = next(f for f in assessment.facets if f.facet == name)
    return found.status, [by_id[i] for i in found.evidence_ids]


def test_the_searches_run_per_facet_with_their_own_terms(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given a kidney patient on pelmorin, and a store that records what it is asked
    recording = Recording(store)
    profile = patient(renal_function="suy thận", current_medications=["pelmorin"], breastfeeding=True)
    # When dronaxin is assessed
    assess_patient_candidates(recording, resolver, ["dronaxin"], profile)  # type: ignore[arg-type]
    # Then one lexical search per lexical facet, each in its own sections with its own words
    by_sections = {sections: query for query, sections in recording.searches}
    assert set(by_sections) == {
        frozenset({"chong_chi_dinh", "than_trong"}),
        frozenset({"lieu_luong_va_cach_dung"}),
    }
    # the interaction facet reads its two sections whole (a class names the medicine too, and no
    # lexical query holds every class wording)
    assert {("dronaxin", "tuong_tac_thuoc"), ("dronaxin", "chong_chi_dinh")} <= set(recording.sections)
    for sections in (frozenset({"chong_chi_dinh", "than_trong"}), frozenset({"lieu_luong_va_cach_dung"})):
        assert "thận" in by_sections[sections] and "pelmorin" not in by_sections[sections].casefold()
    # and breastfeeding is read by the section route
    assert ("dronaxin", "thoi_ky_cho_con_bu") in recording.sections


# -- what counts ------------------------------------------------------------------------------


def test_a_ckd_term_cannot_make_an_unrelated_interaction_look_supported(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given a CKD patient on quetafil, which dronaxin's interaction section never names (one of its
    # parts is all about kidney failure in kidney disease)
    profile = patient(renal_function="bệnh thận mạn tính", current_medications=["quetafil"])
    # When dronaxin is assessed
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], profile)
    # Then the interaction facet found nothing: INSUFFICIENT_EVIDENCE, and no interaction part came back
    assert facet(bundle, "dronaxin", "interaction") == ("INSUFFICIENT_EVIDENCE", [])
    assert not [e for e in bundle.evidence if e.section_key == "tuong_tac_thuoc"]
    # while the kidney term does its own job in the warnings facet: "Suy thận nặng" for a patient
    # whose severity is not stated stays a contraindication (it may be theirs), quoted
    status, found = facet(bundle, "dronaxin", "warnings")
    assert status == "CONTRAINDICATED" and any("Suy thận nặng" in t for t in found)


def test_the_interaction_facet_matches_the_medicine_as_a_whole_word(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    profile = patient(current_medications=["Pelmor forte"])  # a brand name: resolved to pelmorin
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], profile)
    status, found = facet(bundle, "dronaxin", "interaction")
    assert status == "CONTRAINDICATED"  # "Không phối hợp với pelmorin."
    assert PARTS["dronaxin"]["tuong_tac_thuoc"][0] in found
    assert PARTS["dronaxin"]["tuong_tac_thuoc"][2] not in found  # never "Esopelmorin ..."


def test_a_generic_word_overlap_is_not_an_anchor(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given "suy giảm chức năng thận": it shares "suy giảm chức năng ... nặng" with a liver
    # contraindication, and "chức năng thận" with a routine-monitoring precaution
    profile = patient(renal_function="suy giảm chức năng thận")
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], profile)
    found = texts(bundle)
    # Then neither counts; the kidney parts do
    assert "Suy giảm chức năng gan nặng." not in found
    assert "Người cao tuổi cần theo dõi chức năng thận." not in found
    assert PARTS["dronaxin"]["than_trong"][1] in found
    assert PARTS["dronaxin"]["lieu_luong_va_cach_dung"][1] in found


def test_a_medicine_never_counts_as_a_warning(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given only a current medicine, which dronaxin's contraindications name with "phối hợp"
    bundle = retrieve_patient_drug_context(
        store, resolver, ["dronaxin"], patient(current_medications=["pelmorin"])
    )
    # Then no warnings facet runs: the contraindication naming it is the interaction facet's
    assessment = bundle.candidate_statuses[0]
    assert [f.facet for f in assessment.facets] == ["interaction"]
    assert facet(bundle, "dronaxin", "interaction") == (
        "CONTRAINDICATED",
        [PARTS["dronaxin"]["chong_chi_dinh"][2], PARTS["dronaxin"]["tuong_tac_thuoc"][0]],
    )


def test_an_allergy_to_a_catalogue_drug_anchors_on_its_formulary_names(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given an allergy written as a brand ("Pelmor forte"), which no monograph text uses
    profile = patient(allergies=["Pelmor forte"])
    bundle = retrieve_patient_drug_context(store, resolver, ["pelmorin"], profile)
    # Then the monograph's own name for it finds the hypersensitivity contraindication
    assert facet(bundle, "pelmorin", "warnings") == ("CONTRAINDICATED", ["Quá mẫn với pelmorin."])
    # An allergy the catalogue does not know still anchors on its own words only
    unknown = retrieve_patient_drug_context(store, resolver, ["pelmorin"], patient(allergies=["penicilin"]))
    assert unknown.candidate_statuses[0].status == "INSUFFICIENT_EVIDENCE"


def test_not_a_contraindication_is_a_caution(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    bundle = retrieve_patient_drug_context(store, resolver, ["feltamid"], patient(hepatic_function="suy gan"))
    status, found = facet(bundle, "feltamid", "warnings")
    assert status == "CAUTION" and len(found) == 2
    assert bundle.candidate_statuses[0].status == "CAUTION"


def test_an_age_band_from_the_stated_age_anchors_the_dosage(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], patient(age_text="6 tuổi"))
    assert facet(bundle, "dronaxin", "dosage") == ("CAUTION", ["Trẻ em: 0,1 mg/kg mỗi ngày."])


# -- absence ----------------------------------------------------------------------------------


def test_absence_is_insufficient_evidence_never_safe(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given a patient whose condition and medicine quetafil's monograph never mentions
    profile = patient(comorbidities=["động kinh"], current_medications=["pelmorin"], pregnancy=True)
    # When quetafil is assessed
    bundle = retrieve_patient_drug_context(store, resolver, ["quetafil"], profile)
    # Then every facet, and the candidate, is INSUFFICIENT_EVIDENCE, and the bundle abstains
    (assessment,) = bundle.candidate_statuses
    assert assessment.status == "INSUFFICIENT_EVIDENCE"
    assert {f.facet: f.status for f in assessment.facets} == {
        "interaction": "INSUFFICIENT_EVIDENCE",
        "warnings": "INSUFFICIENT_EVIDENCE",
        "pregnancy": "INSUFFICIENT_EVIDENCE",
    }
    assert (bundle.decision, bundle.reason, bundle.evidence) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        (),
    )
    assert "SUPPORTED" not in {f.status for f in assessment.facets}


def test_a_patient_with_nothing_to_search_is_insufficient_evidence(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], patient(labs=["Hb 12 g/dl"]))
    assert bundle.candidate_statuses[0].status == "INSUFFICIENT_EVIDENCE"
    assert bundle.decision == "ABSTAIN"


# -- caps -------------------------------------------------------------------------------------


def test_caps_hits_per_section_and_sections_per_candidate(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given a patient every facet of dronaxin speaks to: six sections with matching parts, two of
    # them (contraindications, pregnancy) with two parts each
    profile = patient(
        renal_function="suy thận", current_medications=["pelmorin"], pregnancy=True, breastfeeding=True
    )
    # When assessed with the reference caps (1 part per section, 4 sections per candidate)
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], profile, EvidencePolicy())
    # Then one part per section and facet (the contraindication naming the medicine is the
    # interaction facet's), and the four sections of highest priority
    sections = [e.section_key for e in bundle.evidence]
    assert sections == [
        "chong_chi_dinh", "chong_chi_dinh", "tuong_tac_thuoc", "thoi_ky_mang_thai", "thoi_ky_cho_con_bu"
    ]  # fmt: skip
    # the contraindication kept is the one naming the most of the patient's anchors, first in part order
    warnings = facet(bundle, "dronaxin", "warnings")[1]
    assert len(warnings) == 1 and warnings[0].startswith("Quá mẫn với dronaxin. Suy thận nặng")
    assert bundle.evidence[3].part_index == 0
    # and what the caps removed is listed, never silently dropped
    omitted = set(bundle.omitted_evidence_ids)
    assert point_id("dronaxin", "chong_chi_dinh", 3) in omitted  # the second contraindication
    assert point_id("dronaxin", "thoi_ky_mang_thai", 1) in omitted  # the second pregnancy part
    assert point_id("dronaxin", "than_trong", 1) in omitted  # a fifth section
    assert point_id("dronaxin", "lieu_luong_va_cach_dung", 1) in omitted  # a sixth
    # the facets cut by the section cap still say what they found
    assessment = bundle.candidate_statuses[0]
    assert assessment.status == "CONTRAINDICATED"
    assert facet(bundle, "dronaxin", "dosage") == ("CAUTION", [])


def test_caps_follow_the_policy(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    profile = patient(renal_function="suy thận", pregnancy=True)
    policy = EvidencePolicy(safety_hits_per_section=2, safety_sections_per_candidate=1)
    bundle = retrieve_patient_drug_context(store, resolver, ["dronaxin"], profile, policy)
    assert [(e.section_key, e.part_index) for e in bundle.evidence] == [
        ("chong_chi_dinh", 0),
        ("chong_chi_dinh", 3),
    ]


def test_every_candidate_is_assessed_up_to_the_policy_limit_in_stage_one_order(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    profile = patient(renal_function="suy thận")
    candidates = ["quetafil", "dronaxin", "feltamid", "dronaxin"]
    result = assess_patient_candidates(store, resolver, candidates, profile)
    assert [c.drug_id for c in result.candidates] == ["quetafil", "dronaxin", "feltamid"]
    two = assess_patient_candidates(
        store, resolver, candidates, profile, EvidencePolicy(patient_candidate_limit=2)
    )
    assert [c.drug_id for c in two.candidates] == ["quetafil", "dronaxin"]
    assert {e.drug_id for e in two.evidence} == {"quetafil", "dronaxin"}


# -- with stage 1 -----------------------------------------------------------------------------


def _stage_one(*drug_ids: str) -> EvidenceBundle:
    ranked = tuple(RankedDrug(drug_id=d, display_name=d, score=1.0) for d in drug_ids)
    return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score", ranked_drugs=ranked)


def test_stage_two_never_creates_candidates(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given a reverse lookup that ranked only feltamid, and a patient on pelmorin with kidney failure
    frame = QueryFrame(
        turn_type="condition_to_drug",
        patient_context=PatientContext(renal_function="suy thận", current_medications=["pelmorin"]),
    )
    # When stage 2 runs over it
    bundle = with_patient_safety(_stage_one("feltamid"), store, resolver, frame)
    # Then only feltamid is assessed (dronaxin and quetafil match the patient, but were not ranked)
    assert [c.drug_id for c in bundle.candidate_statuses] == ["feltamid"]
    assert {e.drug_id for e in bundle.evidence} <= {"feltamid"}
    assert [d.drug_id for d in bundle.ranked_drugs] == ["feltamid"]
    # and without ranked drugs, or without a patient, stage one comes back as it was
    assert with_patient_safety(_stage_one(), store, resolver, frame) == _stage_one()
    bare = QueryFrame(turn_type="condition_to_drug")
    assert with_patient_safety(_stage_one("dronaxin"), store, resolver, bare) == _stage_one("dronaxin")


def test_the_merged_pool_is_decided_again(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given a stage-one bundle that holds a quarantined part (zorvudin's interaction section)
    quarantined = tuple(store.find_by_section("zorvudin", "tuong_tac_thuoc"))
    update = {"evidence": quarantined, "decision": "VERIFY_PDF", "reason": "visual_verification_required"}
    stage_one = _stage_one("dronaxin").model_copy(update=update)
    frame = QueryFrame(
        turn_type="condition_to_drug", patient_context=PatientContext(renal_function="suy thận")
    )
    # When stage 2 adds dronaxin's kidney evidence
    bundle = with_patient_safety(stage_one, store, resolver, frame)
    # Then the whole pool goes through decide(): still VERIFY_PDF, the quarantined part kept
    assert (bundle.decision, bundle.reason) == ("VERIFY_PDF", "visual_verification_required")
    assert bundle.evidence[: len(quarantined)] == quarantined
    assert any(e.drug_id == "dronaxin" for e in bundle.evidence)
    assert [c.status for c in bundle.candidate_statuses] == ["CONTRAINDICATED"]


@pytest.mark.parametrize(
    ("sentence", "consequence"),
    [
        ("Không dùng ở người hẹp động mạch thận hai bên, vì thuốc có thể gây suy thận cấp.", True),
        ("Không dùng trong các tình trạng cấp tính có khả năng làm suy giảm chức năng thận.", True),
        ("Suy gan nặng, suy thận nặng, suy tim nặng chưa được kiểm soát.", False),
        ("Không dùng vì thuốc có thể làm nặng thêm suy thận.", False),  # the patient's own state, worse
        ("Người suy thận nặng; thuốc có thể gây suy thận cấp.", False),  # named once as the state
    ],
)
def test_a_state_named_only_as_what_may_follow_is_not_what_a_contraindication_is_for(
    sentence: str, consequence: bool
) -> None:
    assert only_as_consequence(sentence, frozenset({"renal"})) is consequence

import pytest
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, SourceRef
from duocthu.retrieval.decision import decide
from pydantic import ValidationError

REF = SourceRef(book="Dược thư", edition="3", section_heading="Chống chỉ định", page_start=10, page_end=11)


def item(
    n: int = 0, *, refs: tuple[SourceRef, ...] = (REF,), visual: bool = False, quarantined: bool = False
) -> EvidenceItem:
    return EvidenceItem(
        id=f"id{n}",
        drug_id="ibuprofen",
        display_name="Ibuprofen",
        section_key="chong_chi_dinh",
        part_index=n,
        chunk_kind="prose",
        score=1.0,
        text=f"part {n}",
        source_refs=refs,
        requires_visual_check=visual,
        has_quarantined_content=quarantined,
    )


def test_decide_branches() -> None:
    assert (decide([]).decision, decide([]).reason) == ("ABSTAIN", "parent_hydration_failed")
    missing = decide([item(0), item(1, refs=())])
    assert (missing.decision, missing.reason) == ("ABSTAIN", "missing_provenance")
    for flagged in (item(1, visual=True), item(1, quarantined=True)):
        verify = decide([item(0), flagged])
        assert (verify.decision, verify.reason) == ("VERIFY_PDF", "visual_verification_required")
        assert len(verify.evidence) == 2, "a flagged part is surfaced, never dropped"
    ok = decide([item(0), item(1)], omitted_evidence_ids=["x"])
    assert (ok.decision, ok.reason, ok.omitted_evidence_ids) == (
        "ANSWERABLE",
        "grounded_evidence_available",
        ("x",),
    )


def test_bundle_vocabulary_is_closed() -> None:
    with pytest.raises(ValidationError):
        EvidenceBundle.model_validate({"decision": "MAYBE", "reason": "section_absent"})
    with pytest.raises(ValidationError):
        EvidenceBundle.model_validate({"decision": "ABSTAIN", "reason": "because"})
    with pytest.raises(ValidationError):
        EvidenceBundle(decision="ANSWERABLE", reason="grounded_evidence_available")


def test_source_ref_pages_and_citation() -> None:
    with pytest.raises(ValidationError):
        SourceRef(book="b", edition="e", section_heading="h", page_start=5, page_end=4)
    assert "tr. 10–11" in REF.citation()
    sample = REF.model_copy(update={"sample_data": True, "page_end": 10})
    assert "tr. 10 " in sample.citation() and "MẪU" in sample.citation()

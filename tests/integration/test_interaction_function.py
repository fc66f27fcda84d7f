"""Interaction frames and condition questions about a stated patient, through the retrieve
function (API Gateway HTTP API v2 events and direct invokes) over the sample formulary, whose
interactions are written in both drugs' sections and whose amiodaron interaction section is
quarantined; and `duocthu eval safety` from its command."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.tools.cli import main as cli

from tests.integration.test_handlers import LambdaContext, call, http_event, load_function
from tests.integration.test_handlers import env as env  # the fixture: sample index, Powertools env

pytestmark = pytest.mark.usefixtures("env")


def retrieve(frame: dict[str, Any]) -> dict[str, Any]:
    status, bundle, _ = call(load_function("retrieve"), http_event("POST", "/v1/retrieve", {"frame": frame}))
    assert status == 200
    return bundle


def parts(bundle: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["drug_id"], e["section_key"]) for e in bundle["evidence"]]


def test_an_interaction_is_pooled_from_both_drugs_sections() -> None:
    # Given the frame of "warfarin và aspirin có tương tác không?"
    frame = {
        "turn_type": "interaction",
        "drugs": ["warfarin", "acid_acetylsalicylic"],
        "attribute": "tuong_tac_thuoc",
    }
    # When it is retrieved
    bundle = retrieve(frame)
    # Then each drug's interaction section contributes the part that names the other, and so
    # do aspirin's contraindications, which forbid it beside warfarin's class
    assert (bundle["decision"], bundle["reason"]) == ("ANSWERABLE", "grounded_evidence_available")
    assert set(parts(bundle)) == {
        ("warfarin", "tuong_tac_thuoc"),
        ("acid_acetylsalicylic", "tuong_tac_thuoc"),
        ("acid_acetylsalicylic", "chong_chi_dinh"),
    }
    by_part = {(e["drug_id"], e["section_key"]): e["text"] for e in bundle["evidence"]}
    assert "aspirin" in by_part["warfarin", "tuong_tac_thuoc"]
    assert "warfarin" in by_part["acid_acetylsalicylic", "tuong_tac_thuoc"]
    assert "thuốc chống đông đường uống" in by_part["acid_acetylsalicylic", "chong_chi_dinh"]
    assert all(e["source_refs"] for e in bundle["evidence"])


def test_the_quarantined_interaction_section_yields_verify_pdf() -> None:
    # Given amiodaron, whose interaction section is quarantined in the sample formulary
    frame = {"turn_type": "interaction", "drugs": ["amiodaron", "warfarin"]}
    # When the pair is retrieved, over HTTP and by direct invoke
    bundle = retrieve(frame)
    direct = load_function("retrieve").handler({"frame": frame}, LambdaContext())
    # Then the answer is VERIFY_PDF, the quarantined parts are in it, and so is warfarin's side
    assert direct == bundle
    assert (bundle["decision"], bundle["reason"]) == ("VERIFY_PDF", "visual_verification_required")
    quarantined = [e for e in bundle["evidence"] if e["has_quarantined_content"]]
    assert quarantined and {e["drug_id"] for e in quarantined} == {"amiodaron"}
    warfarin = [e for e in bundle["evidence"] if e["drug_id"] == "warfarin"]
    # warfarin's side: the part naming amiodaron, and its rule for any medicine taken with it
    said = {("amiodaron" in e["text"], "thuốc dùng kèm" in e["text"]) for e in warfarin}
    assert said == {(True, False), (False, True)}


def test_a_current_medicine_is_the_other_drug_of_an_interaction_turn() -> None:
    # "bệnh nhân suy thận đang dùng warfarin, dùng ibuprofen được không?" with warfarin only in
    # the patient context: the kidney words play no part in the interaction pool
    frame = {
        "turn_type": "interaction",
        "drugs": ["ibuprofen"],
        "patient_context": {"current_medications": ["warfarin"], "renal_function": "suy thận"},
    }
    bundle = retrieve(frame)
    assert bundle["decision"] == "ANSWERABLE"
    assert {d for d, _ in parts(bundle)} == {"ibuprofen", "warfarin"}
    assert {s for _, s in parts(bundle)} == {"tuong_tac_thuoc"}


def test_no_interaction_text_is_an_abstention_not_a_no() -> None:
    bundle = retrieve({"turn_type": "interaction", "drugs": ["loratadin", "amoxicilin"]})
    assert (bundle["decision"], bundle["reason"], bundle["evidence"]) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        [],
    )


def test_an_interaction_turn_with_one_drug_reads_its_section() -> None:
    bundle = retrieve({"turn_type": "interaction", "drugs": ["digoxin"], "attribute": "tuong_tac_thuoc"})
    _, section, _ = call(
        load_function("retrieve"),
        http_event("POST", "/v1/retrieve", {"drug_id": "digoxin", "section_key": "tuong_tac_thuoc"}),
    )
    assert bundle["decision"] == "ANSWERABLE" and bundle["evidence"] == section["evidence"]
    assert set(parts(bundle)) == {("digoxin", "tuong_tac_thuoc")}


def test_a_condition_question_about_a_patient_adds_the_safety_facets_of_the_ranked_drugs() -> None:
    # Given the frame of "phụ nữ có thai bị gút dùng thuốc gì"
    frame = {
        "turn_type": "condition_to_drug",
        "condition": {"text": "gút", "normalized": "gút"},
        "condition_relation": "indication",
        "attribute": "chi_dinh",
        "population": "phu_nu_co_thai",
        "patient_context": {"comorbidities": ["gút"], "pregnancy": True},
    }
    # When it is retrieved
    bundle = retrieve(frame)
    # Then stage 1 ranks the indicated drugs and stage 2 assesses every one of them, in order
    ranked = [d["drug_id"] for d in bundle["ranked_drugs"]]
    statuses = bundle["candidate_statuses"]
    assert ranked == [c["drug_id"] for c in statuses] and len(statuses) > 2
    assert bundle["decision"] in ("ANSWERABLE", "VERIFY_PDF")
    # each with its pregnancy section (the section route) and statuses backed by evidence ids
    ids = {e["id"] for e in bundle["evidence"]}
    for candidate in statuses:
        facets = {f["facet"]: f for f in candidate["facets"]}
        # a stage the turn does not give: a contraindication at some stage counts as theirs
        assert facets["pregnancy"]["status"] in ("CAUTION", "CONTRAINDICATED")
        assert facets["pregnancy"]["evidence_ids"]
        assert set(candidate["evidence_ids"]) <= ids
        assert candidate["status"] in ("CAUTION", "CONTRAINDICATED")
    safety = {s for d, s in parts(bundle) if s != "chi_dinh"}
    assert "thoi_ky_mang_thai" in safety and "chi_dinh" in {s for _, s in parts(bundle)}


def test_stage_two_needs_stage_one_candidates() -> None:
    frame = {
        "turn_type": "condition_to_drug",
        "condition": {"text": "bệnh hoàn toàn bịa đặt"},
        "patient_context": {"renal_function": "suy thận"},
    }
    bundle = retrieve(frame)
    assert bundle["decision"] == "ABSTAIN"
    assert bundle["candidate_statuses"] == [] and bundle["evidence"] == []


def test_the_safety_eval_runs_from_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["eval", "safety", "--split", "heldout"]) == 0
    out = capsys.readouterr().out
    assert "| **all facets** |" in out and "| `interaction` |" in out

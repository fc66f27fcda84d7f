"""EvidencePolicy (reference 09's table, overridable in one place) and every branch of decide()."""

from __future__ import annotations

import pytest
from duocthu.models.evidence import EvidenceItem, SourceRef
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.settings import Settings
from duocthu.store.base import lexical_query_tokens, stop_words
from pydantic import ValidationError

REF = SourceRef(book="Dược thư", edition="3", section_heading="Thận trọng", page_start=4, page_end=4)


def item(n: int = 0, *, refs: tuple[SourceRef, ...] = (REF,), **flags: bool) -> EvidenceItem:
    return EvidenceItem(
        id=f"id{n}",
        drug_id="ibuprofen",
        display_name="Ibuprofen",
        section_key="than_trong",
        part_index=n,
        chunk_kind="prose",
        score=1.0,
        text=f"part {n}",
        source_refs=refs,
        **flags,
    )


def test_defaults_are_the_reference_table() -> None:
    policy = EvidencePolicy()
    assert policy.model_dump() == {
        "minimum_score": 0.12,
        "candidate_limit": 5,
        "evidence_limit": 3,
        "rerank_top_k": 6,
        "max_context_tokens": 6000,
        "compared_drug_limit": 3,  # ours, not the reference's: one section of several named drugs
        "indication_candidate_limit": 8,
        "indication_retrieval_limit": 40,
        "indication_evidence_per_drug": 2,
        "patient_candidate_limit": 8,
        "safety_hits_per_section": 1,
        "safety_sections_per_candidate": 4,
        "lexical_pool_sections": frozenset({"than_trong"}),
        "lexical_pool_excluded_sections": frozenset({"duoc_ly_va_co_che_tac_dung"}),
        "lexical_pool_min_score": 5.0,
        "max_lexical_pooled_sections": 2,
        "lexical_pool_hit_limit": 12,
    }
    assert policy.pools("than_trong") and not policy.pools("lieu_luong_va_cach_dung")


def test_every_setting_is_overridable_from_the_environment() -> None:
    # Given one EVIDENCE_* variable per field
    env = {
        EvidencePolicy.env_name("minimum_score"): "0.3",
        EvidencePolicy.env_name("max_context_tokens"): "4000",
        EvidencePolicy.env_name("lexical_pool_sections"): "than_trong, chong_chi_dinh",
        EvidencePolicy.env_name("lexical_pool_min_score"): "4",
        EvidencePolicy.env_name("max_lexical_pooled_sections"): "0",
        "EVIDENCE_CANDIDATE_LIMIT": "",  # empty is unset
    }
    # When the settings are read
    policy = Settings.from_env(env).evidence_policy
    # Then the overrides apply and everything else keeps its default
    assert policy.minimum_score == 0.3 and policy.max_context_tokens == 4000
    assert policy.lexical_pool_sections == {"than_trong", "chong_chi_dinh"}
    assert policy.lexical_pool_min_score == 4.0 and policy.candidate_limit == 5
    assert not policy.pools("than_trong"), "a cap of 0 turns pooling off"


@pytest.mark.parametrize("field", sorted(EvidencePolicy.model_fields))
def test_each_field_has_its_variable(field: str) -> None:
    default = getattr(EvidencePolicy(), field)
    value = "chong_chi_dinh" if isinstance(default, frozenset) else str(default + 1)
    changed = EvidencePolicy.from_env({f"EVIDENCE_{field.upper()}": value})
    assert getattr(changed, field) != default


@pytest.mark.parametrize(
    "env",
    [
        {"EVIDENCE_LEXICAL_POOL_SECTIONS": "than_trong,khong_co"},
        {"EVIDENCE_EVIDENCE_LIMIT": "0"},
        {"EVIDENCE_MINIMUM_SCORE": "high"},
    ],
)
def test_a_bad_override_fails_at_start_up(env: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Settings.from_env(env)


def test_decide_every_branch() -> None:
    # no evidence at all
    empty = decide([])
    assert (empty.decision, empty.reason, empty.evidence) == ("ABSTAIN", "parent_hydration_failed", ())
    # a part without provenance: abstain, even when another part would need a visual check
    missing = decide([item(0, requires_visual_check=True), item(1, refs=())])
    assert (missing.decision, missing.reason) == ("ABSTAIN", "missing_provenance")
    # requires_visual_check OR has_quarantined_content anywhere in the pool
    for flags in ({"requires_visual_check": True}, {"has_quarantined_content": True}):
        verify = decide([item(0), item(1, **flags)])
        assert (verify.decision, verify.reason) == ("VERIFY_PDF", "visual_verification_required")
        assert [e.id for e in verify.evidence] == ["id0", "id1"], "the flagged part is surfaced, not dropped"
    ok = decide([item(0), item(1)], omitted_evidence_ids=["id9"])
    assert (ok.decision, ok.reason) == ("ANSWERABLE", "grounded_evidence_available")
    assert ok.omitted_evidence_ids == ("id9",) and len(ok.evidence) == 2


def test_stop_words_are_data_and_matched_before_folding() -> None:
    assert {"của", "khi", "thuốc"} <= stop_words()
    # "trọng" survives although "trong" folds like it; "dạ dày" typed without marks is kept whole
    assert lexical_query_tokens("Thận trọng khi dùng thuốc cho người loét dạ dày?") == [
        "than",
        "trong",
        "loet",
        "da",
        "day",
    ]
    assert lexical_query_tokens("than trong khi dung cho nguoi loet da day") == [
        "than",
        "trong",
        "dung",  # "dung" stays: it is also "dung dịch"
        "loet",
        "da",
        "day",
    ]
    assert lexical_query_tokens("loét loét LOÉT") == ["loet"]
    assert lexical_query_tokens("có không là gì?") == []

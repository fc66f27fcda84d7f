"""The closed vocabularies of the frame and the evidence decision (one definition each).

Adding a value is a deliberate change here and in every consumer (prompt, schemas, gold sets).
"""

from __future__ import annotations

from typing import Literal, get_args

TurnType = Literal[
    "drug_attribute",
    "drug_overview",
    "interaction",
    "symptom_to_drug",
    "condition_to_drug",
    "drug_to_condition",
    "condition_relation",
    "dosing_calc",
    "smalltalk",
    "out_of_scope",
]
Population = Literal[
    "tre_em", "nguoi_lon", "nguoi_cao_tuoi", "phu_nu_co_thai", "phu_nu_cho_con_bu", "suy_than", "suy_gan"
]
Route = Literal[
    "uong",
    "tiem_tinh_mach",
    "tiem_bap",
    "tiem_duoi_da",
    "dat_truc_trang",
    "dat_am_dao",
    "dung_ngoai",
    "nho_mat",
    "nho_mui",
    "hit",
    "ngam_duoi_luoi",
]
ConditionRelation = Literal["indication", "adverse_effect", "contraindication", "unknown"]
ContextAction = Literal["none", "continue", "new"]
SubjectScope = Literal["human", "non_human"]
Decision = Literal["ANSWERABLE", "ABSTAIN", "VERIFY_PDF"]
Reason = Literal[
    "grounded_evidence_available",
    "visual_verification_required",
    "missing_provenance",
    "parent_hydration_failed",
    "insufficient_retrieval_score",
    "section_absent",
    "unknown_drug",
    "needs_clarification",
    "non_human_subject",
    "out_of_scope",
    "smalltalk",
    "dependency_unavailable",
]
SystemError = Literal[
    "understanding_provider_unavailable",
    "understanding_malformed_output",
    "store_unavailable",
    "generation_provider_unavailable",
    "rerank_unavailable",
    "embedding_unavailable",
    "conversation_store_unavailable",
]
CandidateStatus = Literal["SUPPORTED", "CAUTION", "CONTRAINDICATED", "INSUFFICIENT_EVIDENCE"]
# A facet may also state, in the formulary's words, that this patient needs no change ("Người suy
# thận: không cần chỉnh liều"): said, so not INSUFFICIENT_EVIDENCE, and never a candidate's status
# (it never reads as safe; a candidate with nothing else stays INSUFFICIENT_EVIDENCE).
FacetStatus = Literal["SUPPORTED", "CAUTION", "CONTRAINDICATED", "INSUFFICIENT_EVIDENCE", "NO_CHANGE_STATED"]

TURN_TYPES: frozenset[str] = frozenset(get_args(TurnType))
POPULATIONS: frozenset[str] = frozenset(get_args(Population))
ROUTES: frozenset[str] = frozenset(get_args(Route))
CONDITION_RELATIONS: frozenset[str] = frozenset(get_args(ConditionRelation))
DECISIONS: frozenset[str] = frozenset(get_args(Decision))
REASONS: frozenset[str] = frozenset(get_args(Reason))
SYSTEM_ERRORS: frozenset[str] = frozenset(get_args(SystemError))
# Requests read as not covered (understanding's `not_covered` cues) that the assistant does not do
# but on which a named drug's sections still help the clinician: a decline says so, then quotes.
# Any other kind (a missed dose, a price) is answered by the lines found, or declined plainly.
NOT_DONE_BUT_QUOTED: frozenset[str] = frozenset({"compute", "write", "diagnose"})


# Which-drug questions for a condition: answered by the reverse lookup, with the safety facets of
# the patient the conversation describes.
WHICH_DRUG_TURNS: frozenset[str] = frozenset({"condition_to_drug", "symptom_to_drug"})
# Turn types that are about named drugs (a follow-up turn may carry the drugs forward).
DRUG_TURN_TYPES: frozenset[str] = frozenset(
    {"drug_attribute", "drug_overview", "interaction", "drug_to_condition", "dosing_calc"}
)

"""EvidencePolicy: every retrieval limit and threshold of reference 09, in one place.

Defaults are the reference's. Each field can be overridden from the environment as
`EVIDENCE_<FIELD NAME IN CAPITALS>` (section sets as comma-separated keys), read once with the
rest of the settings (`Settings.evidence_policy`); nothing else in the code holds a copy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from duocthu.core.sections import SECTION_ORDER

ENV_PREFIX = "EVIDENCE_"


class EvidencePolicy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # -- dense routes and the generic hydrate path ---------------------------------------------
    minimum_score: float = Field(
        default=0.12, ge=0, description="dense routes only: a weaker top hit is discarded"
    )
    candidate_limit: int = Field(default=5, ge=1, description="dense search candidates")
    evidence_limit: int = Field(
        default=3, ge=1, description="hydrate default; never applied to the section route"
    )
    # -- overview / free-form ordering and packing --------------------------------------------
    rerank_top_k: int = Field(default=6, ge=1)
    max_context_tokens: int = Field(default=6000, ge=1)
    compared_drug_limit: int = Field(
        default=3, ge=1, description="named drugs whose section one answer quotes ('A và B: tác dụng phụ')"
    )

    # -- reverse lookup ------------------------------------------------------------------------
    indication_candidate_limit: int = Field(default=8, ge=1, description="drugs shown")
    indication_retrieval_limit: int = Field(default=40, ge=1, description="chunk pool before grouping")
    indication_evidence_per_drug: int = Field(default=2, ge=1)
    # -- patient-specific safety (stage 2) ------------------------------------------------------
    patient_candidate_limit: int = Field(
        default=8, ge=1, description="drugs checked: every drug shown (indication_candidate_limit)"
    )
    safety_hits_per_section: int = Field(default=1, ge=1)
    safety_sections_per_candidate: int = Field(default=4, ge=1)
    # -- bounded cross-section pooling on the section route ------------------------------------
    # Opt-in per route: pooling every section leaked an interaction chunk into a dosage answer.
    lexical_pool_sections: frozenset[str] = frozenset({"than_trong"})
    # Excluded outright, not by margin: on the query that motivated pooling the true section
    # matched 7 terms and this attractor 6, too close for any threshold to separate.
    lexical_pool_excluded_sections: frozenset[str] = frozenset({"duoc_ly_va_co_che_tac_dung"})
    # The score is a count of distinct matched query tokens, so this is "at least 5 terms".
    lexical_pool_min_score: float = Field(default=5.0, gt=0)
    max_lexical_pooled_sections: int = Field(default=2, ge=0)
    lexical_pool_hit_limit: int = Field(default=12, ge=1, description="chunk hits the pooling search reads")

    @field_validator("lexical_pool_sections", "lexical_pool_excluded_sections", mode="before")
    @classmethod
    def _section_set(cls, value: Any) -> frozenset[str]:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",")]
        keys = frozenset(str(v) for v in value if str(v))
        unknown = sorted(keys - SECTION_ORDER.keys())
        if unknown:
            raise ValueError(f"unknown section keys: {unknown}")
        return keys

    @classmethod
    def env_name(cls, field: str) -> str:
        return f"{ENV_PREFIX}{field.upper()}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EvidencePolicy:
        """Defaults, overridden by whichever `EVIDENCE_*` variables are set (empty means unset)."""
        env = os.environ if env is None else env
        values = {name: env.get(cls.env_name(name)) for name in cls.model_fields}
        return cls.model_validate({k: v for k, v in values.items() if v})

    def pools(self, section_key: str) -> bool:
        return self.max_lexical_pooled_sections > 0 and section_key in self.lexical_pool_sections

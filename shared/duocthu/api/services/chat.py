"""The chat function: one turn end to end, and the service's health."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.generation import get_answer_generator
from duocthu.answer.turn import ChatService, ChatTurn
from duocthu.api.models import ChatRequest, ChatResponse, HealthBody
from duocthu.api.runtime import Runtime
from duocthu.api.services.retrieve import retrieval_service
from duocthu.core.deadline import Deadline, LambdaContextLike
from duocthu.core.vocabulary import SubjectScope
from duocthu.models.frame import QueryFrame
from duocthu.providers.embeddings import get_embedder
from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.store.sessions import get_conversation_store
from duocthu.understanding import pipeline as understanding
from duocthu.understanding.providers import get_frame_provider


def chat_service(runtime: Runtime, context: LambdaContextLike | None = None) -> ChatService:
    """The turn's service: the process's long-lived parts, this invocation's deadline."""
    catalog, resolver = runtime.ready()
    settings = runtime.settings
    deadline = Deadline.for_invocation(
        context, settings.understanding_deadline_margin_ms, settings.understanding_timeout_s
    )
    provider = get_frame_provider(settings)

    def understand_turn(
        message: str, history: Sequence[str], prior: QueryFrame | None, scope: SubjectScope
    ) -> QueryFrame:
        return understanding.understand(message, resolver, provider, deadline, history, prior, scope)

    return ChatService(
        catalog,
        resolver,
        retrieval_service(runtime),
        understand_turn,
        get_answer_generator(settings),
        get_conversation_store(settings),
        deadline,
    )


def chat(runtime: Runtime, request: ChatRequest, context: LambdaContextLike | None = None) -> ChatResponse:
    turn = chat_service(runtime, context).turn(request.message, request.session_id, request.subject_scope)
    return chat_response(turn)


def chat_response(turn: ChatTurn) -> ChatResponse:
    return ChatResponse(
        session_id=turn.session_id,
        answer=turn.answer,
        decision=turn.bundle.decision,
        reason=turn.bundle.reason,
        citations=list(turn.citations),
        frame=turn.frame,
        quick_replies=list(turn.quick_replies),
        system_error=turn.system_error,
        bundle=turn.bundle,
        answer_lines=turn.answer_lines,
    )


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


def health(runtime: Runtime) -> HealthBody:
    """Ready when the catalogue and the index were built from one corpus, the store answers, and
    the configured embedding model is the one the index was built with."""
    if runtime.problem or runtime.manifest is None or runtime.catalog is None:
        return HealthBody(status="unavailable", reason=runtime.problem or "not initialised")
    providers = providers_in_use(runtime)
    problem: str | None = None
    try:
        runtime.store.count()
    except (StoreUnavailable, NoIndex) as err:
        problem = f"store_unavailable: {err}"
    if problem is None and runtime.settings.embedding_provider != "none":
        try:
            embedder = get_embedder(runtime.settings)
        except Exception as err:  # a provider that cannot even be built is misconfigured
            problem = f"embedding_unavailable: {err}"
        else:
            indexed = runtime.manifest.embedding_model
            if embedder is not None and indexed != embedder.model_id:
                problem = (
                    f"embedding_model_mismatch: index built with {indexed}, configured {embedder.model_id}"
                )
    return HealthBody(
        status="unavailable" if problem else "ok",
        reason=problem,
        backend=runtime.store.backend,
        index_version=runtime.manifest.version,
        corpus_hash=runtime.manifest.corpus_hash,
        drugs=len(runtime.catalog.drugs),
        sample_data=runtime.catalog.sample_data,
        providers=providers,
    )

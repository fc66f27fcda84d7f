"""What each function does, as plain functions over the runtime (handlers only parse and shape)."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu import understanding
from duocthu.api.models import ChatRequest, ChatResponse, HealthBody, RetrieveRequest, UnderstandRequest
from duocthu.chat import ChatService, ChatTurn
from duocthu.conversation import get_conversation_store
from duocthu.errors import DependencyUnavailable
from duocthu.evidence import EvidenceBundle
from duocthu.frame import QueryFrame
from duocthu.generation import get_answer_generator
from duocthu.providers import Deadline, LambdaContextLike, get_frame_provider
from duocthu.providers.embeddings import get_embedder
from duocthu.providers.rerank import get_reranker
from duocthu.retrieval import RetrievalService
from duocthu.runtime import Runtime
from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.vocabulary import SubjectScope


def understand(
    runtime: Runtime, request: UnderstandRequest, context: LambdaContextLike | None = None
) -> QueryFrame:
    """The turn's frame, from the provider the settings choose, within the invocation's deadline.
    A provider fault is a frame with system_error; the caller decides what that means (the
    understand function answers 503/502, chat abstains)."""
    _, resolver = runtime.ready()
    settings = runtime.settings
    deadline = Deadline.for_invocation(
        context, settings.understanding_deadline_margin_ms, settings.understanding_timeout_s
    )
    return understanding.understand(
        request.message,
        resolver,
        get_frame_provider(settings),
        deadline,
        request.history,
        request.prior_frame,
        request.subject_scope,
    )


def retrieval_service(runtime: Runtime) -> RetrievalService:
    """Retrieval with the providers the settings choose (each built once per process)."""
    settings = runtime.settings
    return RetrievalService(
        runtime.store,
        settings.evidence_policy,
        embedder=get_embedder(settings),
        reranker=get_reranker(settings),
    )


def retrieve(
    runtime: Runtime, request: RetrieveRequest, context: LambdaContextLike | None = None
) -> EvidenceBundle:
    """A frame goes through the one routing table (RetrievalService.for_frame); the explicit form
    names its drug and section. A configured provider that failed (an embedding model for the
    reverse lookup) is a dependency fault: 503 over HTTP, a typed error on direct invoke."""
    _, resolver = runtime.ready()
    settings = runtime.settings
    service = retrieval_service(runtime)
    deadline = Deadline.for_invocation(
        context, settings.retrieve_deadline_margin_ms, settings.understanding_timeout_s
    )
    if request.frame is not None:
        bundle = service.for_frame(request.frame, resolver, request.query, deadline)
    elif request.drug_id not in resolver.by_id:
        return EvidenceBundle(decision="ABSTAIN", reason="unknown_drug")
    else:
        assert request.drug_id is not None  # the request model guarantees one form
        bundle = service.retrieve_framed(
            request.drug_id,
            None if request.is_overview else request.section_key,
            query=request.query,
            is_overview=request.is_overview,
            deadline=deadline,
        )
    if bundle.reason == "dependency_unavailable":
        raise DependencyUnavailable(bundle.system_error or "dependency_unavailable")
    return bundle


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

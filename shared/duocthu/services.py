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
from duocthu.interactions import interacting_drugs
from duocthu.providers import Deadline, LambdaContextLike, get_frame_provider
from duocthu.providers.embeddings import get_embedder
from duocthu.providers.rerank import get_reranker
from duocthu.retrieval import RetrievalService
from duocthu.reverse import INDICATION_SECTION, REVERSE_TURNS, indication_of
from duocthu.runtime import Runtime
from duocthu.safety import PATIENT_SAFETY_TURNS
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


def retrieve(
    runtime: Runtime, request: RetrieveRequest, context: LambdaContextLike | None = None
) -> EvidenceBundle:
    _, resolver = runtime.ready()
    if request.frame is not None:
        frame = request.frame
        # Issue 9: an interaction pools both drugs' sections; a condition question about a stated
        # patient adds the safety facets of the drugs the reverse lookup ranked (never others).
        safety = RetrievalService(runtime.store, runtime.settings.evidence_policy)
        if frame.turn_type == "interaction" and len(pair := interacting_drugs(frame, resolver)) >= 2:
            return safety.interaction(pair, resolver)
        if frame.turn_type in REVERSE_TURNS:  # issue 8: which drugs is the condition an indication of
            stage_one = _by_indication(runtime, frame)
            if frame.turn_type in PATIENT_SAFETY_TURNS:
                return safety.with_patient_safety(stage_one, frame, resolver)
            return stage_one
        if not frame.drugs:
            return EvidenceBundle(decision="ABSTAIN", reason="unknown_drug")
        drug_id, section_key, query = frame.drugs[0], frame.attribute, frame.standalone_query
        if frame.turn_type == "drug_to_condition":  # what the drug is for: its chỉ định
            section_key = INDICATION_SECTION
        overview = frame.turn_type == "drug_overview"
    else:
        assert request.drug_id is not None  # the request model guarantees one form
        drug_id, section_key, query = request.drug_id, request.section_key, request.query
        overview = request.is_overview
    if drug_id not in resolver.by_id:
        return EvidenceBundle(decision="ABSTAIN", reason="unknown_drug")
    # Issue 7: no section and not an overview -> the free-form route (reranked when configured,
    # inside the invocation's deadline; else lexical), packed to the token budget.
    settings = runtime.settings
    service = RetrievalService(runtime.store, settings.evidence_policy, reranker=get_reranker(settings))
    deadline = Deadline.for_invocation(context, settings.retrieve_deadline_margin_ms, 0) if context else None
    return service.retrieve_framed(
        drug_id, None if overview else section_key, query=query, is_overview=overview, deadline=deadline
    )


def _by_indication(runtime: Runtime, frame: QueryFrame) -> EvidenceBundle:
    """The reverse lookup; a configured embedding provider that fails is a dependency fault (HTTP
    503, a typed error on direct invoke), not an answer."""
    settings = runtime.settings
    service = RetrievalService(runtime.store, settings.evidence_policy, embedder=get_embedder(settings))
    bundle = service.by_indication(indication_of(frame), Deadline.after(settings.embedding_timeout_s))
    if bundle.reason == "dependency_unavailable":
        raise DependencyUnavailable(bundle.system_error or "embedding_unavailable")
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
        RetrievalService(runtime.store, settings.evidence_policy),
        understand_turn,
        get_answer_generator(settings),
        get_conversation_store(settings),
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


def health(runtime: Runtime) -> HealthBody:
    if runtime.problem or runtime.manifest is None or runtime.catalog is None:
        return HealthBody(status="unavailable", reason=runtime.problem or "not initialised")
    return HealthBody(
        status="ok",
        backend=runtime.store.backend,
        index_version=runtime.manifest.version,
        corpus_hash=runtime.manifest.corpus_hash,
        drugs=len(runtime.catalog.drugs),
        sample_data=runtime.catalog.sample_data,
    )

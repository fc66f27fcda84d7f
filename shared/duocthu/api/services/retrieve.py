"""The retrieve function: a frame (or drug + section) -> EvidenceBundle."""

from __future__ import annotations

from duocthu.api.models import RetrieveRequest
from duocthu.api.runtime import Runtime
from duocthu.core.deadline import Deadline, LambdaContextLike
from duocthu.core.errors import DependencyUnavailable
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from duocthu.models.plan import Plan, gathered_by_part
from duocthu.providers.embeddings import get_embedder
from duocthu.providers.rerank import get_reranker
from duocthu.retrieval.service import RetrievalService
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message


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
        # Only the frame crossed the wire: the question is read and planned once, here, as chat
        # does; a plan that needs no evidence is answered as chat answers it, without any
        text = request.query or request.frame.standalone_query or ""
        plan = plan_turn(
            request.frame, turn_reading(tag_message(text, resolver), request.frame, resolver), resolver
        )
        if not plan.needs_evidence:
            return EvidenceBundle(decision="ABSTAIN", reason=plan.reason or "needs_clarification")
        bundle = service.gather(plan, resolver, deadline).main
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


def gather(runtime: Runtime, plan: Plan, context: LambdaContextLike | None = None) -> GatheredEvidence:
    """Every ask of a plan (the state machine's Retrieve state): a dependency that failed is a
    typed fault the machine retries, then catches."""
    _, resolver = runtime.ready()
    settings = runtime.settings
    deadline = Deadline.for_invocation(
        context, settings.retrieve_deadline_margin_ms, settings.understanding_timeout_s
    )
    service = retrieval_service(runtime)
    evidence = gathered_by_part(plan, lambda part: service.gather(part, resolver, deadline))
    failed = next((a.bundle for a in evidence.answers if a.bundle.reason == "dependency_unavailable"), None)
    if failed is not None:
        raise DependencyUnavailable(failed.system_error or "dependency_unavailable")
    return evidence

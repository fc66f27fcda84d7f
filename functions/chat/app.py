"""Chat function: the public API. POST /v1/chat (one turn end to end), POST /v1/feedback (a
clinician's report on a turn), GET /v1/drugs?q=, GET /health, and the clinicians' page at GET /
(duocthu.page). /v1/chat answers 200 for any well-formed request; a failed dependency becomes an
ABSTAIN with its system_error, not a 5xx.

Direct invoke (Step Functions, infra/statemachine/chat_turn.asl.json): {"step": ...} runs one
state of the same turn (load_session, answer, save_session, abstain; duocthu.api.turn_steps)."""

# First, before the other imports: the packed index unpacks on a second vCPU while they load.
from duocthu.settings import get_settings
from duocthu.store.catalog import unpack_in_background

unpack_in_background(get_settings())

from typing import Annotated, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from duocthu.api import snapstart
from duocthu.api.http import create_app, error_response, is_http_event, resolve_http, traced_libraries
from duocthu.api.models import ChatRequest, ChatResponse, FeedbackRequest, FeedbackStored
from duocthu.api.runtime import get_runtime
from duocthu.api.services import chat as service
from duocthu.api.services.feedback import record_feedback
from duocthu.api.turn_steps import run_step
from duocthu.page import router as page_router
from duocthu.store.sessions import ConversationUnavailable, get_conversation_store

logger = Logger()
tracer = Tracer(patch_modules=traced_libraries(get_settings()))
metrics = Metrics()
app = create_app(logger)
app.include_router(page_router)  # the clinicians' page: GET /, /app.js, /app.css
get_runtime()  # cold start
snapstart.register()  # under SnapStart, a container restored from the snapshot builds its AWS clients again


@app.exception_handler(service.SessionNotFound)
def _unknown_session(_: service.SessionNotFound) -> Response[str]:
    # ids are issued by the server: one it did not issue (or that expired) is no bearer token
    return error_response(404, "session_not_found", "no such session: omit session_id to start one")


@app.post("/v1/chat")
@tracer.capture_method(capture_response=False)  # responses carry patient facts: never in traces
def chat(body: ChatRequest) -> ChatResponse:
    principal = app.current_event.request_context.authorizer.jwt_claim.get("sub")  # None when public
    response = service.chat(get_runtime(), body, app.lambda_context, principal=principal)
    response.turn_id = app.current_event.request_context.request_id  # what the logs carry
    metrics.add_metric(name=f"Decision_{response.decision}", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name=f"Reason_{response.reason}", unit=MetricUnit.Count, value=1)
    if response.system_error:  # which dependency failed, apart from the answer's reason
        metrics.add_metric(name=f"SystemError_{response.system_error}", unit=MetricUnit.Count, value=1)
    return response


@app.exception_handler(ConversationUnavailable)
def _conversations_down(_: ConversationUnavailable) -> Response[str]:
    return error_response(503, "conversation_store_unavailable", "the session store cannot be reached")


@app.post("/v1/feedback", status_code=201)
def feedback(body: FeedbackRequest) -> FeedbackStored:
    """A clinician's report that a turn's reply is wrong, kept beside its session."""
    principal = app.current_event.request_context.authorizer.jwt_claim.get("sub")  # None when public
    stored = record_feedback(get_conversation_store(get_runtime().settings), body, principal)
    metrics.add_metric(name="Feedback", unit=MetricUnit.Count, value=1)
    return stored


@app.get("/v1/drugs")
def drugs(q: Annotated[str, Query(min_length=1, max_length=200)]) -> dict[str, Any]:
    """Which catalogue drugs a text names (exact alias spans), and, when none, what it may mean."""
    _, resolver = get_runtime().ready()
    exact = resolver.resolve(q)
    suggestions = () if exact else resolver.suggest(q)
    return {
        "query": q,
        "drugs": [
            {"drug_id": m.drug_id, "title": resolver.by_id[m.drug_id].title, "matched_text": m.matched_text}
            for m in exact
        ],
        "suggestions": [
            {
                "drug_id": s.drug_id,
                "title": resolver.by_id[s.drug_id].title,
                "alias": s.alias,
                "score": s.score,
            }
            for s in suggestions
        ],
    }


@app.get("/health")
def health() -> Response[str]:
    body = service.health(get_runtime())
    return Response(
        status_code=200 if body.status == "ok" else 503,
        content_type=content_types.APPLICATION_JSON,
        body=body.model_dump_json(exclude_none=True),
    )


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_http_event(event):
        return resolve_http(app, event, context)
    result = run_step(get_runtime(), event, context)
    if event.get("step") in ("answer", "abstain"):
        metrics.add_metric(name=f"Decision_{result['decision']}", unit=MetricUnit.Count, value=1)
        metrics.add_metric(name=f"Reason_{result['reason']}", unit=MetricUnit.Count, value=1)
    return result

"""Understand function: a turn (+ history, prior frame) -> QueryFrame.

HTTP: POST /v1/understand. 200 with the frame; 422 for a bad body; 503 + Retry-After when the
model provider is unavailable; 502 when it answered with something that is not a frame.
Direct invoke (Step Functions): the same body as the event; a provider fault raises
DependencyUnavailable (its reason is the frame's system_error) so the state machine can retry it.
"""

# First, before the other imports: the packed index unpacks on a second vCPU while they load.
from duocthu.settings import get_settings
from duocthu.store.catalog import unpack_in_background

unpack_in_background(get_settings())

from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from duocthu.api import snapstart
from duocthu.api.body import validated
from duocthu.api.http import create_app, error_response, is_http_event, resolve_http, traced_libraries
from duocthu.api.models import UnderstandRequest, UnderstoodTurn
from duocthu.api.runtime import NotReady, get_runtime
from duocthu.api.services import understand as service
from duocthu.core.errors import DependencyUnavailable
from duocthu.models.frame import QueryFrame
from duocthu.understanding.tags import MessageReader

logger = Logger()
tracer = Tracer(patch_modules=traced_libraries(get_settings()))
metrics = Metrics()
app = create_app(logger)
get_runtime()  # cold start: the resolver and its alias index are built once per container
snapstart.register()  # under SnapStart, a container restored from the snapshot builds its AWS clients again


class MalformedProviderOutput(DependencyUnavailable):
    """The model answered with something that is not a frame (HTTP 502)."""


@app.exception_handler(MalformedProviderOutput)
def _malformed(err: MalformedProviderOutput) -> Response[str]:
    logger.error("understanding provider gave malformed output", extra={"reason": err.reason})
    return error_response(502, err.reason, "the language model's answer could not be used")


def _understand(
    request: UnderstandRequest, context: LambdaContext | None, reader: MessageReader | None = None
) -> QueryFrame:
    frame = service.understand(get_runtime(), request, context, reader)
    metrics.add_metric(name=f"TurnType_{frame.turn_type}", unit=MetricUnit.Count, value=1)
    if frame.needs_clarify:
        metrics.add_metric(name="Clarify", unit=MetricUnit.Count, value=1)
    if frame.system_error:
        metrics.add_metric(name=f"SystemError_{frame.system_error}", unit=MetricUnit.Count, value=1)
    logger.info(
        "understood",
        extra={
            "turn_type": frame.turn_type,
            "drugs": list(frame.drugs),
            "attribute": frame.attribute,
            "needs_clarify": frame.needs_clarify,
            "system_error": frame.system_error,
        },
    )
    return frame


@app.post("/v1/understand")
@tracer.capture_method(capture_response=False)  # responses carry patient facts: never in traces
def understand(body: UnderstandRequest) -> QueryFrame:
    frame = _understand(body, app.lambda_context)
    if frame.system_error == "understanding_malformed_output":
        raise MalformedProviderOutput(frame.system_error)
    if frame.system_error:
        raise DependencyUnavailable(frame.system_error)  # 503 + Retry-After (duocthu.api.http)
    return frame


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_http_event(event):
        return resolve_http(app, event, context)
    request = validated(UnderstandRequest, event)  # a bad direct input is a program error

    def clause(
        text: str, history: Sequence[str], prior: QueryFrame | None, reader: MessageReader
    ) -> QueryFrame:
        # a message of several asks is understood clause by clause, as chat does
        asked = request.model_copy(update={"message": text, "history": list(history), "prior_frame": prior})
        return _understand(asked, context, reader)

    try:
        # the plan is made once, here, at the end of understanding: the later states read it
        plan = service.plan(get_runtime(), request, clause)
    except NotReady as err:
        raise DependencyUnavailable("store_unavailable", str(err)) from err
    if plan.frame.system_error:
        raise DependencyUnavailable(plan.frame.system_error)
    return UnderstoodTurn(frame=plan.frame, plan=plan).model_dump(mode="json")

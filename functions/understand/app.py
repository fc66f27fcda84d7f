"""Understand function: a turn (+ history, prior frame) -> QueryFrame.

HTTP: POST /v1/understand. Direct invoke (Step Functions): the same body as the event.
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from duocthu import services
from duocthu.api.http import create_app, is_http_event
from duocthu.api.models import UnderstandRequest
from duocthu.errors import DependencyUnavailable
from duocthu.frame import QueryFrame
from duocthu.runtime import NotReady, get_runtime

logger = Logger()
tracer = Tracer()
metrics = Metrics()
app = create_app(logger)
get_runtime()  # cold start: the resolver and its alias index are built once per container


def _understand(request: UnderstandRequest) -> QueryFrame:
    frame = services.understand(get_runtime(), request)
    metrics.add_metric(name=f"TurnType_{frame.turn_type}", unit=MetricUnit.Count, value=1)
    if frame.system_error:
        metrics.add_metric(name=f"SystemError_{frame.system_error}", unit=MetricUnit.Count, value=1)
    return frame


@app.post("/v1/understand")
@tracer.capture_method
def understand(body: UnderstandRequest) -> QueryFrame:
    return _understand(body)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_http_event(event):
        return app.resolve(event, context)
    request = UnderstandRequest.model_validate(event)
    try:
        return _understand(request).model_dump(mode="json")
    except NotReady as err:
        raise DependencyUnavailable("store_unavailable", str(err)) from err

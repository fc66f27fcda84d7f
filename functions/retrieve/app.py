"""Retrieve function: a QueryFrame (or drug + section) -> EvidenceBundle.

HTTP: POST /v1/retrieve. Direct invoke (Step Functions): the same body as the event; a store
failure raises DependencyUnavailable so the state machine retries, then catches it.
"""

# First, before the other imports: the packed index unpacks on a second vCPU while they load.
from duocthu.settings import get_settings
from duocthu.store.catalog import unpack_in_background

unpack_in_background(get_settings())

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from duocthu.api import snapstart
from duocthu.api.body import validated
from duocthu.api.http import create_app, error_response, is_http_event, resolve_http, traced_libraries
from duocthu.api.models import GatherRequest, RetrieveRequest
from duocthu.api.runtime import NotReady, get_runtime
from duocthu.api.services import retrieve as service
from duocthu.core.errors import DependencyUnavailable
from duocthu.models.evidence import EvidenceBundle
from duocthu.store import NoIndex, StoreUnavailable

logger = Logger()
tracer = Tracer(patch_modules=traced_libraries(get_settings()))
metrics = Metrics()
app = create_app(logger)
get_runtime()  # cold start: open the index and load the catalogue once per container
snapstart.register()  # under SnapStart, a container restored from the snapshot builds its AWS clients again


def _retrieve(request: RetrieveRequest, context: LambdaContext | None) -> EvidenceBundle:
    bundle = service.retrieve(get_runtime(), request, context)  # the deadline bounds a rerank
    metrics.add_metric(name=f"Decision_{bundle.decision}", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name=f"Reason_{bundle.reason}", unit=MetricUnit.Count, value=1)
    if bundle.system_error:  # e.g. rerank_unavailable: answered, lexically ordered, and counted
        metrics.add_metric(name=f"SystemError_{bundle.system_error}", unit=MetricUnit.Count, value=1)
    logger.info(
        "retrieved",
        extra={
            "decision": bundle.decision,
            "reason": bundle.reason,
            "evidence": len(bundle.evidence),
            "ordering": bundle.ordering,
            "system_error": bundle.system_error,
        },
    )
    return bundle


@app.exception_handler(NoIndex)
def _no_index(err: NoIndex) -> Response[str]:
    # The active index vanished after cold start (a pointer switched to nothing): a dependency fault.
    logger.error("no active index", extra={"problem": str(err)})
    return error_response(503, "index_unavailable", "the formulary index is not available")


@app.post("/v1/retrieve")
@tracer.capture_method(capture_response=False)  # responses carry patient facts: never in traces
def retrieve(body: RetrieveRequest) -> EvidenceBundle:
    return _retrieve(body, app.lambda_context)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_http_event(event):
        return resolve_http(app, event, context)
    try:
        if "plan" in event:  # the state machine's Retrieve state: every ask of the turn's plan
            request = validated(GatherRequest, event)  # a bad direct input is a program error
            evidence = service.gather(get_runtime(), request.plan, context)
            for answered in evidence.answers:
                metrics.add_metric(
                    name=f"Decision_{answered.bundle.decision}", unit=MetricUnit.Count, value=1
                )
            return evidence.model_dump(mode="json")
        return _retrieve(validated(RetrieveRequest, event), context).model_dump(mode="json")
    except (StoreUnavailable, NotReady, NoIndex) as err:
        metrics.add_metric(name="DependencyUnavailable", unit=MetricUnit.Count, value=1)
        raise DependencyUnavailable("store_unavailable", str(err)) from err

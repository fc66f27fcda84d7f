"""The Powertools HTTP resolver every function uses, with one error contract: every 4xx/5xx body is
an ErrorBody (`error` machine-readable). 413/415/422 for a body that is too big, not JSON or does
not match the schema (api.body checks it before the resolver parses it), 404 for no route,
503 + Retry-After when a dependency is down, and a catch-all 500 internal_error carrying the
correlation id, logged with its traceback and counted (metric InternalError)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError, ServiceError
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from duocthu.api.body import check_body, normalize_media_type
from duocthu.api.models import ErrorBody
from duocthu.api.runtime import NotReady
from duocthu.core.errors import DependencyUnavailable, EmbeddingModelMismatch
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable

RETRY_AFTER_S = "5"

# Every error status a route can answer, and why: the OpenAPI document declares each one with the
# ErrorBody schema (duocthu.tools.openapi). 429 comes from API Gateway's throttling, whose body is
# its own {"message": "Too Many Requests"}.
BODY_ERRORS = {
    413: "the request body is over the size limit (payload_too_large)",
    415: "the request body is not application/json (unsupported_media_type)",
}
ERRORS = {
    422: "the request does not match the schema, is not UTF-8 JSON, is nested too deep or holds an "
    "integer too long (invalid_request, with `detail`)",
    429: 'throttled by API Gateway (its own body: {"message": "Too Many Requests"})',
    500: "a fault nothing else names (internal_error, with `correlation_id`)",
    503: "a dependency is down (index_unavailable, store_unavailable, ...; Retry-After set)",
}
# A route's own errors beyond those (path -> status -> why).
ROUTE_ERRORS = {
    "/v1/chat": {404: "the session_id was not issued by this service, or expired (session_not_found)"},
    "/v1/feedback": {404: "the session_id was not issued by this service, or expired (session_not_found)"},
}


def traced_libraries(settings: Settings) -> tuple[str, ...]:
    """The libraries X-Ray should patch: the ones this deployment makes outbound calls with.

    Powertools' default patches every library X-Ray supports, importing each one installed, which
    costs a cold start about 150 ms for libraries we never call. botocore carries Bedrock,
    DynamoDB, S3 and Secrets Manager; httpx only a Qdrant server or the Cohere API.
    """
    uses_httpx = settings.qdrant_url is not None or settings.rerank_backend == "cohere"
    return ("botocore", "httpx") if uses_httpx else ("botocore",)


def error_response(
    status: int,
    error: str,
    message: str,
    detail: list[Any] | None = None,
    correlation_id: str | None = None,
) -> Response[str]:
    headers = {"Retry-After": RETRY_AFTER_S} if status in (429, 503) else None
    body = ErrorBody(error=error, message=message, detail=detail, correlation_id=correlation_id)
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=body.model_dump_json(exclude_none=True),
        headers=headers,
    )


def internal_error(logger: Logger) -> Response[str]:
    """The answer to a fault nothing else names: logged with its traceback, counted, and the
    correlation id returned so the caller's report finds the log line."""
    logger.exception("unhandled error")
    # Powertools' Metrics instances share one metric set: the function's log_metrics flushes this.
    Metrics().add_metric(name="InternalError", unit=MetricUnit.Count, value=1)
    return error_response(
        500,
        "internal_error",
        "the service failed on this request",
        correlation_id=logger.get_correlation_id(),
    )


def _jsonable(errors: Any) -> list[Any]:
    return [{k: v for k, v in err.items() if k in ("type", "loc", "msg")} for err in errors]


def create_app(logger: Logger) -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)

    @app.exception_handler(RequestValidationError)
    def _invalid(err: RequestValidationError) -> Response[str]:
        return error_response(
            422, "invalid_request", "the request does not match the schema", _jsonable(err.errors())
        )

    @app.exception_handler(RequestUnsupportedContentType)
    def _unsupported(_: RequestUnsupportedContentType) -> Response[str]:  # api.body answers it first
        return error_response(415, "unsupported_media_type", "the request body must be application/json")

    @app.exception_handler(NotFoundError)
    def _not_found(_: NotFoundError) -> Response[str]:
        return error_response(404, "not_found", "no such route")

    @app.exception_handler(NotReady)
    def _not_ready(err: NotReady) -> Response[str]:
        logger.error("index not ready", extra={"problem": str(err)})
        return error_response(503, "index_unavailable", "the formulary index is not available")

    @app.exception_handler(StoreUnavailable)
    def _store(err: StoreUnavailable) -> Response[str]:
        logger.exception("store unavailable")
        return error_response(503, "store_unavailable", "the formulary store could not be reached")

    @app.exception_handler(DependencyUnavailable)
    def _dependency(err: DependencyUnavailable) -> Response[str]:
        logger.exception("dependency unavailable")
        return error_response(503, err.reason, "a dependency could not be reached")

    @app.exception_handler(EmbeddingModelMismatch)
    def _mismatch(err: EmbeddingModelMismatch) -> Response[str]:
        # A deployment fault (the index was embedded by another model), as /health reports it.
        logger.error("embedding model mismatch", extra={"problem": str(err)})
        return error_response(503, "embedding_model_mismatch", "the index and the embedding model disagree")

    @app.exception_handler(ServiceError)
    def _service(err: ServiceError) -> Response[str]:  # the resolver's own 4xx (e.g. 405)
        if err.status_code >= 500:
            return internal_error(logger)
        return error_response(err.status_code, "invalid_request", str(err.msg))

    @app.exception_handler(Exception)
    def _unhandled(_: Exception) -> Response[str]:
        return internal_error(logger)

    return app


def is_http_event(event: Any) -> bool:
    return isinstance(event, dict) and "requestContext" in event and "routeKey" in event


def resolve_http(
    app: APIGatewayHttpResolver, event: dict[str, Any], context: LambdaContext, logger: Logger | None = None
) -> dict[str, Any]:
    """app.resolve, after the body checks of api.body (a bad body is its 4xx, never a 500 from
    inside the resolver), with a last catch-all for a fault outside the routes' handlers."""
    problem = check_body(event)
    if problem is not None:
        response = error_response(problem.status, problem.error, problem.message, problem.detail)
        return _proxy_result(response)
    normalize_media_type(event)
    try:
        return app.resolve(event, context)
    except Exception:
        return _proxy_result(internal_error(logger or Logger()))


def _proxy_result(response: Response[str]) -> dict[str, Any]:
    return {
        "statusCode": response.status_code,
        "headers": {"Content-Type": content_types.APPLICATION_JSON, **(response.headers or {})},
        "body": response.body,
        "isBase64Encoded": False,
    }

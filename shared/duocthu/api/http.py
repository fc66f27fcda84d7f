"""The Powertools HTTP resolver every function uses, with one error contract:
422 invalid_request (with the validation details), 503 + Retry-After when a dependency is down."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.typing import LambdaContext

from duocthu.api.models import ErrorBody
from duocthu.api.runtime import NotReady
from duocthu.core.errors import DependencyUnavailable
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable

RETRY_AFTER_S = "5"


def traced_libraries(settings: Settings) -> tuple[str, ...]:
    """The libraries X-Ray should patch: the ones this deployment makes outbound calls with.

    Powertools' default patches every library X-Ray supports, importing each one installed, which
    costs a cold start about 150 ms for libraries we never call. botocore carries Bedrock,
    DynamoDB, S3 and Secrets Manager; httpx only a Qdrant server or the Cohere API.
    """
    uses_httpx = settings.qdrant_url is not None or settings.rerank_backend == "cohere"
    return ("botocore", "httpx") if uses_httpx else ("botocore",)


def error_response(status: int, error: str, message: str, detail: list[Any] | None = None) -> Response[str]:
    headers = {"Retry-After": RETRY_AFTER_S} if status == 503 else None
    body = ErrorBody(error=error, message=message, detail=detail).model_dump_json(exclude_none=True)
    return Response(
        status_code=status, content_type=content_types.APPLICATION_JSON, body=body, headers=headers
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

    return app


def is_http_event(event: Any) -> bool:
    return isinstance(event, dict) and "requestContext" in event and "routeKey" in event


def resolve_http(
    app: APIGatewayHttpResolver, event: dict[str, Any], context: LambdaContext
) -> dict[str, Any]:
    """app.resolve, except that a body that is not UTF-8 text is a 422 (API Gateway passes such a
    body base64-encoded, and the resolver's validation would fail on it with a 500)."""
    body = event.get("body")
    if event.get("isBase64Encoded") and body:
        try:
            base64.b64decode(body, validate=True).decode("utf-8")
        except (UnicodeDecodeError, binascii.Error):
            response = error_response(422, "invalid_request", "the request body is not valid UTF-8 text")
            return {
                "statusCode": 422,
                "headers": {"Content-Type": content_types.APPLICATION_JSON},
                "body": response.body,
                "isBase64Encoded": False,
            }
    return app.resolve(event, context)

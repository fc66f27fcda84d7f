"""What a request body must be before the resolver parses it: small enough, JSON, shallow, with
integers of sane size. Each check answers a 4xx reason; without them a deep array is a
RecursionError, a 5,000-digit integer a ValueError (Python's int-str limit) and a multipart body
without a boundary a ValueError inside the resolver: 500s where the caller sent a bad request.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

# The largest well-formed request (a 2,000-character message, 20 history items of as much and a
# prior frame) is well under this, in UTF-8's three bytes a Vietnamese letter at most.
MAX_BODY_BYTES = 256 * 1024
MAX_JSON_DEPTH = 16  # the deepest model (a prior frame's condition) is 4 levels down
MAX_INT_DIGITS = 30  # no field holds an integer; a weight or count has a handful of digits
JSON_MEDIA_TYPES = ("application/json",)


@dataclass(frozen=True)
class BodyProblem:
    status: int
    error: str
    message: str
    detail: list[dict[str, Any]]


class _IntTooLong(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _IntTooLong(text[:10])
    return int(text)


def _depth(value: Any) -> int:
    """The nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _problem(status: int, error: str, message: str, kind: str) -> BodyProblem:
    return BodyProblem(status, error, message, [{"type": kind, "loc": ["body"], "msg": message}])


def media_type(headers: dict[str, str] | None) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == "content-type":
            return value.split(";", 1)[0].strip().lower() or None
    return None


def body_bytes(event: dict[str, Any]) -> bytes | BodyProblem:
    body = event.get("body") or ""
    if not event.get("isBase64Encoded"):
        return body.encode("utf-8", "surrogatepass")
    try:
        return base64.b64decode(body, validate=True)
    except binascii.Error:
        return _problem(422, "invalid_request", "the request body is not valid base64", "body_encoding")


_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _declared_type_problem(event: dict[str, Any]) -> BodyProblem | None:
    """A declared media type other than JSON is a 415, with a body or without one: media types are
    case-insensitive (RFC 9110), and Powertools compares them case-sensitively and fails (a 500)
    on an empty body of any other type."""
    kind = media_type(event.get("headers"))
    if kind is None or kind in JSON_MEDIA_TYPES:
        return None
    return _problem(
        415, "unsupported_media_type", "the request body must be application/json", "content_type"
    )


def normalize_media_type(event: dict[str, Any]) -> None:
    """Lower-case a JSON media type in place, so the resolver reads `Application/JSON` as JSON."""
    headers = event.get("headers") or {}
    for key, value in list(headers.items()):
        if key.lower() == "content-type" and media_type({key: value}) in JSON_MEDIA_TYPES:
            del headers[key]
            headers["content-type"] = value.strip().lower()


def check_body(event: dict[str, Any]) -> BodyProblem | None:
    """None when the body may go to the resolver; else the 4xx to answer."""
    method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "")
    if not event.get("body"):
        return _declared_type_problem(event) if method.upper() in _BODY_METHODS else None
    raw = body_bytes(event)
    if isinstance(raw, BodyProblem):
        return raw
    if len(raw) > MAX_BODY_BYTES:
        return _problem(
            413, "payload_too_large", f"the request body is over {MAX_BODY_BYTES} bytes", "body_too_large"
        )
    declared = _declared_type_problem(event)
    if declared is not None:
        return declared
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _problem(422, "invalid_request", "the request body is not valid UTF-8 text", "body_encoding")
    try:
        parsed = json.loads(text, parse_int=_parse_int)
    except _IntTooLong:
        return _problem(
            422, "invalid_request", f"an integer in the body has over {MAX_INT_DIGITS} digits", "int_too_long"
        )
    except RecursionError:  # deeper than the interpreter's stack: over the limit in any case
        return _too_deep()
    except ValueError:
        return None  # not JSON at all: the resolver's own json_invalid 422
    return _too_deep() if _depth(parsed) > MAX_JSON_DEPTH else None


def _too_deep() -> BodyProblem:
    return _problem(
        422, "invalid_request", f"the body is nested over {MAX_JSON_DEPTH} levels deep", "json_too_deep"
    )


class InvalidInput(ValueError):
    """A direct invoke's event that does not match its model. Its message names the fields and
    the error types only: pydantic's own message quotes the input, a clinical question, into the
    Lambda error, its log line and the state machine's execution history."""


def validated(model: type[M], event: Any) -> M:
    try:
        return model.model_validate(event)
    except ValidationError as err:
        where = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'event'}: {e['type']}"
            for e in err.errors(include_input=False, include_url=False, include_context=False)
        )
        raise InvalidInput(f"{model.__name__}: {where}") from None  # no chained input either

"""The clinicians' chat page: static files the chat function serves beside its API.

Same origin as /v1/chat, so no CORS. The Content-Security-Policy allows only the page's own
script and style, connections back to this origin and `data:` images (the empty favicon, so the
browser asks for no /favicon.ico): no inline script, no third-party request.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

# path -> (file in this folder, content type)
ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/render.js": ("render.js", "text/javascript; charset=utf-8"),  # before app.js, which uses it
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # untyped upstream


@cache
def _read(name: str) -> str:
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def asset(path: str) -> Response[str]:
    name, content_type = ASSETS[path]
    return Response(status_code=200, content_type=content_type, body=_read(name), headers=dict(HEADERS))


@router.get("/", include_in_schema=False)
def index() -> Response[str]:
    return asset("/")


@router.get("/app.js", include_in_schema=False)
def script() -> Response[str]:
    return asset("/app.js")


@router.get("/render.js", include_in_schema=False)
def render_script() -> Response[str]:
    return asset("/render.js")


@router.get("/app.css", include_in_schema=False)
def style() -> Response[str]:
    return asset("/app.css")

"""The clinicians' chat page: static files the chat function serves beside its API.

Same origin as /v1/chat, so no CORS. The Content-Security-Policy allows only the page's own
scripts and style, connections back to this origin (and, when the stack signs clinicians in, to
its OIDC issuer and authorize endpoint, for discovery and the token exchange) and `data:` images
(the empty favicon, so the browser asks for no /favicon.ico): no inline script, no third-party
script. oidc-client-ts.min.js is the npm package's built file, committed (`make page-vendor`);
the page loads it only when /sign-in.json names an issuer.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from duocthu.settings import Settings, get_settings

# path -> (file in this folder, content type); the scripts run in this order
ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/auth.js": ("auth.js", "text/javascript; charset=utf-8"),
    "/render.js": ("render.js", "text/javascript; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/oidc-client-ts.min.js": ("oidc-client-ts.min.js", "text/javascript; charset=utf-8"),
}
LOADED_BY_AUTH = frozenset({"/oidc-client-ts.min.js"})  # not in the HTML: auth.js adds it when needed
SIGN_IN = "/sign-in.json"  # the page's sign-in settings (public values), beside the assets
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # untyped upstream


def sign_in(settings: Settings) -> dict[str, Any]:
    """What the page needs to sign a clinician in; empty on a public stack."""
    if not (settings.page_oidc_issuer and settings.page_oidc_client_id):
        return {}
    return {
        "issuer": settings.page_oidc_issuer,
        "authorize_url": settings.page_oidc_authorize_url,
        "client_id": settings.page_oidc_client_id,
    }


def content_security_policy(settings: Settings) -> str:
    config = sign_in(settings)
    urls = [config.get("issuer"), config.get("authorize_url")]
    origins = sorted({f"{u.scheme}://{u.netloc}" for u in map(urlsplit, filter(None, urls))})
    connect = " ".join(["'self'", *origins])
    return (
        f"default-src 'none'; script-src 'self'; style-src 'self'; connect-src {connect}; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def headers() -> dict[str, str]:
    return {"Content-Security-Policy": content_security_policy(get_settings()), **HEADERS}


@cache
def _read(name: str) -> str:
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def asset(path: str) -> Response[str]:
    name, content_type = ASSETS[path]
    return Response(status_code=200, content_type=content_type, body=_read(name), headers=headers())


def _route(path: str) -> None:
    router.get(path, include_in_schema=False)(lambda: asset(path))


for _path in ASSETS:
    _route(_path)


@router.get(SIGN_IN, include_in_schema=False)
def sign_in_config() -> Response[str]:
    body = json.dumps(sign_in(get_settings()))
    return Response(
        status_code=200, content_type=content_types.APPLICATION_JSON, body=body, headers=headers()
    )

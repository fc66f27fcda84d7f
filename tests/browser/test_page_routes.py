"""The chat function serves the page and its two assets (no browser): content types, the CSP that
allows only the page's own script and style, nosniff, and no inline script in the HTML."""

from __future__ import annotations

import json
import re

import pytest
from duocthu import page
from duocthu.settings import get_settings
from duocthu.tools.localserver import ROUTES

from tests.conftest import ROOT
from tests.infrastructure.template import read_sam_template
from tests.integration.test_handlers import LambdaContext, env, http_event, load_function  # noqa: F401

ASSETS = [(path, content_type) for path, (_, content_type) in page.ASSETS.items()]


def get(path: str) -> dict[str, object]:
    response: dict[str, object] = load_function("chat").handler(http_event("GET", path), LambdaContext())
    return response


@pytest.mark.parametrize(("path", "content_type"), ASSETS)
def test_each_asset_has_its_content_type_and_the_security_headers(
    env: None,  # noqa: F811 - fixture
    path: str,
    content_type: str,
) -> None:
    response = get(path)
    headers = response["headers"]
    assert isinstance(headers, dict)
    assert response["statusCode"] == 200 and headers["Content-Type"] == content_type
    assert headers["X-Content-Type-Options"] == "nosniff"
    policy = dict(d.strip().split(" ", 1) for d in headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["connect-src"] == "'self'" and policy["frame-ancestors"] == "'none'"


def test_the_html_has_no_inline_script_or_style_and_loads_only_its_own_files(env: None) -> None:  # noqa: F811
    html = str(get("/")["body"])
    scripts = re.findall(r"<script[^>]*>", html)
    own = [
        path.lstrip("/") for path in page.ASSETS if path.endswith(".js") and path not in page.LOADED_BY_AUTH
    ]
    assert scripts == [f'<script src="{name}" defer>' for name in own]
    assert "<style" not in html and not re.search(r"\s(style|on[a-z]+)=", html)
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "a third-party request"


def test_the_script_never_writes_html(env: None) -> None:  # noqa: F811
    script = re.sub(r"^\s*//.*$", "", str(get("/app.js")["body"]), flags=re.MULTILINE)  # code, not comments
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", script)


def test_the_page_is_not_in_the_api_description(env: None) -> None:  # noqa: F811
    app = load_function("chat").app
    paths = app.get_openapi_schema().paths or {}
    assert "/" not in paths and "/v1/chat" in paths


def test_the_template_and_duocthu_serve_route_every_asset_to_the_chat_function() -> None:
    resources = read_sam_template()["Resources"].values()
    routed = {
        r["Properties"]["RouteKey"]
        for r in resources
        if r["Type"] == "AWS::ApiGatewayV2::Route" and "ChatIntegration" in str(r["Properties"]["Target"])
    }
    paths = (*page.ASSETS, page.SIGN_IN)
    assert {f"GET {path}" for path in paths} <= routed
    assert all(ROUTES[path] == "chat" for path in paths)


def test_the_vendored_oidc_client_is_the_npm_package_s_built_file() -> None:
    built = ROOT / "node_modules" / "oidc-client-ts" / "dist" / "browser" / "oidc-client-ts.min.js"
    assert built.is_file(), "`make node-deps` (npm ci) installs it"
    committed = ROOT / "shared" / "duocthu" / "page" / "oidc-client-ts.min.js"
    assert committed.read_bytes() == built.read_bytes(), "run `make page-vendor` and commit the file"


def test_sign_in_is_offered_only_with_an_issuer_and_the_policy_lets_the_page_reach_it(
    env: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    response = get("/sign-in.json")
    assert json.loads(str(response["body"])) == {}
    assert "connect-src 'self';" in response["headers"]["Content-Security-Policy"]  # type: ignore[index]
    monkeypatch.setenv("PAGE_OIDC_ISSUER", "https://issuer.example/pool")
    monkeypatch.setenv("PAGE_OIDC_AUTHORIZE_URL", "https://login.example/oauth2/authorize")
    monkeypatch.setenv("PAGE_OIDC_CLIENT_ID", "page-client")
    get_settings.cache_clear()
    response = get("/sign-in.json")
    assert json.loads(str(response["body"])) == {
        "issuer": "https://issuer.example/pool",
        "authorize_url": "https://login.example/oauth2/authorize",
        "client_id": "page-client",
    }
    policy = response["headers"]["Content-Security-Policy"]  # type: ignore[index]
    assert "connect-src 'self' https://issuer.example https://login.example;" in policy


def test_the_page_s_own_files_stay_small() -> None:
    """No framework, no build step: the page's own files (the vendored sign-in library apart)."""
    own = [name for path, (name, _) in page.ASSETS.items() if path not in page.LOADED_BY_AUTH]
    size = sum(len((ROOT / "shared" / "duocthu" / "page" / name).read_bytes()) for name in own)
    assert size < 45_000, size

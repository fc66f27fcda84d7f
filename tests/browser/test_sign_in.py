"""Sign-in with an issuer set (PAGE_OIDC_*, as template.yaml passes JwtIssuer, PageAuthorizeUrl and
PageClientId), in Chromium against a local OIDC issuer on loopback: authorization code + PKCE, the
Bearer token on every API call, a refresh when it expires, a new sign-in when the API refuses it,
and sign-out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from duocthu.settings import get_settings
from playwright.sync_api import Page, Request, expect

from tests.browser.conftest import SIZE_IDS, SIZES
from tests.browser.oidc_stub import CLIENT_ID, Issuer, oidc_issuer
from tests.browser.test_chat_page import SECTION_QUESTION, ask, no_csp_violation

SIGNED_OUT = "Hãy đăng nhập để đặt câu hỏi."


@pytest.fixture
def issuer(env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Issuer]:
    with oidc_issuer() as running:
        monkeypatch.setenv("PAGE_OIDC_ISSUER", running.url)
        monkeypatch.setenv("PAGE_OIDC_AUTHORIZE_URL", f"{running.url}/authorize")
        monkeypatch.setenv("PAGE_OIDC_CLIENT_ID", CLIENT_ID)
        get_settings.cache_clear()
        yield running


@pytest.fixture
def base_url(issuer: Issuer, server: str) -> str:
    return f"{server}/"


def bearer_of_chat(page: Page) -> list[str | None]:
    seen: list[str | None] = []

    def note(request: Request) -> None:
        if request.url.endswith(("/v1/chat", "/v1/feedback")):
            seen.append(request.headers.get("authorization"))

    page.on("request", note)
    return seen


def sign_in(page: Page) -> None:
    page.get_by_role("button", name="Đăng nhập").click()
    expect(page.locator("#who")).to_have_text("BS. Lan")
    expect(page.get_by_role("button", name="Đăng xuất")).to_be_visible()


@pytest.mark.parametrize("page", SIZES, indirect=True, ids=SIZE_IDS)
def test_a_clinician_signs_in_with_pkce_and_every_call_carries_the_token(
    page: Page, issuer: Issuer, console: list[str]
) -> None:
    bearers = bearer_of_chat(page)
    expect(page.locator("#who")).to_have_text(SIGNED_OUT)
    page.fill("#message", SECTION_QUESTION)
    page.press("#message", "Enter")  # not signed in: nothing is sent, the question is kept
    expect(page.locator("#error")).to_contain_text("chưa đăng nhập")
    expect(page.locator("#message")).to_have_value(SECTION_QUESTION)
    assert bearers == []
    sign_in(page)
    assert issuer.grants == ["authorization_code"]  # the verifier matched the challenge
    assert "code=" not in page.url  # the code is used once and leaves the address bar
    ask(page, SECTION_QUESTION)
    page.locator(".reply .report").click()
    page.get_by_role("button", name="Gửi báo lỗi").click()
    expect(page.locator(".feedback-status")).to_have_text("Đã gửi báo lỗi. Cảm ơn bạn.")
    assert bearers == ["Bearer at-1", "Bearer at-1"]
    no_csp_violation(console)  # discovery and the token exchange are allowed, nothing else


def test_an_expired_token_is_refreshed_and_a_refused_one_asks_to_sign_in_again(
    page: Page, issuer: Issuer
) -> None:
    bearers = bearer_of_chat(page)
    sign_in(page)
    key = f"oidc.user:{issuer.url}:{CLIENT_ID}"
    page.evaluate(  # the access token's time is up
        """key => { const user = JSON.parse(sessionStorage.getItem(key));
        user.expires_at = Math.floor(Date.now() / 1000) - 60;
        sessionStorage.setItem(key, JSON.stringify(user)); }""",
        key,
    )
    ask(page, SECTION_QUESTION)
    assert issuer.grants == ["authorization_code", "refresh_token"] and bearers == ["Bearer at-2"]
    page.route("**/v1/chat", lambda route: route.fulfill(status=401, json={"message": "Unauthorized"}))
    page.fill("#message", "Còn tác dụng không mong muốn thì sao?")
    page.press("#message", "Enter")
    expect(page.locator("#error")).to_contain_text("đăng nhập")
    expect(page.get_by_role("button", name="Đăng nhập")).to_be_visible()
    expect(page.locator("#message")).to_have_value("Còn tác dụng không mong muốn thì sao?")
    page.unroute("**/v1/chat")
    sign_in(page)
    ask(page, "Còn tác dụng không mong muốn thì sao?")
    assert bearers[-1] == "Bearer at-3"


def test_sign_out_forgets_the_token_and_the_conversation(page: Page, issuer: Issuer) -> None:
    sign_in(page)
    ask(page, SECTION_QUESTION)
    page.get_by_role("button", name="Đăng xuất").click()
    expect(page.locator("#who")).to_have_text(SIGNED_OUT)
    expect(page.locator(".turn")).to_have_count(0)
    stored = page.evaluate("Object.keys(sessionStorage)")
    assert not [k for k in stored if k.startswith("oidc.user") or k == "duocthu.conversation"], stored
    page.reload()
    expect(page.get_by_role("button", name="Đăng nhập")).to_be_visible()
    expect(page.locator(".turn")).to_have_count(0)

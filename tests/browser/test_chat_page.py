"""What a clinician sees on the chat page, in Chromium, against the real handlers and sample index."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, Request, Route, expect

SECTION_QUESTION = "Chống chỉ định của amoxicilin là gì?"
DOSE_TABLE_QUESTION = "paracetamol cho trẻ 12 kg liều bao nhiêu?"


def ask(page: Page, text: str) -> None:
    """Type a message and press Enter; wait for the turn to finish."""
    replies = page.locator(".reply").count()
    page.fill("#message", text)
    page.press("#message", "Enter")
    expect(page.locator(".reply")).to_have_count(replies + 1)
    expect(page.locator("#busy")).to_be_hidden()


def chat_bodies(page: Page) -> list[dict[str, Any]]:
    """The bodies the page POSTs to /v1/chat, in order (filled as requests go out)."""
    bodies: list[dict[str, Any]] = []

    def note(request: Request) -> None:
        if request.url.endswith("/v1/chat"):
            bodies.append(json.loads(request.post_data or "{}"))

    page.on("request", note)
    return bodies


def no_csp_violation(console: list[str]) -> None:
    assert not [line for line in console if "Content Security Policy" in line or "pageerror" in line]


def test_a_section_question_shows_the_answer_with_its_citation_and_pages(
    page: Page, console: list[str], requested: list[str], base_url: str
) -> None:
    expect(page.locator("#sample-notice")).to_be_visible()  # /health says sample_data
    ask(page, SECTION_QUESTION)
    reply = page.locator(".reply").last
    expect(reply).to_have_class("turn reply answer")
    summary = reply.locator("details.section summary").first
    expect(summary).to_have_text("Amoxicilin – Chống chỉ định (tr. 164–165)")
    expect(reply.locator(".chip")).to_have_text(["Amoxicilin – Chống chỉ định – tr. 164–165"])
    expect(reply.locator(".source")).to_have_count(1)  # the book and edition once per answer
    expect(reply.locator(".source")).to_contain_text("(bản mẫu 2026)")
    expect(reply.locator(".banner")).to_have_count(0)
    section = reply.locator("details.section").first
    expect(section).to_have_attribute("open", "")
    section.locator("summary").click()  # collapsible
    expect(section).not_to_have_attribute("open", "")
    expect(page.locator("#message")).to_have_value("")  # sent, so the box is cleared
    no_csp_violation(console)
    assert all(url.startswith((base_url, "data:")) for url in requested), "a third-party request"
    assert {url.removeprefix(base_url) for url in requested} >= {
        "", "app.js", "render.js", "app.css", "health", "v1/chat"
    }  # fmt: skip


def test_a_dose_table_question_shows_the_check_the_printed_page_banner_on_that_answer(page: Page) -> None:
    ask(page, SECTION_QUESTION)
    ask(page, DOSE_TABLE_QUESTION)
    first, second = page.locator(".reply").nth(0), page.locator(".reply").nth(1)
    expect(first.locator(".banner")).to_have_count(0)
    banner = second.locator(".banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("CẦN ĐỐI CHIẾU BẢN IN")
    expect(banner).to_contain_text("Paracetamol, Liều lượng và cách dùng, tr. 109–110")
    expect(second.locator(".chip")).to_have_text(["Paracetamol – Liều lượng và cách dùng – tr. 109–110"])


def test_a_typo_offers_quick_replies_and_clicking_one_answers(page: Page) -> None:
    bodies = chat_bodies(page)
    ask(page, "Chống chỉ định của amoxixilin?")
    asked_back = page.locator(".reply").last
    expect(asked_back).to_have_class("turn reply clarify")
    button = asked_back.get_by_role("button", name="Amoxicilin")
    button.click()
    expect(page.locator(".reply")).to_have_count(2)
    expect(page.locator("#busy")).to_be_hidden()
    answer = page.locator(".reply").last
    expect(answer).to_have_class("turn reply answer")
    expect(answer.locator(".chip").first).to_contain_text("Amoxicilin – Chống chỉ định")
    assert [b["message"] for b in bodies] == ["Chống chỉ định của amoxixilin?", "Amoxicilin"]


def test_a_follow_up_in_the_same_session_keeps_the_drug(page: Page) -> None:
    bodies = chat_bodies(page)
    with page.expect_response("**/v1/chat") as first:
        ask(page, SECTION_QUESTION)
    issued = first.value.json()["session_id"]
    ask(page, "Còn tác dụng không mong muốn thì sao?")
    follow_up = page.locator(".reply").last
    expect(follow_up).to_have_class("turn reply answer")
    expect(follow_up.locator(".chip").first).to_contain_text("Amoxicilin – ")
    # The first turn sends no session id (the server issues it); the next sends the server's back.
    assert "session_id" not in bodies[0]
    assert issued and bodies[1]["session_id"] == issued


def test_a_new_conversation_forgets_the_session(page: Page) -> None:
    bodies = chat_bodies(page)
    ask(page, SECTION_QUESTION)
    page.get_by_role("button", name="Cuộc trò chuyện mới").click()
    expect(page.locator(".turn")).to_have_count(0)
    ask(page, SECTION_QUESTION)
    assert "session_id" not in bodies[0] and "session_id" not in bodies[1]


def test_an_abstention_looks_like_no_information_never_like_an_answer(page: Page) -> None:
    ask(page, "Chống chỉ định của thuốc xyzabc là gì?")
    reply = page.locator(".reply").last
    expect(reply).to_have_class("turn reply abstain")
    expect(reply.locator(".kind")).to_have_text("Không có thông tin")
    expect(reply.locator(".answering, .chip, .banner, details, table")).to_have_count(0)
    assert reply.evaluate("e => getComputedStyle(e).borderStyle") == "dashed"


@pytest.mark.parametrize(
    ("status", "says"),
    [(503, "gửi lại sau 5 giây"), (429, "đợi 5 giây"), (422, "chưa hợp lệ")],
    ids=["503", "429", "422"],
)
def test_an_error_status_shows_what_to_do_and_keeps_the_typed_text(
    page: Page, status: int, says: str
) -> None:
    def refuse(route: Route) -> None:
        body = json.dumps({"error": "index_unavailable", "message": "the formulary index is not available"})
        route.fulfill(status=status, body=body, content_type="application/json", headers={"Retry-After": "5"})

    page.route("**/v1/chat", refuse)
    page.fill("#message", SECTION_QUESTION)
    page.press("#message", "Enter")
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(says)
    expect(error).to_contain_text("vẫn còn trong ô nhập")
    expect(page.locator("#message")).to_have_value(SECTION_QUESTION)
    expect(page.locator(".turn")).to_have_count(0)  # no question left hanging without its answer
    expect(page.locator("#send")).to_be_enabled()


def test_markup_in_a_message_is_shown_as_text_and_runs_nothing(page: Page, console: list[str]) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    markup = "<img src=x onerror=alert(1)>"
    ask(page, f"Chống chỉ định của {markup}?")
    expect(page.locator(".question").last).to_have_text(f"Chống chỉ định của {markup}?")
    assert page.locator("#conversation img").count() == 0
    page.wait_for_timeout(200)  # time for an onerror to fire, were there an image
    assert dialogs == []
    no_csp_violation(console)


def test_shift_enter_is_a_new_line_and_the_busy_indicator_shows_while_a_turn_runs(page: Page) -> None:
    page.fill("#message", "Chống chỉ định")
    page.press("#message", "Shift+Enter")
    page.keyboard.type("của amoxicilin?")
    expect(page.locator("#message")).to_have_value("Chống chỉ định\ncủa amoxicilin?")
    expect(page.locator(".turn")).to_have_count(0)

    held: list[Route] = []
    page.route("**/v1/chat", lambda route: held.append(route))
    page.press("#message", "Enter")
    expect(page.locator("#busy")).to_be_visible()
    expect(page.locator("#send")).to_be_disabled()
    for _ in range(100):  # the request reaches the route a moment after the click
        if held:
            break
        page.wait_for_timeout(50)
    held[0].continue_()
    expect(page.locator("#busy")).to_be_hidden()
    expect(page.locator(".reply")).to_have_count(1)


@pytest.mark.parametrize("page", [360], indirect=True)
def test_the_page_at_360_px_has_no_horizontal_scroll(page: Page) -> None:
    ask(page, DOSE_TABLE_QUESTION)
    ask(page, "Chống chỉ định của amoxixilin?")
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1] == 360
    expect(page.locator("#sample-notice")).to_be_in_viewport()


def test_a_dependency_down_reads_as_not_looked_up_not_as_no_information(page: Page) -> None:
    def down(route: Route) -> None:  # the body /v1/chat sends when the store is down (200, ABSTAIN)
        reply = {
            "session_id": "s1",
            "answer": "Hệ thống chưa tra cứu được Dược thư lúc này.",
            "decision": "ABSTAIN",
            "reason": "dependency_unavailable",
            "system_error": "store_unavailable",
            "citations": [],
            "quick_replies": [],
            "bundle": {"decision": "ABSTAIN", "reason": "dependency_unavailable", "evidence": []},
        }
        route.fulfill(status=200, body=json.dumps(reply), content_type="application/json")

    page.route("**/v1/chat", down)
    ask(page, SECTION_QUESTION)
    reply = page.locator(".reply").last
    expect(reply).to_have_class("turn reply abstain unavailable")
    expect(reply.locator(".kind")).to_have_text("Chưa tra cứu được, hãy thử lại")


def test_the_sample_notice_goes_only_when_health_says_the_data_is_not_sample(page: Page) -> None:
    page.route("**/health", lambda route: route.abort())  # /health unreachable: the notice stays
    page.reload()
    page.wait_for_load_state("networkidle")
    expect(page.locator("#sample-notice")).to_be_visible()
    page.unroute("**/health")
    page.route("**/health", lambda route: route.fulfill(json={"status": "ok", "sample_data": False}))
    page.reload()
    page.wait_for_load_state("networkidle")
    expect(page.locator("#sample-notice")).to_be_hidden()


def test_every_control_is_labelled_and_reachable_from_the_keyboard(page: Page) -> None:
    ask(page, "Chống chỉ định của amoxixilin?")
    # the box has the focus after a turn too
    expect(page.get_by_role("textbox", name="Câu hỏi")).to_be_focused()
    reached = []
    for _ in range(6):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.textContent || document.activeElement.id"))
    assert {"Gửi", "Cuộc trò chuyện mới", "Amoxicilin"} <= set(reached)
    for button in page.get_by_role("button").all():
        assert button.text_content(), "a button without a name"


def test_a_focused_question_quotes_its_answering_line_first_with_its_chip(page: Page) -> None:
    ask(page, "Liều tối đa của paracetamol một ngày cho người lớn là bao nhiêu?")
    reply = page.locator(".reply").last
    expect(reply.locator(".lead-heading")).to_contain_text("Liều lượng và cách dùng")
    expect(reply.locator(".answer-lines li q").first).to_contain_text("tối đa 4 g/ngày")
    expect(reply.locator(".chip")).to_have_text(["Paracetamol – Liều lượng và cách dùng – tr. 109–110"])
    # the answering lines come first, before the chips and the quoted section
    order = reply.evaluate(
        "r => [...r.querySelectorAll('.answer-lines, .chips, details.section')].map(e => e.className)"
    )
    assert order[:2] == ["answer-lines", "chips"], order
    # the whole section still follows, collapsible, and its table as a table
    expect(reply.locator("details.section").first).to_contain_text("Trẻ em, đường uống")
    expect(reply.locator("table caption")).to_contain_text("Bảng liều theo cân nặng")


def test_an_effect_stated_outside_the_adr_list_is_quoted_first_with_its_source(page: Page) -> None:
    ask(page, "Amiodaron có gây kéo dài khoảng QT không?")
    reply = page.locator(".reply").last
    expect(reply.locator(".lead-heading")).to_contain_text("Dược lý và cơ chế tác dụng")
    expect(reply.locator(".answer-lines li q").first).to_contain_text("khoảng QT kéo dài trên điện tâm đồ")
    # its section is not quoted below, so its page stands beside it; the ADR silence says so
    expect(reply.locator(".answer-lines li cite").first).to_contain_text("tr. 449")
    expect(reply.locator(".lead.answering")).to_contain_text("không nêu “khoảng QT kéo dài”")
    order = reply.evaluate(
        "r => [...r.querySelectorAll('.answer-lines, .chips, details.section')].map(e => e.className)"
    )
    assert order[:2] == ["answer-lines", "chips"], order

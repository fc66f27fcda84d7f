"""The page at the bedside, each flow at 1280x800 and 390x844 in Chromium: the reply's blocks drawn
(tables, patient statuses, chips), conversations kept apart under a delayed /v1/chat, the state
beside the composer, copy and "Báo lỗi"."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import OUTPUT, SIZE_IDS, SIZES
from tests.browser.test_chat_page import DOSE_TABLE_QUESTION, SECTION_QUESTION, ask, chat_bodies

PATIENT_QUESTION = "Phụ nữ có thai bị đau đầu dùng thuốc gì?"
MANY_SECTIONS_QUESTION = "Chống chỉ định của ibuprofen, meloxicam, diclofenac và acid acetylsalicylic?"
both_sizes = pytest.mark.parametrize("page", SIZES, indirect=True, ids=SIZE_IDS)


def hold_chat(page: Page) -> list[Route]:
    """Hold every /v1/chat request until the test lets it go (a slow server)."""
    held: list[Route] = []
    page.route("**/v1/chat", lambda route: held.append(route))
    return held


def wait_for(page: Page, ready: Callable[[], bool]) -> None:
    for _ in range(200):  # a request reaches the route a moment after the key press
        if ready():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never got there")


def in_view(page: Page, selector: str) -> bool:
    """The last element `selector` matches starts inside the viewport, under neither sticky bar."""
    return bool(
        page.evaluate(
            """s => { const r = [...document.querySelectorAll(s)].pop().getBoundingClientRect();
            const top = document.getElementById('top').getBoundingClientRect().bottom;
            const bottom = document.getElementById('composer').getBoundingClientRect().top;
            return r.top >= top - 1 && r.top < bottom; }""",
            selector,
        )
    )


def no_horizontal_scroll(page: Page) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], widths


@both_sizes
def test_a_dose_table_is_a_table_with_its_caption_and_the_patients_row_marked(page: Page) -> None:
    ask(page, DOSE_TABLE_QUESTION)
    reply = page.locator(".reply").last
    table = reply.locator("table.data")
    expect(table.locator("caption")).to_contain_text("Bảng liều theo cân nặng")
    expect(table.locator("thead th")).to_have_text(["Cân nặng", "Liều mỗi lần"])
    # the row the answering lines quote (12 kg) is marked, in words as well as colour
    expect(table.locator("tr.match")).to_have_count(1)
    expect(table.locator("tr.match")).to_contain_text("11 – 15 kg")
    expect(table.locator("tr.match")).to_contain_text("khớp với người bệnh")
    # the answering lines come first; the book and edition once, at the end
    order = reply.evaluate("r => [...r.children].map(e => e.className)")
    assert order[1] == "lead answering", order
    expect(reply.locator(".source")).to_have_count(1)
    assert order[-2] == "source", order  # then the actions
    no_horizontal_scroll(page)


@both_sizes
def test_a_patient_table_colours_each_status_and_says_it_in_words(page: Page) -> None:
    ask(page, PATIENT_QUESTION)
    table = page.locator(".reply").last.locator("table.patient")
    expect(table.locator("caption")).to_have_text("Đối chiếu từng thuốc với người bệnh")
    contraindicated = table.locator("td.status-ci").first
    expect(contraindicated.locator(".status-word")).to_have_text("CHỐNG CHỈ ĐỊNH")
    expect(table.locator("td.status-none .status-word").first).to_have_text("mục không nêu")
    colours = {
        cls: table.locator(f"td.{cls}").first.evaluate("e => getComputedStyle(e).backgroundColor")
        for cls in ("status-ci", "status-none")
    }
    assert colours["status-ci"] != colours["status-none"]
    # the sentences a status comes from are one click away
    contraindicated.locator("summary").click()
    expect(contraindicated.locator("blockquote").first).to_be_visible()
    expect(table.locator("td.status-caution .status-word").first).to_have_text("THẬN TRỌNG")
    phone = page.viewport_size and page.viewport_size["width"] < 640
    # a phone shows a card per drug: no header row, each cell labelled
    if not phone:
        expect(table.locator("thead")).to_be_visible()
    else:
        expect(table.locator("thead")).to_be_hidden()
        label = contraindicated.evaluate("e => getComputedStyle(e, '::before').content")
        assert "Chống chỉ định / thận trọng" in label
    no_horizontal_scroll(page)


@both_sizes
def test_long_sections_after_the_first_start_collapsed_and_a_chip_opens_its_block(page: Page) -> None:
    ask(page, MANY_SECTIONS_QUESTION)
    reply = page.locator(".reply").last
    sections = reply.locator("details.section")
    expect(sections.first).to_have_attribute("open", "")
    assert sections.count() >= 3
    expect(sections.nth(2)).not_to_have_attribute("open", "")
    chip = reply.locator(".chip").nth(2)
    expect(chip).to_contain_text("Chống chỉ định")
    chip.click()
    expect(sections.nth(2)).to_have_attribute("open", "")
    expect(sections.nth(2)).to_be_focused()
    assert in_view(page, f"#{sections.nth(2).get_attribute('id')}")


@both_sizes
def test_a_new_conversation_while_an_answer_loads_drops_that_answer_and_its_session(page: Page) -> None:
    bodies = chat_bodies(page)
    with page.expect_response("**/v1/chat") as first:
        ask(page, SECTION_QUESTION)
    old_session = first.value.json()["session_id"]
    held = hold_chat(page)
    page.fill("#message", "Còn tác dụng không mong muốn thì sao?")
    page.press("#message", "Enter")
    wait_for(page, lambda: bool(held))
    expect(page.locator("#busy")).to_be_visible()
    page.fill("#message", "đang gõ dở")  # typed while waiting
    page.get_by_role("button", name="Cuộc trò chuyện mới").click()
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.locator("#busy")).to_be_hidden()
    with contextlib.suppress(Exception):  # the late answer arrives (or was aborted already)
        held[0].continue_()
    page.wait_for_timeout(1500)
    expect(page.locator(".turn")).to_have_count(0)  # it never lands in the new conversation
    expect(page.locator("#message")).to_have_value("đang gõ dở")
    page.unroute("**/v1/chat")
    ask(page, SECTION_QUESTION)
    assert bodies[1]["session_id"] == old_session
    assert "session_id" not in bodies[2]  # nor does it hand its session to the new one


@both_sizes
def test_the_conversation_survives_a_reload_and_a_new_one_clears_it(page: Page) -> None:
    bodies = chat_bodies(page)
    with page.expect_response("**/v1/chat") as first:
        ask(page, SECTION_QUESTION)
    session = first.value.json()["session_id"]
    page.reload()
    expect(page.locator(".reply")).to_have_count(1)
    expect(page.locator(".question")).to_have_text([SECTION_QUESTION])
    expect(page.locator(".reply .chip")).to_have_text(["Amoxicilin – Chống chỉ định – tr. 164–165"])
    ask(page, "Còn tác dụng không mong muốn thì sao?")
    assert bodies[-1]["session_id"] == session
    page.get_by_role("button", name="Cuộc trò chuyện mới").click()
    page.reload()
    expect(page.locator("#message")).to_be_focused()
    expect(page.locator(".turn")).to_have_count(0)


@both_sizes
def test_busy_and_error_show_beside_the_composer_and_gui_lai_sends_again(page: Page) -> None:
    ask(page, DOSE_TABLE_QUESTION)  # a long answer above
    calls: list[int] = []

    def down_once(route: Route) -> None:
        calls.append(1)
        if len(calls) == 1:
            body = json.dumps({"error": "index_unavailable", "message": "down"})
            route.fulfill(status=503, body=body, headers={"Retry-After": "5"})
        else:
            route.continue_()

    page.route("**/v1/chat", down_once)
    page.fill("#message", SECTION_QUESTION)
    page.press("#message", "Enter")
    error = page.locator("#error")
    expect(error).to_be_in_viewport()
    expect(error).to_contain_text("gửi lại sau 5 giây")
    expect(page.locator("#message")).to_have_value(SECTION_QUESTION)
    page.get_by_role("button", name="Gửi lại").click()
    expect(page.locator(".reply")).to_have_count(2)
    expect(error).to_be_hidden()
    expect(page.locator("#message")).to_have_value("")


@both_sizes
def test_the_new_question_shows_below_the_sticky_bar_and_the_notice_becomes_a_pill(page: Page) -> None:
    notice = page.locator("#sample-notice")
    full = notice.bounding_box()
    box = page.locator("#message")
    assert box.get_attribute("rows") == "1" and box.get_attribute("enterkeyhint") == "send"
    ask(page, DOSE_TABLE_QUESTION)
    pill = notice.bounding_box()
    assert full and pill and pill["height"] < min(30, full["height"]), (full, pill)
    expect(notice).to_contain_text("DỮ LIỆU MẪU")
    held = hold_chat(page)
    page.fill("#message", SECTION_QUESTION)
    page.press("#message", "Enter")
    wait_for(page, lambda: bool(held))
    expect(page.locator("#busy")).to_be_in_viewport()
    assert in_view(page, ".question")
    held[0].continue_()
    expect(page.locator(".reply")).to_have_count(2)
    assert in_view(page, ".question")
    # the sticky bars leave most of the screen (27 % of a phone's before); the composer is one row
    # until more is typed
    bars = page.evaluate(
        "(document.getElementById('top').offsetHeight + document.getElementById('composer').offsetHeight)"
        " / window.innerHeight"
    )
    phone = page.viewport_size and page.viewport_size["width"] < 640
    assert bars < (0.2 if phone else 0.25), bars
    height = page.evaluate("document.getElementById('message').offsetHeight")
    page.fill("#message", "dòng 1\ndòng 2\ndòng 3")
    page.dispatch_event("#message", "input")
    assert page.evaluate("document.getElementById('message').offsetHeight") > height
    expect(page.get_by_role("button", name="Cuộc trò chuyện mới")).to_be_in_viewport()


@both_sizes
def test_jump_to_newest_appears_when_scrolled_away(page: Page) -> None:
    ask(page, MANY_SECTIONS_QUESTION)
    ask(page, DOSE_TABLE_QUESTION)
    page.evaluate("window.scrollTo(0, 0)")
    jump = page.get_by_role("button", name="Xuống câu mới nhất ↓")
    expect(jump).to_be_visible()
    jump.click()
    expect(page.locator(".reply").last).to_be_in_viewport()
    expect(page.get_by_role("button", name="Cuộc trò chuyện mới")).to_be_in_viewport()


@both_sizes
def test_copy_puts_the_question_the_answer_and_full_citations_on_the_clipboard(page: Page) -> None:
    ask(page, SECTION_QUESTION)
    reply = page.locator(".reply").last
    reply.get_by_role("button", name="Sao chép").click()
    expect(reply.locator(".copied")).to_have_text("Đã sao chép")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(f"Câu hỏi: {SECTION_QUESTION}\n\n")
    assert "Người bệnh có tiền sử quá mẫn với amoxicilin" in copied
    assert copied.rstrip().endswith(
        "- Dược thư mẫu của nhóm phát triển (theo văn phong Dược thư Quốc gia Việt Nam) (bản mẫu 2026), "
        "Amoxicilin, mục “Chống chỉ định”, tr. 164–165"
    )


@both_sizes
def test_bao_loi_posts_the_turn_id_and_the_note(page: Page) -> None:
    with page.expect_response("**/v1/chat") as answered:
        ask(page, SECTION_QUESTION)
    reply_body = answered.value.json()
    reply = page.locator(".reply").last
    reply.get_by_role("button", name="Báo lỗi").click()
    note = reply.get_by_role("textbox", name="Điều gì chưa đúng? (không bắt buộc)")
    expect(note).to_be_focused()
    note.fill("thiếu ý về dị ứng chéo")
    with page.expect_request("**/v1/feedback") as sent, page.expect_response("**/v1/feedback") as stored:
        reply.get_by_role("button", name="Gửi báo lỗi").click()
    assert json.loads(sent.value.post_data or "{}") == {
        "session_id": reply_body["session_id"],
        "turn_id": reply_body["turn_id"],
        "note": "thiếu ý về dị ứng chéo",
    }
    assert stored.value.status == 201
    expect(reply.locator(".feedback-status")).to_have_text("Đã gửi báo lỗi. Cảm ơn bạn.")


@both_sizes
def test_the_live_region_announces_a_short_summary_not_the_answer(page: Page) -> None:
    ask(page, MANY_SECTIONS_QUESTION)
    said = page.locator("#announce").text_content() or ""
    assert said.startswith("Trả lời từ Dược thư.") and len(said) < 260, said
    assert page.locator("#conversation").get_attribute("aria-live") is None


@both_sizes
def test_keyboard_only_asks_jumps_to_a_citation_and_reports(page: Page) -> None:
    page.keyboard.type(SECTION_QUESTION)
    page.keyboard.press("Enter")
    expect(page.locator(".reply")).to_have_count(1)
    chip = page.locator(".chip").first
    chip.focus()
    outline = chip.evaluate("e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth")
    assert outline == "solid 3px", outline
    page.keyboard.press("Enter")
    expect(page.locator("details.section").first).to_be_focused()
    page.locator(".reply .report").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".feedback textarea")).to_be_focused()


@both_sizes
def test_the_screenshots_the_docs_show(page: Page) -> None:
    """Viewport shots (what a clinician sees, sticky bars included) for docs/page.md."""
    size = "phone" if (page.viewport_size or {}).get("width", 0) < 640 else "desktop"
    OUTPUT.mkdir(exist_ok=True)
    ask(page, DOSE_TABLE_QUESTION)
    page.screenshot(path=OUTPUT / f"page-answer-{size}.png")  # the answering lines under the question
    page.evaluate("document.querySelector('.reply:last-child table.data').scrollIntoView({block: 'center'})")
    page.screenshot(path=OUTPUT / f"page-dose-{size}.png")
    ask(page, PATIENT_QUESTION)
    page.locator(".reply").last.locator("table.patient").evaluate("t => t.scrollIntoView({block: 'start'})")
    page.screenshot(path=OUTPUT / f"page-patient-{size}.png")


def test_a_late_reply_that_was_not_aborted_is_still_dropped_by_its_generation(page: Page) -> None:
    """The abort is one guard; the conversation's generation is the other: with abort() made a
    no-op, the old reply does arrive, and neither renders nor hands over its session."""
    page.add_init_script("AbortController.prototype.abort = function () {};")
    page.reload()
    bodies = chat_bodies(page)
    held = hold_chat(page)
    page.fill("#message", SECTION_QUESTION)
    page.press("#message", "Enter")
    wait_for(page, lambda: bool(held))
    page.get_by_role("button", name="Cuộc trò chuyện mới").click()
    with page.expect_response("**/v1/chat") as late:
        held[0].continue_()
    assert late.value.ok and late.value.json()["session_id"]  # it came back
    page.wait_for_timeout(300)
    expect(page.locator(".turn")).to_have_count(0)
    page.unroute("**/v1/chat")
    ask(page, SECTION_QUESTION)
    assert "session_id" not in bodies[1]
    page.reload()  # nor was it remembered
    expect(page.locator(".reply")).to_have_count(1)

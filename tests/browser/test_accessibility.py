"""axe-core (an npm dev dependency: `make node-deps`, never shipped) over the page in each state a
clinician meets, at both sizes: 0 violations of its default rules (WCAG 2.x A/AA and best practice)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SIZE_IDS, SIZES
from tests.browser.test_chat_page import DOSE_TABLE_QUESTION, ask
from tests.browser.test_page_flows import PATIENT_QUESTION
from tests.conftest import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def violations(page: Page) -> list[dict[str, Any]]:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: `make node-deps` (npm ci) installs it")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(Path(AXE).read_text(encoding="utf-8"))  # by the driver: the page's CSP stays
    found: list[dict[str, Any]] = page.evaluate("axe.run(document).then(r => r.violations)")
    return [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:5]} for v in found]


@pytest.mark.parametrize("page", SIZES, indirect=True, ids=SIZE_IDS)
def test_axe_finds_nothing_empty_answered_reported_and_failed(page: Page) -> None:
    assert violations(page) == []
    ask(page, DOSE_TABLE_QUESTION)
    ask(page, PATIENT_QUESTION)
    page.locator(".reply .quotes summary").first.click()
    page.locator(".reply .report").first.click()
    assert violations(page) == [], json.dumps(violations(page), ensure_ascii=False)
    page.route("**/v1/chat", lambda route: route.fulfill(status=503, body="{}"))
    page.fill("#message", "Chỉ định của losartan?")
    page.press("#message", "Enter")
    expect(page.locator("#error")).to_be_visible()
    assert violations(page) == []


@pytest.mark.parametrize("page", SIZES, indirect=True, ids=SIZE_IDS)
def test_landmarks_name_the_page_s_parts(page: Page) -> None:
    for role, name in [("banner", None), ("main", None), ("form", "Đặt câu hỏi")]:
        expect(page.get_by_role(role, name=name)).to_have_count(1)  # type: ignore[arg-type]
    expect(page.locator("#announce")).to_have_attribute("aria-live", "polite")

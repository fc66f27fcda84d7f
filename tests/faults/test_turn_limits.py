"""A turn naming more drugs than one reply can quote is a question back: bounded in size and
time, through POST /v1/chat and through the understand function the state machine calls."""

from __future__ import annotations

import json
import time

import pytest
from duocthu.api.turn_limits import MAX_DRUGS_PER_TURN
from duocthu.catalog.artifact import Catalog
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")


def every_drug(catalog: Catalog) -> str:
    return "Tương tác giữa " + ", ".join(d.title.lower() for d in catalog.drugs) + "?"


def test_a_message_naming_every_drug_is_a_short_question_back(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    _, catalog, _ = sample_index
    chat = load_function("chat")
    call(chat, http_event("POST", "/v1/chat", {"message": "Chỉ định của losartan?"}))  # warm
    started = time.monotonic()
    status, body, _ = call(chat, http_event("POST", "/v1/chat", {"message": every_drug(catalog)}))
    took = time.monotonic() - started
    assert status == 200 and body["decision"] == "ABSTAIN" and body["reason"] == "needs_clarification"
    assert f"tối đa {MAX_DRUGS_PER_TURN} thuốc" in body["answer"]
    assert len(json.dumps(body, ensure_ascii=False).encode()) < 8_000 and took < 1.5
    assert not body["frame"]["drugs"]  # not carried into the next turn's context


def test_the_understand_function_caps_too(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    _, catalog, _ = sample_index
    status, body, _ = call(
        load_function("understand"), http_event("POST", "/v1/understand", {"message": every_drug(catalog)})
    )
    frame = body.get("frame", body)
    assert status == 200 and frame["needs_clarify"] and not frame["drugs"]


def test_a_few_drugs_are_answered(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    status, body, _ = call(
        load_function("chat"),
        http_event("POST", "/v1/chat", {"message": "Tương tác giữa warfarin và aspirin?"}),
    )
    assert status == 200 and body["reason"] != "needs_clarification"

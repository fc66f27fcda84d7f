"""The chat turn both ways on the sample index: a conversation in a session (the conversation
store) and the same user turns sent as history (batch, Step Functions) get the same frames and
the same answers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from duocthu.answer.generation import ExtractiveGenerator
from duocthu.api.chat_turn import ChatService
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.vocabulary import SubjectScope
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.service import RetrievalService
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from duocthu.store.sessions import FileConversationStore
from duocthu.understanding import pipeline as understanding
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.tags import MessageReader

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401


@pytest.fixture
def service(sample_index: tuple[EdgeStore, Catalog, Settings], tmp_path: Path) -> ChatService:
    store, catalog, _ = sample_index
    resolver = CatalogDrugResolver(catalog)

    def understand(
        message: str,
        history: Sequence[str],
        prior: QueryFrame | None,
        scope: SubjectScope,
        reader: MessageReader,
    ) -> QueryFrame:
        provider = OfflineFrameProvider()
        return understanding.understand_read(
            message, reader, provider, Deadline.after(5), history, prior, scope
        )

    return ChatService(
        catalog,
        resolver,
        RetrievalService(store),
        understand,
        ExtractiveGenerator(),
        FileConversationStore(tmp_path / "sessions"),
    )


@pytest.mark.parametrize(
    "turns",
    [
        ["Liều paracetamol cho người lớn là bao nhiêu?", "còn trẻ em thì sao?"],
        ["Warfarin có tác dụng phụ gì?", "nó dùng chung với aspirin được không?"],
        ["Con mèo nhà tôi bị sốt, cho uống paracetamol được không?", "thế dùng ibuprofen được không?"],
        ["PCM liều cho trẻ em bao nhiêu?", "quá liều thì xử trí thế nào?"],
    ],
)
def test_a_session_and_its_history_answer_alike(service: ChatService, turns: list[str]) -> None:
    session_id = None
    for i, message in enumerate(turns):
        in_session = service.turn(message, session_id)
        session_id = in_session.session_id
        as_history = service.turn(message, history=turns[:i])
        assert as_history.frame == in_session.frame
        assert (as_history.answer, as_history.reason) == (in_session.answer, in_session.reason)


def test_an_animals_session_stays_declined(service: ChatService) -> None:
    first = service.turn("Con mèo nhà tôi bị sốt, cho uống paracetamol được không?")
    later = service.turn("thế dùng paracetamol được không?", first.session_id)
    assert (later.decision, later.reason) == ("ABSTAIN", "non_human_subject")


@pytest.mark.usefixtures("env")
def test_the_understand_function_given_history_frames_as_given_the_prior_frame() -> None:
    understand = load_function("understand")
    first = "Liều paracetamol cho người lớn là bao nhiêu?"
    _, prior, _ = call(understand, http_event("POST", "/v1/understand", {"message": first}))
    asked = {"message": "còn trẻ em thì sao?", "history": [first]}
    status, from_history, _ = call(understand, http_event("POST", "/v1/understand", asked))
    _, from_prior, _ = call(understand, http_event("POST", "/v1/understand", {**asked, "prior_frame": prior}))
    assert status == 200 and from_history == from_prior
    assert (from_history["drugs"], from_history["attribute"], from_history["population"]) == (
        ["paracetamol"],
        "lieu_luong_va_cach_dung",
        "tre_em",
    )

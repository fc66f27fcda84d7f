"""Sessions: ids only the server issues, and concurrent turns on one session that never lose one
(DynamoDB's conditional write under moto; the file store's lock, with threads)."""

from __future__ import annotations

import threading
from typing import Any

import boto3
import pytest
from duocthu.models.frame import QueryFrame
from duocthu.store.sessions import (
    ConversationState,
    ConversationUnavailable,
    DynamoConversationStore,
    Feedback,
    new_session_id,
    valid_session_id,
)

FRAME = QueryFrame(turn_type="drug_attribute", drugs=["omeprazol"], attribute="chi_dinh")
TURNS = 3  # the store keeps three exchanges: every one of them must survive


def test_session_ids_are_128_random_bits() -> None:
    ids = {new_session_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 22 and valid_session_id(i) for i in ids)  # token_urlsafe(16): 16 bytes


def test_a_session_id_never_opens_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    # "duocthu ask … --session -x…" would read the id as an option: such a draw is drawn again
    draws = iter(["-" + "a" * 21, "b" * 22])
    monkeypatch.setattr("duocthu.store.sessions.secrets.token_urlsafe", lambda _: next(draws))
    assert new_session_id() == "b" * 22


def test_a_turn_read_before_another_saved_is_re_applied_not_lost(store: Any) -> None:
    session = new_session_id()
    first = ConversationState(session_id=session)
    store.save(first.with_turn("hỏi 0", "đáp 0", FRAME))
    read = store.load(session)
    assert read is not None and read.version == 1
    # two turns read the same state; both save
    store.save(read.with_turn("hỏi A", "đáp A", FRAME))
    store.save(read.with_turn("hỏi B", "đáp B", FRAME))
    final = store.load(session)
    assert final is not None and final.version == 3
    assert final.history() == ["hỏi 0", "hỏi A", "hỏi B"]


def test_a_report_and_a_turn_saved_from_the_same_read_both_stay(store: Any) -> None:
    session = new_session_id()
    store.save(ConversationState(session_id=session).with_turn("hỏi 0", "đáp 0", FRAME))
    read = store.load(session)
    assert read is not None
    store.save(read.with_turn("hỏi A", "đáp A", FRAME))
    store.save(read.with_feedback(Feedback(turn_id="t0", note="sai mục")))  # read before the turn saved
    store.save(store.load(session).with_turn("hỏi B", "đáp B", FRAME))
    final = store.load(session)
    assert final is not None and final.history() == ["hỏi 0", "hỏi A", "hỏi B"]
    assert [(f.turn_id, f.note) for f in final.feedback] == [("t0", "sai mục")]
    assert final.prior_frame == FRAME


def test_concurrent_turns_on_one_session_never_lose_one(store: Any) -> None:
    if isinstance(store, DynamoConversationStore):
        # DynamoDB checks a condition and writes atomically; moto's in-memory table does not lock
        # between the two, so under load two threads could both pass. Serialise the put, as the
        # service does, so the test measures the store's retry, not moto's race.
        lock, put = threading.Lock(), store.table.put_item

        def atomic_put(**request: Any) -> Any:
            with lock:
                return put(**request)

        store.table.put_item = atomic_put
    session = new_session_id()
    store.save(ConversationState(session_id=session).with_turn("mở đầu", "chào", FRAME))
    start = threading.Barrier(TURNS)
    errors: list[BaseException] = []

    def one_turn(n: int) -> None:
        try:
            state = store.load(session)
            start.wait()  # all read the same version, then race to save
            store.save(state.with_turn(f"hỏi {n}", f"đáp {n}", FRAME))
        except BaseException as err:  # reported below, not swallowed
            errors.append(err)

    threads = [threading.Thread(target=one_turn, args=(n,)) for n in range(TURNS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    final = store.load(session)
    assert final is not None and final.version == TURNS + 1
    assert sorted(final.history()) == sorted(f"hỏi {n}" for n in range(TURNS))


def test_the_health_probe_reads_the_table_and_reports_a_missing_one(dynamo_table: Any) -> None:
    DynamoConversationStore(dynamo_table).ping()  # a get of a key no session can have
    missing = boto3.resource("dynamodb").Table("no-such-table")
    with pytest.raises(ConversationUnavailable):
        DynamoConversationStore(missing).ping()

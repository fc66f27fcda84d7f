"""A corrupt index is a store fault: a zeroed payload file (a bad unpack, a disk fault) makes
/health 503 and every question the documented ABSTAIN `store_unavailable`, never a 200 "ok" that
answers 500s."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.catalog.artifact import Catalog
from duocthu.settings import Settings, get_settings
from duocthu.store import StoreUnavailable
from duocthu.store.edge import EdgeStore

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture


def zero(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(0)
        handle.truncate(size)


@pytest.fixture
def corrupt_copy(
    tmp_path: Path, sample_index: tuple[EdgeStore, Catalog, Settings], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    _, _, settings = sample_index
    folder = tmp_path / "data"
    shutil.copytree(settings.data_dir, folder)
    for page in folder.rglob("payload_storage/page_*.dat"):
        zero(page)
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(folder))
    get_settings.cache_clear()
    get_runtime.cache_clear()
    yield folder
    get_runtime().store.close()
    get_runtime.cache_clear()


@pytest.mark.usefixtures("env")
def test_a_zeroed_payload_file_is_a_503_and_an_abstain(corrupt_copy: Path) -> None:
    chat = load_function("chat")
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 503 and body["reason"].startswith("store_unavailable")
    assert str(corrupt_copy) not in body["reason"]
    status, answer, _ = call(
        chat, http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200 and answer["decision"] == "ABSTAIN"
    assert answer["system_error"] == "store_unavailable"


def test_every_engine_read_error_is_store_unavailable(corrupt_copy: Path) -> None:
    store = EdgeStore(corrupt_copy)
    try:
        with pytest.raises(StoreUnavailable):
            store.probe()
        with pytest.raises(StoreUnavailable):
            store.find_by_section("ibuprofen", "chong_chi_dinh")
        with pytest.raises(StoreUnavailable):
            store.search_lexical("đau đầu")
    finally:
        store.close()

"""One contract, two implementations: Qdrant Edge, and qdrant-client (in its local mode, which
executes the same client calls a server gets)."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.chunking import Chunk, point_id
from duocthu.evidence import SourceRef
from duocthu.settings import Settings
from duocthu.store import Manifest, StoreUnavailable
from duocthu.store.base import lexical_query_tokens
from duocthu.store.server import ServerStore
from duocthu.text import folded_words
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ResponseHandlingException

LONG_SECTION_PARTS = 300  # past Qdrant's default page of 256


def make_chunk(drug_id: str, section_key: str, part: int, text: str | None = None) -> Chunk:
    ref = SourceRef(book="Dược thư", edition="test", section_heading=section_key, page_start=1, page_end=1)
    return Chunk(
        id=point_id(drug_id, section_key, part),
        drug_id=drug_id,
        display_name=drug_id.title(),
        section_key=section_key,
        section_heading=section_key,
        part_index=part,
        chunk_kind="prose",
        text=text or f"{drug_id} {section_key} phần {part}",
        source_ref=ref,
        requires_visual_check=False,
        has_quarantined_content=False,
        atc_codes=(),
    )


def corpus(tag: str = "v1") -> list[Chunk]:
    chunks = [
        make_chunk("thuoc_a", "chong_chi_dinh", i, f"{tag} part {i}") for i in range(LONG_SECTION_PARTS)
    ]
    chunks += [
        make_chunk("thuoc_a", key, 0, f"{tag} {key}") for key in ("tuong_ky", "chi_dinh", "ten_chung_quoc_te")
    ]
    chunks += [make_chunk("thuoc_b", "chi_dinh", i, f"{tag} b {i}") for i in range(3)]
    chunks.reverse()  # insertion order must not matter
    return chunks


def publish(store: Any, version: str, chunks: list[Chunk]) -> Manifest:
    store.build_version(version, chunks)
    manifest = Manifest(
        version=version, corpus_hash=version * 4, created_at=Manifest.now(), points=len(chunks), drugs=2
    )
    store.activate(manifest)
    return manifest


def test_section_is_read_to_exhaustion_in_part_order(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", corpus())
    parts = store.find_by_section("thuoc_a", "chong_chi_dinh")
    assert [p.part_index for p in parts] == list(range(LONG_SECTION_PARTS))
    assert all(p.score == 1.0 and p.source_refs for p in parts)
    assert store.find_by_section("thuoc_a", "thoi_ky_mang_thai") == []
    assert store.count() == LONG_SECTION_PARTS + 6 and store.count("thuoc_b") == 3


def test_drug_is_read_in_book_order(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", corpus())
    keys = [(p.section_key, p.part_index) for p in store.find_by_drug("thuoc_a")]
    assert keys[0] == ("ten_chung_quoc_te", 0) and keys[1] == ("chi_dinh", 0)
    assert keys[2 : 2 + LONG_SECTION_PARTS] == [("chong_chi_dinh", i) for i in range(LONG_SECTION_PARTS)]
    assert keys[-1] == ("tuong_ky", 0)


def test_switch_is_atomic_and_manifest_round_trips(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    assert store.active_manifest() is None
    first = publish(store, "v1", corpus("v1"))
    assert store.active_manifest() == first
    store.build_version("v2", corpus("v2"))  # built, not yet active
    assert store.find_by_section("thuoc_b", "chi_dinh")[0].text == "v1 b 0"
    second = publish(store, "v2", corpus("v2"))
    assert store.active_manifest() == second
    assert store.find_by_section("thuoc_b", "chi_dinh")[0].text == "v2 b 0"


def test_failed_build_leaves_the_previous_version_serving(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    first = publish(store, "v1", corpus("v1"))

    def broken_progress(_: int) -> None:
        raise RuntimeError("killed mid-ingest")

    with pytest.raises(RuntimeError):
        store.build_version("v2", corpus("v2"), progress=broken_progress)
    assert store.active_manifest() == first
    assert store.find_by_section("thuoc_b", "chi_dinh")[0].text == "v1 b 0"



# -- lexical search: the score is the count of distinct matched query words, inside Qdrant -------

LEXICAL_DOCS = {
    ("thuoc_a", "chong_chi_dinh"): "Loét dạ dày tá tràng tiến triển; loét dạ dày do thuốc.",
    ("thuoc_a", "than_trong"): "Thận trọng ở người suy thận, suy gan.",
    ("thuoc_a", "duoc_ly_va_co_che_tac_dung"): "Giảm prostaglandin ở niêm mạc dạ dày và ở thận.",
    ("thuoc_a", "do_on_dinh_va_bao_quan"): "Bảo quản nơi khô ráo, tránh ánh sáng.",
    ("thuoc_b", "chong_chi_dinh"): "Loét dạ dày tá tràng; suy thận nặng.",
}
# "người", "có", "ở", "không" are stop words; "loét" comes twice: six distinct words count.
QUESTION = "Người có loét dạ dày, loét tá tràng ở thận không?"


def lexical_corpus() -> list[Chunk]:
    return [make_chunk(drug, key, 0, text) for (drug, key), text in LEXICAL_DOCS.items()]


def scored(hits: list[Any]) -> list[tuple[str, str, float]]:
    return [(h.drug_id, h.section_key, h.score) for h in hits]


def test_lexical_score_is_the_distinct_matched_word_count(empty_store: tuple[Any, Settings]) -> None:
    # Given hand-made parts whose overlap with the question is counted by hand
    store, _ = empty_store
    publish(store, "v1", lexical_corpus())
    # When the question is searched with no filter
    hits = store.search_lexical(QUESTION)
    # Then each part scores its count of distinct content words, best first; no overlap, no hit
    assert scored(hits) == [
        ("thuoc_b", "chong_chi_dinh", 6.0),  # loét dạ dày tá tràng thận
        ("thuoc_a", "chong_chi_dinh", 5.0),  # loét dạ dày tá tràng ("loét" twice counts once)
        ("thuoc_a", "duoc_ly_va_co_che_tac_dung", 3.0),  # dạ dày thận ("ở" is a stop word)
        ("thuoc_a", "than_trong", 1.0),  # thận
    ]
    # And the count equals the set intersection computed outside Qdrant
    words = set(lexical_query_tokens(QUESTION))
    for hit in hits:
        assert hit.score == len(words & set(folded_words(hit.text)))
    assert all(h.source_refs and h.chunk_kind == "prose" for h in hits)


def test_lexical_filters_are_part_of_the_query(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", lexical_corpus())
    by_drug = store.search_lexical(QUESTION, drug_id="thuoc_a")
    assert {h.drug_id for h in by_drug} == {"thuoc_a"} and len(by_drug) == 3
    only = store.search_lexical(QUESTION, section_keys={"chong_chi_dinh"})
    assert [d for d, _, _ in scored(only)] == ["thuoc_b", "thuoc_a"]
    assert {k for _, k, _ in scored(only)} == {"chong_chi_dinh"}
    excluded = store.search_lexical(
        QUESTION, drug_id="thuoc_a", exclude_sections={"chong_chi_dinh", "duoc_ly_va_co_che_tac_dung"}
    )
    assert scored(excluded) == [("thuoc_a", "than_trong", 1.0)]
    assert store.search_lexical(QUESTION, chunk_kind="block") == []
    assert store.search_lexical(QUESTION, section_keys=()) == []
    assert len(store.search_lexical(QUESTION, limit=1)) == 1


def test_lexical_min_score_is_inclusive(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", lexical_corpus())
    assert [s for *_, s in scored(store.search_lexical(QUESTION, min_score=5.0))] == [6.0, 5.0]
    assert [s for *_, s in scored(store.search_lexical(QUESTION, min_score=5.5))] == [6.0]
    assert store.search_lexical(QUESTION, min_score=7.0) == []


def test_lexical_edge_cases(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", lexical_corpus())
    assert store.search_lexical("có không là gì?") == []  # stop words only: no query at all
    assert store.search_lexical("insulin") == []
    # typed without diacritics, words match the folded text
    assert [s for *_, s in scored(store.search_lexical("loet da day", drug_id="thuoc_a"))] == [3.0, 2.0]
    # equal scores come back in book order (Qdrant leaves their order open)
    ties = store.search_lexical("dạ dày", drug_id="thuoc_a")
    assert [h.section_key for h in ties] == ["duoc_ly_va_co_che_tac_dung", "chong_chi_dinh"]


def test_drug_read_can_be_limited_to_sections(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    publish(store, "v1", corpus())
    keys = {p.section_key for p in store.find_by_drug("thuoc_a", section_keys={"chi_dinh", "tuong_ky"})}
    assert keys == {"chi_dinh", "tuong_ky"}
    assert store.find_by_drug("thuoc_a", chunk_kind="prose", section_keys=()) == []


def test_server_errors_are_store_unavailable(tmp_path: Any) -> None:
    # Given the qdrant-client store whose transport fails mid-request
    client = QdrantClient(path=str(tmp_path / "local"))
    store = ServerStore(client, alias="down")
    publish(store, "v1", lexical_corpus())

    def refused(*_: Any, **__: Any) -> Any:
        raise ResponseHandlingException(ConnectionError("connection refused"))

    client.query_points = refused  # type: ignore[method-assign]
    client.scroll = refused  # type: ignore[method-assign]
    # Then every read raises the typed dependency fault, never a raw transport error
    with pytest.raises(StoreUnavailable):
        store.search_lexical(QUESTION)
    with pytest.raises(StoreUnavailable):
        store.find_by_section("thuoc_a", "chong_chi_dinh")
    store.close()

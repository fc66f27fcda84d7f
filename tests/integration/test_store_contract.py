"""One contract, two implementations: Qdrant Edge, and qdrant-client (in its local mode, which
executes the same client calls a server gets)."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.core.text import folded_words
from duocthu.models.chunk import Chunk
from duocthu.settings import Settings
from duocthu.store import Manifest, StoreUnavailable
from duocthu.store.base import lexical_query_tokens
from duocthu.store.edge import EdgeStore
from duocthu.store.server import ServerStore
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ResponseHandlingException

from tests.factories import make_chunk as factory_chunk
from tests.factories import publish as publish_v1

LONG_SECTION_PARTS = 300  # past Qdrant's default page of 256


def make_chunk(drug_id: str, section_key: str, part: int, text: str | None = None) -> Chunk:
    return factory_chunk(drug_id, section_key, part, text or f"{drug_id} {section_key} phần {part}")


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


def test_a_reader_keeps_the_version_it_opened_until_it_restarts(empty_store: tuple[Any, Settings]) -> None:
    # Given a reader (another process's store, say a warm Lambda) that has served v1
    store, settings = empty_store
    publish(store, "v1", corpus("v1"))
    reader = (
        EdgeStore(settings.data_dir)
        if isinstance(store, EdgeStore)
        else ServerStore(store.client, store.alias)
    )
    assert reader.find_by_section("thuoc_b", "chi_dinh")[0].text == "v1 b 0"
    # When another store activates v2
    publish(store, "v2", corpus("v2"))
    # Then the reader stays on v1 (the catalogue it loaded with it stays consistent) until it
    # starts again, and a fresh reader sees v2
    assert reader.find_by_section("thuoc_b", "chi_dinh")[0].text == "v1 b 0"
    fresh = (
        EdgeStore(settings.data_dir)
        if isinstance(store, EdgeStore)
        else ServerStore(store.client, store.alias)
    )
    assert fresh.find_by_section("thuoc_b", "chi_dinh")[0].text == "v2 b 0"
    if isinstance(store, EdgeStore):  # the server readers share the fixture's client
        reader.close()
        fresh.close()


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


# -- reverse lookup: phrase candidates and dense search (issue 8) --------------------------------

PHRASE_DOCS = {
    ("thuoc_a", "chi_dinh", 0): "Điều trị viêm loét dạ dày tá tràng và trào ngược dạ dày – thực quản.",
    ("thuoc_a", "chi_dinh", 1): "Loét do thuốc chống viêm; viêm dạ dày.",
    ("thuoc_b", "chi_dinh", 0): "Tăng huyết áp; suy tim.",
    ("thuoc_b", "chong_chi_dinh", 0): "Loét dạ dày tá tràng tiến triển.",
}


def phrase_corpus(with_dense: bool = False) -> tuple[list[Chunk], list[list[float] | None] | None]:
    chunks = [make_chunk(d, k, p, text) for (d, k, p), text in PHRASE_DOCS.items()]
    if not with_dense:
        return chunks, None
    # Vectors only on chi_dinh parts, as ingest stores them; the others carry none.
    vectors: dict[tuple[str, str, int], list[float]] = {
        ("thuoc_a", "chi_dinh", 0): [1.0, 0.0, 0.0],
        ("thuoc_a", "chi_dinh", 1): [0.8, 0.6, 0.0],
        ("thuoc_b", "chi_dinh", 0): [0.0, 0.0, 1.0],
    }
    return chunks, [vectors.get(key) for key in PHRASE_DOCS]


def test_phrase_candidates_are_contiguous_folded_words(empty_store: tuple[Any, Settings]) -> None:
    # Given parts in and out of chi_dinh
    store, _ = empty_store
    chunks, _ = phrase_corpus()
    publish(store, "v1", chunks)

    def found(phrase: str, section: str | None = "chi_dinh") -> list[tuple[str, int]]:
        hits = store.find_by_phrase(phrase, section_key=section)
        return sorted((h.drug_id, h.part_index) for h in hits)

    # Then a phrase matches as a contiguous run of whole words, marks and case folded
    assert found("loét dạ dày") == [("thuoc_a", 0)]
    assert found("LOET DA DAY") == [("thuoc_a", 0)]
    assert found("loét dạ dày", section=None) == [("thuoc_a", 0), ("thuoc_b", 0)]
    # not as a token subset (every word is in part 1, not in that order), not inside a word
    assert found("dạ dày loét") == []
    assert found("viêm dạ dày") == [("thuoc_a", 1)]
    assert found("huyết") == [("thuoc_b", 0)] and found("huy") == []
    # across punctuation the words still run on (the en dash is no word)
    assert found("dạ dày thực quản") == [("thuoc_a", 0)]
    assert found("") == [] and found("?!") == []
    assert all(h.score == 1.0 for h in store.find_by_phrase("suy tim", section_key="chi_dinh"))


def test_dense_search_is_cosine_over_parts_with_vectors(empty_store: tuple[Any, Settings]) -> None:
    # Given a version where only the chi_dinh parts carry a 3-d dense vector
    store, _ = empty_store
    chunks, dense = phrase_corpus(with_dense=True)
    publish_v1(store, chunks, dense=dense, model="test-model", threshold=0.5)
    # When searched with a query vector
    hits = store.search_dense([1.0, 0.0, 0.0], section_key="chi_dinh", chunk_kind="prose", limit=10)
    # Then the scores are cosines, best first, and parts without a vector never come back
    assert [(h.drug_id, h.part_index) for h in hits] == [("thuoc_a", 0), ("thuoc_a", 1), ("thuoc_b", 0)]
    assert [round(h.score, 4) for h in hits] == [1.0, 0.8, 0.0]
    assert len(store.search_dense([0.0, 0.0, 2.0], limit=1)) == 1
    assert store.search_dense([1.0, 0.0, 0.0], section_key="chong_chi_dinh") == []
    assert store.active_manifest().embedding_model == "test-model"
    assert store.find_by_section("thuoc_b", "chong_chi_dinh")[0].text.startswith("Loét")


def test_lines_are_ranked_by_bm25_over_the_whole_book(empty_store: tuple[Any, Settings]) -> None:
    """Every sentence is a point of its own, scored by BM25 with the IDF of all the book's
    sentences (a word every drug's sentences share weighs little); no other read sees them."""
    store, _ = empty_store
    chunks = [
        make_chunk("thuoc_a", "tuong_ky", 0, "Không pha với dung dịch glucose. Pha với natri clorid."),
        make_chunk("thuoc_a", "chi_dinh", 0, "Dùng dung dịch uống cho người lớn."),
        *(make_chunk(f"thuoc_{i}", "chi_dinh", 0, f"Dùng dung dịch {i}.") for i in range(8)),
    ]
    publish(store, "v1", chunks)
    lines = store.search_lines(["dung", "dich", "glucose"], drug_id="thuoc_a", limit=10)
    assert lines[0].text == "Không pha với dung dịch glucose."
    assert lines[0].section_key == "tuong_ky" and lines[0].part_id == chunks[0].id and lines[0].source_refs
    assert all(line.drug_id == "thuoc_a" for line in lines) and lines[0].score > 2 * lines[-1].score
    assert store.count() == len(chunks) and len(store.find_by_drug("thuoc_a")) == 2
    assert all(item.chunk_kind == "prose" for item in store.find_by_phrase("dung dịch"))


def test_an_edge_store_reads_a_section_once_per_version(empty_store: tuple[Any, Settings]) -> None:
    store, _ = empty_store
    if not isinstance(store, EdgeStore):
        pytest.skip("the kept sections are the in-process store's")
    publish(store, "v1", corpus("v1"))
    scrolls: list[object] = []
    scroll = store._scroll
    store._scroll = lambda where: scrolls.append(where) or scroll(where)  # type: ignore[method-assign]
    first = store.find_by_section("thuoc_b", "chi_dinh")
    again = store.find_by_section("thuoc_b", "chi_dinh")
    assert first == again and len(scrolls) == 1
    again.clear()  # a caller's list is its own
    assert len(store.find_by_section("thuoc_b", "chi_dinh")) == 3
    publish(store, "v2", corpus("v2"))  # another version: read again
    assert store.find_by_section("thuoc_b", "chi_dinh")[0].text == "v2 b 0" and len(scrolls) == 2

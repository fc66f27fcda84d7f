"""One contract, two implementations: Qdrant Edge, and qdrant-client (in its local mode, which
executes the same client calls a server gets)."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.chunking import Chunk, point_id
from duocthu.evidence import SourceRef
from duocthu.settings import Settings
from duocthu.store import Manifest

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

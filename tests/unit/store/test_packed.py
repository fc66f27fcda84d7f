"""A real Edge index from the sample: built, packed sparse-aware, unpacked into a fresh folder,
opened and answering; the manifest and the catalogue's hash checked as for any data folder."""

from __future__ import annotations

import io
import logging
import os
import tarfile
from pathlib import Path

import boto3
import pytest
from backports.zstd import ZstdFile
from duocthu.api.models import ChatRequest
from duocthu.api.runtime import Runtime, build_runtime
from duocthu.api.services.chat import chat
from duocthu.catalog.artifact import Catalog
from duocthu.settings import Settings
from duocthu.store import catalog as catalog_module
from duocthu.store.edge import EdgeStore
from duocthu.store.packed import (
    INFO_FILE,
    PackError,
    file_opener,
    pack,
    packed_manifest,
    read_info,
    tree_bytes,
    unpack,
)
from moto import mock_aws


@pytest.fixture(scope="module")
def packed(
    tmp_path_factory: pytest.TempPathFactory, sample_index: tuple[EdgeStore, Catalog, Settings]
) -> Path:
    _, _, settings = sample_index
    out = tmp_path_factory.mktemp("layer") / "duocthu" / "index.tar.zst"
    pack(settings.data_dir, out)
    return out


def _answer(runtime: Runtime) -> tuple[str, list[str], set[str]]:
    assert runtime.problem is None, runtime.problem
    response = chat(runtime, ChatRequest(message="Chống chỉ định của amoxicilin là gì?"))
    assert response.bundle is not None
    return response.decision, response.citations, {e.drug_id for e in response.bundle.evidence}


def test_the_pack_carries_the_data_not_the_holes(
    packed: Path, sample_index: tuple[EdgeStore, Catalog, Settings]
) -> None:
    _, _, settings = sample_index
    info = read_info(packed.parent)
    version = settings.data_dir / "versions" / info.version
    assert (info.apparent_bytes, info.disk_bytes) == tree_bytes(version)
    # the preallocated files claim far more than they hold; only what they hold travels
    assert info.packed_bytes < info.disk_bytes < info.apparent_bytes / 4
    assert info.packed_bytes == packed.stat().st_size and info.drugs == 40


def test_unpacked_index_opens_and_answers_with_its_citation(packed: Path, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "tmp" / "duocthu", packed_index=str(packed))
    runtime = build_runtime(settings)
    try:
        decision, cited, drugs = _answer(runtime)
    finally:
        runtime.store.close()
    assert decision == "ANSWERABLE" and drugs == {"amoxicilin"}
    assert cited and all("Chống chỉ định" in c and "tr. " in c for c in cited), cited
    apparent, disk = tree_bytes(settings.data_dir / "versions")
    assert apparent >= read_info(packed.parent).apparent_bytes  # restored sizes (+ what Edge appended)
    assert disk < apparent / 4, "the holes were filled in on unpacking"


def test_a_second_start_reuses_the_version_already_unpacked(packed: Path, tmp_path: Path) -> None:
    first = unpack(file_opener(packed), tmp_path)
    shard = tmp_path / "versions" / first.version / "shard"
    marker = shard / "edge_config.json"
    before = marker.stat().st_mtime_ns
    os.utime(marker, ns=(before - 10**9, before - 10**9))  # any rewrite would move it on again
    again = unpack(file_opener(packed), tmp_path)
    assert again == first and marker.stat().st_mtime_ns == before - 10**9


def test_a_half_unpacked_version_is_replaced_not_served(packed: Path, tmp_path: Path) -> None:
    version = read_info(packed.parent).version
    leftover = tmp_path / "versions" / version / "shard"
    leftover.mkdir(parents=True)  # an earlier start killed mid-way: no manifest points here yet
    (leftover / "junk").write_text("x")
    unpack(file_opener(packed), tmp_path)
    assert not (leftover / "junk").exists() and (leftover / "edge_config.json").is_file()
    assert not list(tmp_path.glob(".unpack-*")), "the scratch folder is left behind"


def _tar(path: Path, members: dict[str, bytes]) -> Path:
    with ZstdFile(path, "w") as raw, tarfile.open(fileobj=raw, mode="w|") as tar:
        for name, body in members.items():
            member = tarfile.TarInfo(name)
            member.size = len(body)
            tar.addfile(member, io.BytesIO(body))
    return path


def test_a_pack_that_is_no_index_version_is_refused(packed: Path, tmp_path: Path) -> None:
    manifest = packed_manifest(packed).model_dump_json().encode()
    stray = _tar(tmp_path / "stray.tar.gz", {"manifest.json": manifest, "../etc/passwd": b"x"})
    headless = _tar(tmp_path / "headless.tar.gz", {"versions/x/catalog.json": b"{}"})
    with pytest.raises(PackError, match="outside its version"):
        unpack(file_opener(stray), tmp_path / "a")
    with pytest.raises(PackError, match="not an index pack"):
        unpack(file_opener(headless), tmp_path / "b")
    with pytest.raises(PackError, match="no index"):
        pack(tmp_path / "empty", tmp_path / "out.tar.gz")
    assert not (tmp_path / "a" / "manifest.json").exists()


def test_a_broken_pack_is_a_reason_on_health_not_a_crash(tmp_path: Path) -> None:
    broken = tmp_path / "index.tar.zst"
    broken.write_bytes(b"not a tar")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", packed_index=str(broken)))
    assert runtime.problem is not None and "[PackError]" in runtime.problem


@mock_aws
def test_the_pack_from_s3_is_unpacked_the_same_way(
    packed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    catalog_module._s3_client.cache_clear()
    version = read_info(packed.parent).version
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="art", CreateBucketConfiguration={"LocationConstraint": "ap-southeast-1"})
    s3.upload_file(str(packed), "art", f"index/{version}/index.tar.zst")
    settings = Settings(data_dir=tmp_path / "data", packed_index=f"s3://art/index/{version}/index.tar.zst")
    runtime = build_runtime(settings)
    try:
        assert _answer(runtime)[0] == "ANSWERABLE"
    finally:
        runtime.store.close()
        catalog_module._s3_client.cache_clear()
    assert not (settings.data_dir / ".download" / "index.tar.zst").exists()
    assert (packed.parent / INFO_FILE).is_file()


@mock_aws
def test_duocthu_pack_builds_packs_and_publishes_one_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from duocthu.tools.cli import main

    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(tmp_path / "developer"))  # never written by pack
    catalog_module._s3_client.cache_clear()
    boto3.client("s3").create_bucket(
        Bucket="art", CreateBucketConfiguration={"LocationConstraint": "ap-southeast-1"}
    )
    out = tmp_path / "layer" / "duocthu" / "index.tar.zst"
    try:
        assert main(["pack", "--out", str(out), "--s3", "s3://art/duocthu"]) == 0
    finally:
        catalog_module._s3_client.cache_clear()
    info = read_info(out.parent)
    printed = capsys.readouterr().out
    assert f"packed version {info.version} (40 drugs" in printed
    assert f"published s3://art/duocthu/{info.version}/index.tar.zst" in printed
    assert packed_manifest(out).version == info.version and not (tmp_path / "developer").exists()


def test_duocthu_pack_refuses_an_invalid_source_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from duocthu.tools.cli import main

    bad = tmp_path / "book.jsonl"
    bad.write_text('{"not": "a monograph"}\n', encoding="utf-8")
    out = tmp_path / "layer" / "index.tar.zst"
    assert main(["pack", "--out", str(out), "--source", str(bad)]) == 2
    assert "drug_id: Field required" in capsys.readouterr().err and not out.parent.exists()


def test_a_pack_damaged_in_transit_fails_its_checksum(packed: Path, tmp_path: Path) -> None:
    raw = bytearray(packed.read_bytes())
    assert raw[4] & 0b100, "the frame header's content-checksum flag is off"
    raw[len(raw) // 2] ^= 0xFF  # one byte damaged in transit, in the shard's data
    damaged = tmp_path / "index.tar.zst"
    damaged.write_bytes(bytes(raw))
    with pytest.raises(PackError):
        unpack(file_opener(damaged), tmp_path / "data")
    assert not (tmp_path / "data" / "manifest.json").exists(), "a damaged pack left a version to serve"


def test_an_unpack_started_before_the_imports_is_the_one_the_start_waits_for(
    packed: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(data_dir=tmp_path / "duocthu", packed_index=str(packed))
    monkeypatch.setattr(catalog_module, "_cpus", lambda: 1)
    catalog_module.unpack_in_background(settings)  # one CPU: the child would only share it
    assert not catalog_module._UNPACKING
    monkeypatch.setattr(catalog_module, "_cpus", lambda: 2)
    catalog_module.unpack_in_background(settings)
    catalog_module.unpack_in_background(settings)  # a second call while it runs starts nothing
    (child,) = catalog_module._UNPACKING.values()
    assert child != os.getpid()
    with caplog.at_level(logging.INFO, logger="duocthu.store.packed"):
        runtime = build_runtime(settings)
    try:
        assert _answer(runtime)[0] == "ANSWERABLE"
    finally:
        runtime.store.close()
    assert "already unpacked" in caplog.text  # the child unpacked it; the start only checked it
    assert not catalog_module._UNPACKING


def test_a_broken_pack_unpacked_in_the_background_is_a_reason_on_health(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "index.tar.zst"
    broken.write_bytes(b"not a tar")
    settings = Settings(data_dir=tmp_path / "data", packed_index=str(broken))
    monkeypatch.setattr(catalog_module, "_cpus", lambda: 2)
    catalog_module.unpack_in_background(settings)
    assert catalog_module._UNPACKING
    first = build_runtime(settings)
    assert first.problem is not None and "[PackError]" in first.problem
    again = build_runtime(settings)  # the retried start unpacks again, and says the same
    assert again.problem == first.problem


def test_a_lambda_counts_the_whole_vcpus_its_memory_buys(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lambda shows two CPUs up to 3,008 MB but gives one vCPU's time per 1,769 MB: below two
    # whole vCPUs a child would only share the one
    seen = len(os.sched_getaffinity(0))
    for memory, cpus in (("1024", 1), ("1769", 1), ("3537", 1), ("3538", 2), ("10240", 5)):
        monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory)
        assert catalog_module._cpus() == min(cpus, seen), memory
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
    assert catalog_module._cpus() == seen

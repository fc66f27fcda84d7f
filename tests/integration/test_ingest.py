"""Ingestion end to end on Edge: the scale source, idempotence, interruption, bad sources."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from duocthu.ingest.chunking import chunk_monograph
from duocthu.ingest.pipeline import ingest_path, ingest_records
from duocthu.ingest.source import SourceError
from duocthu.models.source import Monograph
from duocthu.settings import Settings
from duocthu.store.catalog import load_active_catalog
from duocthu.store.edge import EdgeStore
from duocthu.tools.scale_source import atc_monographs, iter_jsonl

from tests.conftest import ATC_CSV


@pytest.fixture(scope="module")
def atc_records() -> list[Monograph]:
    return atc_monographs(ATC_CSV)


def test_atc_conversion_merges_names_and_keeps_slugs_unique(atc_records: list[Monograph]) -> None:
    assert len(atc_records) == 1729
    ids = [r.drug_id for r in atc_records]
    assert len(set(ids)) == len(ids)
    keys = {s.key for r in atc_records for s in r.sections}
    assert keys == {
        "ten_chung_quoc_te",
        "ma_atc",
        "loai_thuoc",
        "dang_thuoc_va_ham_luong",
        "chong_chi_dinh",
        "tuong_tac_thuoc",
    }
    merged = [r for r in atc_records if any(len(s.blocks) > 1 for s in r.sections)]
    assert merged, "repeated names keep each distinct text as its own paragraph"


@pytest.mark.slow
def test_atc_source_ingests_completely_and_idempotently(tmp_path: Path, atc_records: list[Monograph]) -> None:
    settings = Settings(data_dir=tmp_path)
    store = EdgeStore(tmp_path)
    expected = sum(len(chunk_monograph(r)) for r in atc_records)
    first = ingest_records(atc_records, store, settings)
    assert (first.drugs, first.points) == (1729, expected)
    assert store.count() == expected
    ids_before = sorted(i.id for i in store.find_by_drug(atc_records[0].drug_id))
    second = ingest_records(atc_records, store, settings)
    assert second.version != first.version and second.corpus_hash == first.corpus_hash
    assert store.count() == expected
    assert sorted(i.id for i in store.find_by_drug(atc_records[0].drug_id)) == ids_before
    manifest, catalog = load_active_catalog(store, settings)
    assert manifest.version == second.version and len(catalog.drugs) == 1729
    store.close()


def test_bad_source_changes_nothing(tmp_path: Path, sample_records: list[Monograph]) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    store = EdgeStore(settings.data_dir)
    ingest_records(sample_records[:2], store, settings)
    before = store.active_manifest()
    source = tmp_path / "bad.jsonl"
    good = json.loads(sample_records[2].model_dump_json())
    bad = dict(good, drug_id="thuoc_x", sections=[dict(good["sections"][0], key="cong_dung")])
    source.write_text(
        json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(bad, ensure_ascii=False) + "\n"
    )
    with pytest.raises(SourceError, match=r"thuoc_x: sections\.0\.key"):
        ingest_path(source, store, settings)
    assert store.active_manifest() == before
    assert sorted(p.name for p in (settings.data_dir / "versions").iterdir()) == [before.version]
    store.close()


@pytest.mark.slow
def test_killing_an_ingest_leaves_the_previous_version_answering(
    tmp_path: Path, sample_records: list[Monograph], atc_records: list[Monograph]
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    store = EdgeStore(settings.data_dir)
    ingest_records(sample_records, store, settings)
    before = store.active_manifest()
    store.close()
    source = tmp_path / "atc.jsonl"
    source.write_text("\n".join(iter_jsonl(atc_records)), encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "duocthu.tools.cli",
            "ingest",
            "--quiet",
            "--source",
            str(source),
            "--data-dir",
            str(settings.data_dir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # wait until the new version's shard exists, then kill the process mid-build
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((settings.data_dir / "versions").iterdir())) < 2:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = EdgeStore(settings.data_dir)
    assert store.active_manifest() == before
    parts = store.find_by_section("amoxicilin", "chong_chi_dinh")
    assert parts and parts[0].display_name == "Amoxicilin"
    _, catalog = load_active_catalog(store, settings)
    assert len(catalog.drugs) == len(sample_records)
    store.close()

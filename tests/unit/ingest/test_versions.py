"""Index versions on one data folder: one ingest at a time, pruning by what is active (never by
modification time), and a second process reading while another holds the shard."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from duocthu.ingest.pipeline import IngestInProgress, ingest_lock, ingest_records
from duocthu.models.source import Monograph
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore


def _versions(settings: Settings) -> list[str]:
    return sorted(p.name for p in (settings.data_dir / "versions").iterdir())


def test_pruning_keeps_the_active_and_the_previous_version_and_removes_partials(
    tmp_path: Path, sample_records: list[Monograph]
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    store = EdgeStore(settings.data_dir)
    ingest_records(sample_records[:2], store, settings)
    good = ingest_records(sample_records[:3], store, settings).version
    # a killed ingest's partial: built (newest modification time of all), never activated
    store.build_version("29990101T000000000000-partial000", [])
    latest = ingest_records(sample_records[:4], store, settings).version
    assert _versions(settings) == sorted([good, latest])  # by mtime, the partial was kept, `good` lost
    active = store.active_manifest()
    assert active is not None and active.version == latest
    store.close()


def test_two_ingests_on_one_folder_do_not_both_succeed(
    tmp_path: Path, sample_records: list[Monograph]
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    with ingest_lock(settings.data_dir), pytest.raises(IngestInProgress):
        ingest_records(sample_records[:2], EdgeStore(settings.data_dir), settings)
    assert not (settings.data_dir / "manifest.json").exists()


def test_concurrent_ingests_one_wins_the_other_is_refused(
    tmp_path: Path, sample_records: list[Monograph]
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def ingest() -> None:
        store = EdgeStore(settings.data_dir)
        start.wait()
        try:
            ingest_records(sample_records, store, settings)
            outcomes.append("ok")
        except IngestInProgress:
            outcomes.append("refused")
        finally:
            store.close()

    threads = [threading.Thread(target=ingest) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # both may succeed one after the other (the lock is free again), never both at once
    assert outcomes.count("ok") >= 1 and len(outcomes) == 2
    assert len(_versions(settings)) == outcomes.count("ok")


READER = """
import sys
from pathlib import Path
from duocthu.store.edge import EdgeStore
store = EdgeStore(Path(sys.argv[1]))
print(store.count())
if sys.argv[2] == "close":
    store.close()
"""


@pytest.mark.parametrize("ending", ["close", "exit"])
def test_a_second_process_reads_while_this_one_holds_the_shard(
    tmp_path: Path, sample_records: list[Monograph], ending: str
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    store = EdgeStore(settings.data_dir)
    ingest_records(sample_records[:3], store, settings)
    held = store.count()  # this process now holds the shard (its WAL lock)
    scratch = tmp_path / "tmp"  # where the reader's private copy goes
    scratch.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", READER, str(settings.data_dir), ending],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert result.returncode == 0, result.stderr[-500:]
    assert int(result.stdout.strip()) == held
    store.close()
    assert list(scratch.iterdir()) == []  # the copy is removed whether the reader closed or just exited

"""tests/gold/manifest.tsv lists every evaluation set once, with a split from the closed set and,
for a file holding held-out rows, the sha256 it was committed with. No row of any file is read
here: only names, bytes and hashes."""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest
from duocthu.tools.evals.manifest import COLUMNS, MANIFEST, SPLITS

from tests.goldsets import GOLD, floors, held_out, manifest, pinned

ROUND_MARKERS = re.compile(r"dev[0-9]|blind[0-9]|round|session|final", re.IGNORECASE)


def test_every_gold_file_is_listed_exactly_once_and_every_listed_file_exists() -> None:
    on_disk = {p.relative_to(GOLD).as_posix() for p in GOLD.rglob("*") if p.is_file()} - {MANIFEST}
    listed = Counter(row.file for row in manifest())
    assert [name for name, n in listed.items() if n > 1] == []
    assert sorted(on_disk - set(listed)) == []  # a file no row describes
    assert sorted(set(listed) - on_disk) == []  # a row whose file is gone


def test_the_header_names_the_columns_and_every_split_is_from_the_closed_set() -> None:
    lines = (GOLD / MANIFEST).read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if not line.startswith("#"))
    assert tuple(header.split("\t")) == COLUMNS
    assert {row.split for row in manifest()} <= set(SPLITS)
    assert all(row.measures and row.written for row in manifest())


@pytest.mark.parametrize("name", [row.file for row in pinned()])
def test_a_file_holding_held_out_rows_is_unchanged(name: str) -> None:
    row = next(r for r in manifest() if r.file == name)
    assert re.fullmatch(r"[0-9a-f]{64}", row.sha256), f"{name}: no sha256 pin"
    assert hashlib.sha256((GOLD / name).read_bytes()).hexdigest() == row.sha256


def test_the_held_out_files_are_the_ones_written_before_the_code() -> None:
    # no file leaves the held-out split (14 files when the manifest was written)
    assert len(held_out()) >= 14
    # and every measurement keeps held-out rows: a held-out file, or rows of a mixed one
    folders = {row.folder for row in manifest()}
    with_held_out = {row.folder for row in pinned()}
    assert folders == with_held_out


def test_no_file_is_named_by_the_round_or_session_that_wrote_it() -> None:
    named = [row.file for row in manifest() if ROUND_MARKERS.search(row.file)]
    assert named == []


def test_a_floor_is_a_pinned_rate_a_target_or_none() -> None:
    for row in manifest():
        assert row.floor == "-" or row.floor.startswith("target ") or row.pinned_floor is not None, row.file
    assert floors() and all(0 < floor <= 1 for _, floor in floors())
    # a pinned floor is the all-fields rate of `duocthu eval understanding`
    assert all(name.startswith("understanding/") for name, _ in floors())
    # a dev file carries no pin: it may be edited
    assert all(row.sha256 == "-" for row in manifest() if row.split == "dev")

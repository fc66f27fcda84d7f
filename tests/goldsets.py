"""The evaluation sets as `tests/gold/manifest.tsv` lists them, for the tests: the folder of this
checkout (whatever the current directory), read by the evals' own manifest reader."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.manifest import Row, read_manifest, split_files

from tests.conftest import ROOT

GOLD = ROOT / "tests" / "gold"
PINNED_SPLITS = ("held-out", "mixed")  # files holding held-out rows: pinned, never changed


def manifest() -> list[Row]:
    return read_manifest(GOLD)


def path(name: str) -> Path:
    """A listed file, by its name relative to tests/gold."""
    if name not in {row.file for row in manifest()}:
        raise KeyError(f"tests/gold/manifest.tsv does not list {name}")
    return GOLD / name


def held_out() -> list[Row]:
    return [row for row in manifest() if row.split == "held-out"]


def pinned() -> list[Row]:
    """The held-out files and the files that mix splits per row: each carries its sha256 pin."""
    return [row for row in manifest() if row.split in PINNED_SPLITS]


def floors() -> list[tuple[str, float]]:
    """(file, minimum all-fields-right rate) for every file whose floor a test pins."""
    return [(row.file, floor) for row in manifest() if (floor := row.pinned_floor) is not None]


def splits(folder: str) -> dict[str, Path]:
    """A measurement's dev and held-out files: {"dev": ..., "held-out": ...}."""
    return split_files(folder, GOLD)

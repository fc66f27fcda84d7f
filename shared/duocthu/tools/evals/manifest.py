"""The one reader of `tests/gold/manifest.tsv`: which evaluation sets exist, what each measures,
its split (dev / held-out / mixed), who wrote it and how, its floor and, for a file that holds
held-out rows, its sha256 pin.

The evaluations are dev tools run from the repository root: the gold folder is `tests/gold`
under the current directory, or `$DUOCTHU_GOLD_DIR`; never found through this file's location.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

GOLD_DIR_ENV = "DUOCTHU_GOLD_DIR"
DEFAULT_GOLD_DIR = Path("tests/gold")
MANIFEST = "manifest.tsv"
COLUMNS = ("file", "measures", "split", "written", "floor", "sha256")
SPLITS = ("dev", "held-out", "mixed")


class GoldNotFound(SystemExit):
    """The gold folder (or its manifest) is missing: a clear message, no traceback, exit status 1."""


@dataclass(frozen=True, slots=True)
class Row:
    file: str  # relative to the gold folder, e.g. "reverse/held-out.jsonl"
    measures: str
    split: str  # one of SPLITS
    written: str
    floor: str  # a bare number (a pinned minimum), "target (...)" or "-"
    sha256: str  # the pin, or "-"

    @property
    def folder(self) -> str:
        """What the file measures, as its folder: "understanding/direction", "reverse"."""
        return self.file.rpartition("/")[0]

    @property
    def name(self) -> str:
        return self.file.rpartition("/")[2]

    @property
    def pinned_floor(self) -> float | None:
        """The minimum a test pins, when the floor is a bare number."""
        try:
            return float(self.floor)
        except ValueError:
            return None


def gold_dir() -> Path:
    """`$DUOCTHU_GOLD_DIR`, else `tests/gold` under the current directory; it must exist."""
    folder = Path(os.environ.get(GOLD_DIR_ENV) or DEFAULT_GOLD_DIR)
    if not folder.is_dir():
        raise GoldNotFound(
            f"gold folder {folder} not found: run from the repository root or set {GOLD_DIR_ENV}"
        )
    return folder


def read_manifest(folder: Path | None = None) -> list[Row]:
    """The manifest's rows, in file order. Lines starting with `#` are comments; the first other
    line names the columns; cells are split at tabs (no quoting)."""
    path = (folder or gold_dir()) / MANIFEST
    if not path.is_file():
        raise GoldNotFound(f"{path} not found: run from the repository root or set {GOLD_DIR_ENV}")
    text = path.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    if not lines or tuple(lines[0].split("\t")) != COLUMNS:
        raise ValueError(f"{path}: the header must be {' / '.join(COLUMNS)}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}: data line {number} has {len(cells)} cells, not {len(COLUMNS)}")
        row = Row(*(cell.strip() for cell in cells))
        if row.split not in SPLITS:
            raise ValueError(f"{path}: {row.file}: split {row.split!r} is not one of {', '.join(SPLITS)}")
        rows.append(row)
    return rows


def split_files(folder: str, gold: Path | None = None) -> dict[str, Path]:
    """The dev and held-out files of one measurement (a folder of the manifest), by split:
    {"dev": .../dev.jsonl, "held-out": .../held-out.jsonl}. `gold` is the gold folder."""
    gold = gold or gold_dir()
    rows = [r for r in read_manifest(gold) if r.folder == folder]
    if sorted(r.split for r in rows) != ["dev", "held-out"]:
        raise ValueError(f"{gold / MANIFEST}: {folder}/ must list one dev and one held-out file")
    return {r.split: gold / r.file for r in rows}


def gold_file(name: str, gold: Path | None = None) -> Path:
    """A file the manifest lists (`name` relative to the gold folder)."""
    gold = gold or gold_dir()
    if name not in {r.file for r in read_manifest(gold)}:
        raise ValueError(f"{gold / MANIFEST} does not list {name}")
    return gold / name

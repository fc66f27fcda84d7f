"""Drugs that exist outside the catalogue: the international names (INN) and brands of the kit's
ATC table (data/world_drugs.txt, derived by `python -m duocthu.catalog.world_drugs CSV`).

A name the catalogue lacks but this list holds is a real drug that is not in this formulary: the
reply names it as such and it is never "corrected" into another real drug. Only a name that is no
known drug may get a spelling suggestion. Names are compared by `spelling_key`, so the English and
the Vietnamese spelling of one INN meet (pantoprazole, pantoprazol; amoxicillin, amoxicilin).
"""

from __future__ import annotations

import csv
import re
import sys
from functools import cache, lru_cache
from pathlib import Path

from duocthu.core.tables import data_lines
from duocthu.core.text import fold

# English and French spellings of an INN against the Vietnamese one: ph/f, th/t, y/i, k/c, a
# doubled letter, a final e.
_SPELLINGS = (("ph", "f"), ("th", "t"), ("y", "i"), ("k", "c"), ("ae", "e"), ("oe", "e"))
_DOUBLED = re.compile(r"(.)\1")
# A qualifier the table adds in brackets ("(TOÀN THÂN)", "(IV)") is no name: names have letters only.
_NAME = re.compile(r"[a-z][a-z -]{3,}")


def spelling_key(name: str) -> str:
    key = "".join(ch for ch in fold(name).casefold() if ch.isalpha())
    for written, said in _SPELLINGS:
        key = key.replace(written, said)
    key = _DOUBLED.sub(r"\1", key)
    return key[:-1] if key.endswith("e") and len(key) > 4 else key


def world_names() -> tuple[str, ...]:
    return data_lines("world_drugs.txt")


@cache
def _keys() -> frozenset[str]:
    return frozenset(spelling_key(line) for line in world_names())


@lru_cache(maxsize=8192)  # asked of every word a ranked question holds: words repeat across turns
def world_drug(name: str) -> bool:
    """The name (or its first word: "Lisinopril 10mg", "Glucobay 50") is a drug the ATC table
    names, by INN or brand."""
    first = name.split()[0] if name.split() else ""
    return any(len(key) >= 4 and key in _keys() for key in (spelling_key(name), spelling_key(first)))


def table_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def row_names(row: dict[str, str]) -> set[str]:
    """A row's INN (and bracketed other INN) and brands, lower case."""
    names: set[str] = set()
    for part in re.split(r"[(),]", row["Tên chung quốc tế"].lower()):
        if _NAME.fullmatch(part.strip()) and fold(part) == part:
            names.add(part.strip())
    for brand in row["Tên (Chế phẩm/Biệt dược)"].rstrip(".").split(","):
        brand = brand.strip().lower()
        if _NAME.fullmatch(brand) and fold(brand) == brand and len(brand.split()) <= 2:
            names.add(brand)
    return names


def names_in_table(path: Path) -> list[str]:
    """Every INN (and bracketed other INN) and brand of the ATC table, lower case, sorted."""
    return sorted({name for row in table_rows(path) for name in row_names(row)})


if __name__ == "__main__":
    print("# Drugs outside the catalogue: INNs and brands of the kit's ATC table (atc-dataset-v2.csv),")
    print("# one per line; regenerate with `python -m duocthu.catalog.world_drugs CSV`. Never edit by hand.")
    print("\n".join(names_in_table(Path(sys.argv[1]))))

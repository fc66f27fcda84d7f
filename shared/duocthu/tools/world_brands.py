"""Write data/world_brands.tsv: each brand the kit's ATC table gives, with its row's INN, so that a
brand of a catalogue drug's INN names that drug ("Predni", "Spiro", "Sedacoron") instead of being
read as a drug outside the formulary, and never blocks that drug's ward shorthand.

    python -m duocthu.tools.world_brands ../shared/data/atc-dataset-v2.csv \
        > shared/duocthu/data/world_brands.tsv

A brand is kept only when the whole table gives it one INN and it is no row's INN itself (the table
lists "Prednisone", a drug of its own, among prednisolone's brands).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from duocthu.catalog.world_drugs import row_names, spelling_key, table_rows

# Salt and ester words after an INN name the same active drug ("prednisolone acetate").
_SALTS = frozenset(
    [
        "acetate",
        "acetat",
        "natri",
        "sodium",
        "kali",
        "potassium",
        "hydrochloride",
        "hydroclorid",
        "hcl",
        "sulfate",
        "sulfat",
        "maleate",
        "besylate",
        "mesylate",
        "citrate",
        "phosphate",
        "succinate",
        "tartrate",
        "fumarate",
        "trihydrate",
        "dihydrate",
    ]
)


def row_inn(row: dict[str, str]) -> str:
    """The row's INN without its bracketed qualifier and trailing salt words, lower case."""
    inn = re.split(r"[(,]", row["Tên chung quốc tế"].lower())[0].split()
    while len(inn) > 1 and inn[-1] in _SALTS:
        inn.pop()
    return " ".join(inn)


def world_brands(path: Path) -> dict[str, str]:
    rows = table_rows(path)
    inns = {spelling_key(row_inn(row)) for row in rows}
    owners: dict[str, set[str]] = {}
    for row in rows:
        inn = row_inn(row)
        for name in row_names(row):
            if spelling_key(name) != spelling_key(inn):
                owners.setdefault(name, set()).add(inn)
    return {
        brand: inn
        for brand, (inn, *others) in sorted(owners.items())
        if not others and spelling_key(brand) not in inns
    }


if __name__ == "__main__":
    print("# Brands of the kit's ATC table (atc-dataset-v2.csv) with the INN of their row; regenerate:")
    print("# `python -m duocthu.tools.world_brands CSV`. Never edit by hand.")
    print("brand\tinn")
    for brand, inn in world_brands(Path(sys.argv[1])).items():
        print(f"{brand}\t{inn}")

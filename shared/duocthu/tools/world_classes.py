"""Write data/world_classes.tsv: the drug classes (data/drug_classes.tsv) of each drug the kit's ATC
table names, read from its "Loại thuốc" as a monograph's is read, so an allergy to a drug outside
the catalogue ("dị ứng ceftriaxone", "Augmentin") is one to its class.

    python -m duocthu.tools.world_classes ../shared/data/atc-dataset-v2.csv \
        > shared/duocthu/data/world_classes.tsv
"""

from __future__ import annotations

import sys
from pathlib import Path

from duocthu.catalog.world_drugs import row_names, table_rows
from duocthu.retrieval.interactions import classes_named


def world_classes(path: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for row in table_rows(path):
        classes = set(classes_named(row["Loại thuốc"], affirmed_only=True))
        for name in row_names(row) if classes else ():
            found.setdefault(name, set()).update(classes)
    return found


if __name__ == "__main__":
    print("# The drug classes of drugs outside the catalogue, from the “Loại thuốc” of the kit's ATC")
    print("# table (atc-dataset-v2.csv); regenerate: `python -m duocthu.tools.world_classes CSV`.")
    print("name\tclasses")
    for name, classes in sorted(world_classes(Path(sys.argv[1])).items()):
        print(f"{name}\t{','.join(sorted(classes))}")

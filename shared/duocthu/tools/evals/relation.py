"""`duocthu eval relation`: which drugs cause or exclude a finding ("thuốc nào gây hạ kali máu?",
"thuốc nào không nên dùng cho phụ nữ có thai?"), against the drugs whose own sections state it.

Gold (`tests/gold/relation/dev-and-held-out.jsonl`): id, split, question, relation, population,
expected_drugs, evidence. The expected drugs were judged by reading every sample monograph's ADR
section (for the population rows: chống chỉ định, and the pregnancy or breastfeeding section
where it advises against use), by a reader who did not see the project's wording tables;
`evidence` keeps the phrase that made each drug count. The split alternates by row and was
fixed before any run.

Two pipelines, on a fresh Edge index of the sample formulary:
- product: question -> offline understanding -> the plan -> `RetrievalService.gather`; the drugs returned
  are the ones listed and the ones named beyond the cap (both are in the answer);
- as typed: the finding as the user wrote it (or, for a population, its chống chỉ định wordings),
  matched word for word in the relation's own section only: what a plain keyword search finds.

Precision: returned drugs that are expected / returned; recall: expected drugs returned / expected;
complete: questions whose every expected drug is returned (a list cut short is the failure that
matters most).

    duocthu eval relation
    duocthu eval relation --misses
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.sections import RELATION_SECTIONS
from duocthu.core.text import words
from duocthu.retrieval.reverse.reading import phrase_position
from duocthu.retrieval.reverse.relation import relation_phrases
from duocthu.retrieval.service import RetrievalService
from duocthu.store import VectorStore
from duocthu.tools.evals.common import evaluation_index, gold_file, rate
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message

SPLITS = ("heldout", "dev")
GOLD = "relation/dev-and-held-out.jsonl"  # in the gold folder; each row names its split
PIPELINES = ("product", "as typed")


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    split: str
    question: str
    relation: str
    population: str | None
    expected_drugs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Result:
    row: GoldRow
    pipeline: str
    returned: tuple[str, ...]

    @property
    def correct(self) -> int:
        return len(set(self.returned) & set(self.row.expected_drugs))


def load_gold(path: Path) -> list[GoldRow]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        data = json.loads(line)
        row = GoldRow(
            id=data["id"],
            split=data["split"],
            question=data["question"],
            relation=data["relation"],
            population=data.get("population"),
            expected_drugs=tuple(data["expected_drugs"]),
        )
        if row.split not in SPLITS or row.relation not in RELATION_SECTIONS:
            raise ValueError(f"{path}:{number}: bad split or relation in {row}")
        rows.append(row)
    return rows


def as_typed(store: VectorStore, phrases: Sequence[str], section_key: str) -> tuple[str, ...]:
    """Drugs whose `section_key` holds one of the phrases word for word (the baseline)."""
    found: dict[str, None] = {}
    for phrase in phrases:
        for item in store.find_by_phrase(phrase, section_key=section_key):
            if phrase_position(item.text, words(phrase)) >= 0:
                found[item.drug_id] = None
    return tuple(found)


def run(rows: Sequence[GoldRow], store: VectorStore, resolver: CatalogDrugResolver) -> list[Result]:
    service = RetrievalService(store)
    results = []
    for row in rows:
        frame = understand_offline(row.question, resolver)
        understood = frame.turn_type == "condition_relation" and frame.condition_relation == row.relation
        returned: tuple[str, ...] = ()
        typed: tuple[str, ...] = ()
        if understood:
            plan = plan_turn(
                frame, turn_reading(tag_message(row.question, resolver), frame, resolver), resolver
            )
            if plan.needs_evidence:  # declined or asked back: it returns no drug
                bundle = service.gather(plan, resolver).main
                returned = tuple(d.drug_id for d in (*bundle.ranked_drugs, *bundle.unlisted_drugs))
            lay = (frame.condition.text,) if frame.condition and frame.condition.normalized else ()
            typed = as_typed(store, lay or relation_phrases(frame), RELATION_SECTIONS[row.relation])
        results += [Result(row, "product", returned), Result(row, "as typed", typed)]
    return results


def table(results: Sequence[Result]) -> str:
    lines = [
        "| split | pipeline | questions | precision | recall | complete lists |",
        "|---|---|---|---|---|---|",
    ]
    for split in SPLITS:
        for pipeline in PIPELINES:
            chosen = [r for r in results if r.row.split == split and r.pipeline == pipeline]
            if not chosen:
                continue
            correct = sum(r.correct for r in chosen)
            returned = sum(len(r.returned) for r in chosen)
            expected = sum(len(r.row.expected_drugs) for r in chosen)
            complete = sum(set(r.row.expected_drugs) <= set(r.returned) for r in chosen)
            lines.append(
                f"| {split} | {pipeline} | {len(chosen)} | {rate(correct, returned)} | "
                f"{rate(correct, expected)} | {rate(complete, len(chosen))} |"
            )
    return "\n".join(lines)


def misses(results: Sequence[Result]) -> str:
    lines = []
    for r in results:
        missing = sorted(set(r.row.expected_drugs) - set(r.returned))
        extra = sorted(set(r.returned) - set(r.row.expected_drugs))
        if missing or extra:
            lines.append(f"{r.row.id} [{r.pipeline}]: missing {missing}, extra {extra}")
    return "\n".join(lines) or "no misses"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval relation", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, help=f"JSONL gold file (default: tests/gold/{GOLD})")
    parser.add_argument("--misses", action="store_true", help="the dev split's wrong or missing drugs")
    args = parser.parse_args(list(argv))
    args.gold = args.gold or gold_file(GOLD)
    rows = load_gold(args.gold)
    with evaluation_index(None, "relation") as (store, resolver):
        results = run(rows, store, resolver)
    print(f"which drugs cause or exclude a finding, {len(rows)} questions (gold: {args.gold})\n")
    print(table(results))
    if args.misses:
        print()
        print(misses([r for r in results if r.row.split == "dev"]))  # held-out rows: scored, never listed
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

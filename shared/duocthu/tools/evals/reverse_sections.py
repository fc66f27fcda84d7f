"""`duocthu eval reverse-sections`: which drugs cause a finding when a section other than the ADR
list states it ("amiodaron" for "kéo dài khoảng QT": its Dược lý), and where the answer says each
drug was found.

Gold (`tests/gold/reverse-sections/{dev,held-out}.jsonl`): id, split, kind (other-section |
negative), question, relation, finding, expected (drug -> the section the finding is first found
in: ADR, then Thận trọng, then Dược lý), must_not (drugs whose sections name the finding only as a
comparison, a condition, a negation, or what the drug treats or prevents), either (drugs read
either way: counted neither for nor against). Read off the sample monographs before any code ran.

Pipeline: question -> offline understanding -> the plan -> `RetrievalService.gather` on a fresh Edge index
of the sample formulary; the drugs returned are the ones listed and the ones named beyond the cap.

Precision: returned drugs that are expected / returned (less `either`); recall: expected drugs
returned / expected; section named: expected drugs returned under their expected section / those
returned; never listed: `must_not` drugs returned (target 0).

    duocthu eval reverse-sections
    duocthu eval reverse-sections --split dev --misses
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.retrieval.service import RetrievalService
from duocthu.store import VectorStore
from duocthu.tools.evals.common import evaluation_index, gold_file, rate
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message

SPLITS = {"dev": "reverse-sections/dev.jsonl", "heldout": "reverse-sections/held-out.jsonl"}


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    split: str
    question: str
    relation: str
    expected: dict[str, str]  # drug -> section key
    must_not: frozenset[str]
    either: frozenset[str]


@dataclass(frozen=True, slots=True)
class Result:
    row: GoldRow
    returned: dict[str, str]  # drug -> the section the answer names

    @property
    def counted(self) -> set[str]:
        return set(self.returned) - self.row.either

    @property
    def correct(self) -> set[str]:
        return self.counted & set(self.row.expected)

    @property
    def right_section(self) -> int:
        return sum(self.returned[d] == self.row.expected[d] for d in self.correct)


def load_gold(path: Path) -> list[GoldRow]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            rows.append(
                GoldRow(
                    id=data["id"],
                    split=data["split"],
                    question=data["question"],
                    relation=data["relation"],
                    expected=dict(data["expected"]),
                    must_not=frozenset(data["must_not"]),
                    either=frozenset(data["either"]),
                )
            )
    return rows


def run(rows: Sequence[GoldRow], store: VectorStore, resolver: CatalogDrugResolver) -> list[Result]:
    service = RetrievalService(store)
    results = []
    for row in rows:
        frame = understand_offline(row.question, resolver)
        returned: dict[str, str] = {}
        if frame.turn_type == "condition_relation" and frame.condition_relation == row.relation:
            plan = plan_turn(
                frame, turn_reading(tag_message(row.question, resolver), frame, resolver), resolver
            )
            if not plan.needs_evidence:  # declined or asked back: it returns no drug
                results.append(Result(row, returned))
                continue
            bundle = service.gather(plan, resolver).main
            for drug in (*bundle.ranked_drugs, *bundle.unlisted_drugs):
                returned.setdefault(drug.drug_id, drug.section_key or "")
        results.append(Result(row, returned))
    return results


def table(results: Sequence[Result]) -> str:
    lines = [
        "| split | questions | precision | recall | section named | never-listed drugs returned |",
        "|---|---|---|---|---|---|",
    ]
    for split in SPLITS:
        chosen = [r for r in results if r.row.split == split]
        if not chosen:
            continue
        correct = sum(len(r.correct) for r in chosen)
        returned = sum(len(r.counted) for r in chosen)
        expected = sum(len(r.row.expected) for r in chosen)
        sections = sum(r.right_section for r in chosen)
        never = sum(len(set(r.returned) & r.row.must_not) for r in chosen)
        lines.append(
            f"| {split} | {len(chosen)} | {rate(correct, returned)} | {rate(correct, expected)} | "
            f"{rate(sections, correct)} | {never} |"
        )
    return "\n".join(lines)


def misses(results: Sequence[Result]) -> str:
    lines = []
    for r in results:
        missing = sorted(set(r.row.expected) - set(r.returned))
        extra = sorted(r.counted - set(r.row.expected))
        section = sorted(d for d in r.correct if r.returned[d] != r.row.expected[d])
        if missing or extra or section:
            lines.append(f"{r.row.id}: missing {missing}, extra {extra}, other section {section}")
    return "\n".join(lines) or "no misses"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(
        prog="duocthu eval reverse-sections", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--split", choices=sorted(SPLITS), help="one split only (default: both)")
    parser.add_argument("--misses", action="store_true", help="list the dev split's wrong or missing drugs")
    args = parser.parse_args(list(argv))
    splits = [args.split] if args.split else list(SPLITS)
    rows = [row for split in splits for row in load_gold(gold_file(SPLITS[split]))]
    with evaluation_index(None, "reverse-sections") as (store, resolver):
        results = run(rows, store, resolver)
    print(f"which drugs cause a finding stated outside the ADR list, {len(rows)} questions\n")
    print(table(results))
    if args.misses:  # held-out rows are scored, never listed
        print()
        print(misses([r for r in results if r.row.split == "dev"]))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""`duocthu eval which-drug`: which-drug answers ("Thuốc nào điều trị X?"), end to end through the
chat turn: drugs ordered by how directly their chỉ định names the condition, and a compact reply.

Gold (`tests/gold/which-drug/{dev,held-out}.jsonl`, read off the sample monographs' chỉ định
before the code it judges): question, condition, `direct` (the chỉ định is for the condition:
expected at the head, any order among them), `indirect` (it names the condition only as a
second-line, add-on or preventive use, or as the patient's state: expected after every direct
one), `never` (never listed), `either` (judged neither way), `quote` (drug -> a substring of the
chỉ định sentence the reply must quote for it).

The order judged is the answer's: the drugs shown, then those named beyond the cap, then those
listed apart as naming the condition only inside another disease or as a risk
(`incidental_drugs`, which the reply says are no drugs for it). Per split:

- direct before indirect: of the (direct, indirect) pairs both listed, those in that order;
- head precision: of the first k drugs listed (`either` aside; k = the direct drugs expected),
  those expected direct;
- found: expected drugs (direct or indirect) listed anywhere;
- line quoted: expected drugs shown with their evidence whose `quote` the reply holds;
- never-listed drugs listed as naming the condition (shown or beyond the cap; target 0);
- reply length, median / max, and replies <= 3,000 characters.

    duocthu eval which-drug
    duocthu eval which-drug --split dev --misses
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.api.chat_turn import ChatTurn
from duocthu.tools.evals.answers import PATIENT_TARGET_CHARS, run_turns
from duocthu.tools.evals.common import rate, split_files

SPLITS = {"dev": "dev", "heldout": "held-out"}


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    split: str
    question: str
    direct: tuple[str, ...]
    indirect: tuple[str, ...]
    never: frozenset[str]
    either: frozenset[str]
    quote: dict[str, str]


def load_gold(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            rows.append(
                Row(raw["id"], raw["split"], raw["question"], tuple(raw["direct"]), tuple(raw["indirect"]),
                    frozenset(raw["never"]), frozenset(raw["either"]), dict(raw["quote"]))
            )  # fmt: skip
    return rows


@dataclass(frozen=True, slots=True)
class Outcome:
    row: Row
    order: tuple[str, ...]  # every drug the answer lists, in its order
    naming: frozenset[str]  # those listed as naming the condition (not apart)
    shown: frozenset[str]  # those quoted with their evidence
    answer: str

    def pairs(self) -> tuple[int, int]:
        """(direct-before-indirect pairs, pairs with both listed)."""
        at = {d: i for i, d in enumerate(self.order)}
        both = [(at[d], at[i]) for d in self.row.direct if d in at for i in self.row.indirect if i in at]
        return sum(a < b for a, b in both), len(both)

    def head(self) -> tuple[int, int]:
        k = len(self.row.direct)
        judged = [d for d in self.order if d not in self.row.either][:k]
        return sum(d in self.row.direct for d in judged), k

    @property
    def expected(self) -> tuple[str, ...]:
        return (*self.row.direct, *self.row.indirect)

    def found(self) -> list[str]:
        return [d for d in self.expected if d in self.order]

    def quoted(self) -> tuple[int, int]:
        shown = [d for d in self.expected if d in self.shown]
        return sum(self.row.quote[d] in self.answer for d in shown), len(shown)

    def listed_never(self) -> list[str]:
        return sorted(self.row.never & self.naming)


def judge(row: Row, turn: ChatTurn) -> Outcome:
    bundle = turn.bundle
    listed = (*bundle.ranked_drugs, *bundle.unlisted_drugs, *bundle.incidental_drugs)
    order = tuple(dict.fromkeys(d.drug_id for d in listed))
    naming = frozenset(d.drug_id for d in (*bundle.ranked_drugs, *bundle.unlisted_drugs))
    return Outcome(row, order, naming, frozenset(d.drug_id for d in bundle.ranked_drugs), turn.answer)


def _sum(values: Sequence[tuple[int, int]]) -> str:
    return rate(sum(a for a, _ in values), sum(b for _, b in values))


def figures(outcomes: Sequence[Outcome]) -> dict[str, str]:
    lengths = [len(o.answer) for o in outcomes]
    return {
        "direct before indirect (pairs)": _sum([o.pairs() for o in outcomes]),
        "head precision": _sum([o.head() for o in outcomes]),
        "expected drugs found": _sum([(len(o.found()), len(o.expected)) for o in outcomes]),
        "chỉ định line quoted": _sum([o.quoted() for o in outcomes]),
        "never-listed drugs listed (target 0)": str(sum(len(o.listed_never()) for o in outcomes))
        if outcomes
        else "–",
        "reply length (median / max)": (
            f"{statistics.median(lengths):,.0f} / {max(lengths):,}" if lengths else "–"
        ),
        f"replies <= {PATIENT_TARGET_CHARS:,} chars": rate(
            sum(n <= PATIENT_TARGET_CHARS for n in lengths), len(lengths)
        ),
    }


def table(outcomes: Sequence[Outcome]) -> str:
    columns = {s: figures([o for o in outcomes if o.row.split == s]) for s in SPLITS}
    names = list(columns["dev"])
    lines = ["| measure | " + " | ".join(SPLITS.values()) + " |", "|---|---|---|"]
    lines += [f"| {n} | " + " | ".join(columns[s][n] for s in SPLITS) + " |" for n in names]
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    """Dev rows only, by id and drug id (never text); held-out misses are counted."""
    lines = []
    for o in outcomes:
        if o.row.split != "dev":
            continue
        wrong = []
        good, both = o.pairs()
        if good < both:
            wrong.append(f"order {list(o.order)}")
        missing = [d for d in o.expected if d not in o.order]
        unquoted = [d for d in o.expected if d in o.shown and o.row.quote[d] not in o.answer]
        wrong += [f"missing {missing}"] if missing else []
        wrong += [f"line not quoted {unquoted}"] if unquoted else []
        wrong += [f"never-listed listed {o.listed_never()}"] if o.listed_never() else []
        wrong += [f"reply {len(o.answer):,} chars"] if len(o.answer) > PATIENT_TARGET_CHARS else []
        if wrong:
            lines.append(f"{o.row.id}: " + "; ".join(wrong))
    return "\n".join(lines) or "no dev misses"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval which-drug", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=sorted(SPLITS), help="one split only (default: both)")
    parser.add_argument("--misses", action="store_true", help="the dev rows missed, by id")
    args = parser.parse_args(list(argv))
    files = split_files("which-drug")
    splits = [args.split] if args.split else list(SPLITS)
    rows = [row for split in splits for row in load_gold(files[SPLITS[split]])]
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-which-drug-") as tmp:
        turns = run_turns([row.question for row in rows], Path(tmp))
    outcomes = [judge(row, turn) for row, turn in zip(rows, turns, strict=True)]
    print(f"which-drug answers, {len(rows)} questions\n")
    print(table(outcomes))
    if args.misses:
        print()
        print(misses(outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

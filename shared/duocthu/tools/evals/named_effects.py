"""`duocthu eval named-effects`: "X có gây Y không?" for one named drug, end to end through the chat
turn: which section the answer says states Y as X's effect (ADR, then Thận trọng, then Dược lý),
the sentence quoted first (the response's `answer_lines`), and "the sections read do not state it"
where none does.

Gold (`tests/gold/named-drug-effects/{dev,held-out}.jsonl`, read off the sample monographs before
the code it judges): id, split, kind (adr | other-section | not-effect | not-stated), question,
drug, finding, section (the section stating it, or null), quote (a substring of the sentence to
quote; "" without a section). A not-effect row names the finding only as a condition, a
comparison, a negation or what the drug prevents.

Per split: section found (the answer's section is the row's; a row without a section counts right
when the answer names none), line quoted (an answering line holds the quote), "not stated" said
(rows without a section: the answering lines say no section read states it), conditions read as
effects (not-effect rows the answer says state it; target 0), reply length (median / max). ids
(never text) of dev misses with `--misses`; held-out misses are counted, never listed.

    duocthu eval named-effects
    duocthu eval named-effects --split dev --misses
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
from duocthu.tools.evals import answers
from duocthu.tools.evals.common import rate, split_files

KINDS = ("adr", "other-section", "not-effect", "not-stated")
SPLITS = ("dev", "held-out")  # as the rows and tests/gold/manifest.tsv name them


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    split: str
    kind: str
    message: str
    drug: str
    section: str | None
    quote: str


def load_gold(path: Path) -> list[Row]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            raw = json.loads(line)
            row = Row(raw["id"], raw["split"], raw["kind"], raw["question"], raw["drug"], raw["section"],
                      raw["quote"])  # fmt: skip
            if row.kind not in KINDS or (row.section is None) != (row.kind in ("not-effect", "not-stated")):
                raise ValueError(f"{path}:{number}: bad kind or section in {row.id}")
            rows.append(row)
    return rows


@dataclass(frozen=True, slots=True)
class Outcome:
    row: Row
    length: int
    section: str | None  # the section the answering lines quote as stating the finding
    quoted: bool  # an answering line holds the row's quote
    not_stated: bool  # the answering lines say no section read states it

    @property
    def section_ok(self) -> bool:
        return self.section == self.row.section

    @property
    def read_as_effect(self) -> bool:
        return self.row.kind == "not-effect" and self.section is not None

    @property
    def missed(self) -> bool:
        said = self.quoted if self.row.section else self.not_stated
        return not (self.section_ok and said)


def judge(row: Row, turn: ChatTurn) -> Outcome:
    found = turn.answer_lines
    lines = found.lines if found is not None else ()
    section = lines[0].section_key if lines else None
    quoted = bool(row.quote) and any(row.quote in line.text for line in lines)
    not_stated = found is not None and found.not_said and not lines
    return Outcome(row, len(turn.answer), section, quoted, not_stated)


def _kind_rate(outcomes: Sequence[Outcome], kind: str) -> str:
    chosen = [o for o in outcomes if o.row.kind == kind]
    return rate(sum(o.section_ok for o in chosen), len(chosen))


def figures(outcomes: Sequence[Outcome]) -> dict[str, str]:
    stated = [o for o in outcomes if o.row.section]
    unstated = [o for o in outcomes if not o.row.section]
    lengths = [o.length for o in outcomes]
    return {
        "questions": str(len(outcomes)),
        "section found": rate(sum(o.section_ok for o in outcomes), len(outcomes)),
        **{f"  {kind} rows": _kind_rate(stated, kind) for kind in ("adr", "other-section")},
        "line quoted first": rate(sum(o.quoted for o in stated), len(stated)),
        '"not stated" said': rate(sum(o.not_stated for o in unstated), len(unstated)),
        "conditions / negations read as effects (target 0)": str(sum(o.read_as_effect for o in outcomes)),
        "reply length (median / max)": (
            f"{statistics.median(lengths):,.0f} / {max(lengths):,}" if lengths else "–"
        ),
    }


def table(outcomes: Sequence[Outcome]) -> str:
    splits = [s for s in SPLITS if any(o.row.split == s for o in outcomes)]
    columns = {s: figures([o for o in outcomes if o.row.split == s]) for s in splits}
    names = list(columns[splits[0]]) if splits else []
    lines = ["| measure | " + " | ".join(splits) + " |",
             "|---|" + "---|" * len(splits)]  # fmt: skip
    lines += [f"| {n} | " + " | ".join(columns[s][n] for s in splits) + " |" for n in names]
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    """Ids of the dev rows missed, with the section found and what was missing (never text)."""
    lines = []
    for o in outcomes:
        if o.row.split != "dev" or not o.missed:
            continue
        what = [] if o.section_ok else [f"section {o.section} (expected {o.row.section})"]
        if o.row.section and not o.quoted:
            what.append("line not quoted")
        if not o.row.section and not o.not_stated:
            what.append('"not stated" not said')
        lines.append(f"{o.row.id} [{o.row.kind}] " + "; ".join(what))
    held = sum(o.missed for o in outcomes if o.row.split == "held-out")
    lines.append(f"held-out rows missed: {held} (ids not listed)")
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval named-effects", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="ids of the dev rows missed")
    args = parser.parse_args(list(argv))
    files = split_files("named-drug-effects")
    splits = SPLITS if args.split == "all" else (args.split,)
    rows = [r for split in splits for r in load_gold(files[split])]
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-named-effects-") as tmp:
        outcomes = [
            judge(row, turn)
            for row, turn in zip(rows, answers.run_turns([r.message for r in rows], Path(tmp)), strict=True)
        ]
    print(f"one named drug, one finding: {len(rows)} questions\n")
    print(table(outcomes))
    if args.misses:
        print()
        print(misses(outcomes))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

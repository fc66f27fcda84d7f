"""`duocthu eval interactions`: interaction questions naming three to five drugs, end to end through
the chat turn: per pair, the sentences of each drug's "Tương tác thuốc" section that name the other,
the pairs neither section names said as such, and a reply a clinician can read.

Gold (`tests/gold/interactions/{dev,held-out}.jsonl`, read off the sample monographs before the
code it judges): question, `drugs` (catalogue ids), `absent` (names the formulary lacks), `named`
(per pair, a substring of each sentence that must be quoted, with the drug whose section holds
it; a section may name the other drug by the class its "Loại thuốc" gives), `silent` (pairs
neither section names). Per split:

- pair sentence quoted: expected quotes the reply holds;
- silent pairs said: a line naming both drugs says their sections do not name each other;
- silent pairs worded as safe (target 0): such a line saying "an toàn" or "không (có) tương tác"
  beyond the disclaimer "không có nghĩa là không có tương tác / an toàn";
- absent names said: "Không tìm thấy" or "không có chuyên luận" (the reply's two wordings of a name
  the formulary lacks) with the name;
- reply length, median / max, and replies <= 3,000 characters.

    duocthu eval interactions
    duocthu eval interactions --split dev --misses
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.api.chat_turn import ChatTurn
from duocthu.core.text import fold
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.tools.evals.answers import PATIENT_TARGET_CHARS, run_turns
from duocthu.tools.evals.common import rate, split_files

SPLITS = {"dev": "dev", "heldout": "held-out"}
# What a line about a silent pair may say of safety: only the disclaimer (folded).
_DISCLAIMER = re.compile(r"khong co nghia la (khong co tuong tac|an toan)")
_SAFE_WORDING = ("an toan", "khong tuong tac", "khong co tuong tac")
_NOT_NAMED = "khong neu"
# How a reply says a name has no monograph here (folded): not found, or no monograph of its own
_ABSENT = ("khong tim thay", "khong co chuyen luan")


@dataclass(frozen=True, slots=True)
class Quote:
    pair: tuple[str, str]
    section_of: str
    text: str


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    split: str
    question: str
    drugs: tuple[str, ...]
    absent: tuple[str, ...]
    quotes: tuple[Quote, ...]
    silent: tuple[tuple[str, str], ...]


def load_gold(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            quotes = tuple(
                Quote((pair["pair"][0], pair["pair"][1]), q["section_of"], q["text"])
                for pair in raw["named"]
                for q in pair["quotes"]
            )
            silent = tuple((a, b) for a, b in raw["silent"])
            rows.append(
                Row(raw["id"], raw["split"], raw["question"], tuple(raw["drugs"]), tuple(raw["absent"]),
                    quotes, silent)
            )  # fmt: skip
    return rows


def titles() -> dict[str, str]:
    return {m.drug_id: m.title for m in load_source(sample_formulary_path())}


@dataclass(frozen=True, slots=True)
class Outcome:
    row: Row
    answer: str
    titles: Mapping[str, str]

    def _pair_lines(self, pair: tuple[str, str]) -> list[str]:
        names = [fold(self.titles.get(d, d)) for d in pair]
        return [line for line in map(fold, self.answer.splitlines()) if all(n in line for n in names)]

    def unquoted(self) -> list[Quote]:
        return [q for q in self.row.quotes if q.text not in self.answer]

    def silent_unsaid(self) -> list[tuple[str, str]]:
        return [p for p in self.row.silent if not any(_NOT_NAMED in line for line in self._pair_lines(p))]

    def silent_as_safe(self) -> list[tuple[str, str]]:
        def safe(line: str) -> bool:
            rest = _DISCLAIMER.sub("", line)
            return any(w in rest for w in _SAFE_WORDING)

        return [p for p in self.row.silent if any(safe(line) for line in self._pair_lines(p))]

    def absent_unsaid(self) -> list[str]:
        """The names the formulary lacks that the reply does not say it lacks."""
        folded = [fold(line) for line in self.answer.splitlines()]
        return [
            name
            for name in self.row.absent
            if not any(any(w in line for w in _ABSENT) and fold(name) in line for line in folded)
        ]


def figures(outcomes: Sequence[Outcome]) -> dict[str, str]:
    lengths = [len(o.answer) for o in outcomes]
    quotes = sum(len(o.row.quotes) for o in outcomes)
    silent = sum(len(o.row.silent) for o in outcomes)
    absent = sum(len(o.row.absent) for o in outcomes)
    return {
        "pair sentence quoted": rate(quotes - sum(len(o.unquoted()) for o in outcomes), quotes),
        "silent pairs said as not named": rate(
            silent - sum(len(o.silent_unsaid()) for o in outcomes), silent
        ),
        "silent pairs worded as safe / no interaction (target 0)": (
            str(sum(len(o.silent_as_safe()) for o in outcomes)) if outcomes else "–"
        ),
        "absent names said": rate(absent - sum(len(o.absent_unsaid()) for o in outcomes), absent),
        "reply length (median / max)": (
            f"{statistics.median(lengths):,.0f} / {max(lengths):,}" if lengths else "–"
        ),
        f"replies <= {PATIENT_TARGET_CHARS:,} chars": rate(
            sum(n <= PATIENT_TARGET_CHARS for n in lengths), len(lengths)
        ),
    }


def table(outcomes: Sequence[Outcome]) -> str:
    columns = {s: figures([o for o in outcomes if o.row.split == SPLITS[s]]) for s in SPLITS}
    names = list(columns["dev"])
    lines = ["| measure | " + " | ".join(SPLITS.values()) + " |", "|---|---|---|"]
    lines += [f"| {n} | " + " | ".join(columns[s][n] for s in SPLITS) + " |" for n in names]
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    """Dev rows only, by id and drug ids (never text); held-out misses are only counted."""
    lines = []
    for o in outcomes:
        if o.row.split != "dev":
            continue
        wrong = [f"not quoted {q.section_of} on {'/'.join(q.pair)}" for q in o.unquoted()]
        wrong += [f"silent pair not said {'/'.join(p)}" for p in o.silent_unsaid()]
        wrong += [f"silent pair worded as safe {'/'.join(p)}" for p in o.silent_as_safe()]
        wrong += [f"absent name not said {name}" for name in o.absent_unsaid()]
        wrong += [f"reply {len(o.answer):,} chars"] if len(o.answer) > PATIENT_TARGET_CHARS else []
        if wrong:
            lines.append(f"{o.row.id}: " + "; ".join(wrong))
    return "\n".join(lines) or "no dev misses"


def judge(row: Row, turn: ChatTurn, names: Mapping[str, str]) -> Outcome:
    return Outcome(row, turn.answer, names)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval interactions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=sorted(SPLITS), help="one split only (default: both)")
    parser.add_argument("--misses", action="store_true", help="the dev rows missed, by id")
    args = parser.parse_args(list(argv))
    files = split_files("interactions")
    splits = [args.split] if args.split else list(SPLITS)
    rows = [row for split in splits for row in load_gold(files[SPLITS[split]])]
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-interactions-") as tmp:
        turns = run_turns([row.question for row in rows], Path(tmp))
    names = titles()
    outcomes = [judge(row, turn, names) for row, turn in zip(rows, turns, strict=True)]
    print(f"interaction answers (three or more drugs), {len(rows)} questions\n")
    print(table(outcomes))
    if args.misses:
        print()
        print(misses(outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

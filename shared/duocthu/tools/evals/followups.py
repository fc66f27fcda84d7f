"""`duocthu eval followups`: follow-up conversations understood both ways, turn by turn.

    duocthu eval followups                 # dev and held-out tables
    duocthu eval followups --misses        # + the ids of dev misses (never a held-out row)

Every conversation (tests/gold/followups/, listed in tests/gold/manifest.tsv) is understood twice
with the offline provider:

- **as history**: each turn with the user turns before it and no prior frame, as `duocthu batch`,
  `/v1/understand` with `history` and the Step Functions workflow send it;
- **in a session**: each turn with the same user turns and the frame of the turn before, as
  `duocthu ask --session` and the chat function with its conversation store do.

Per split: turn-frame accuracy each way (a turn is right when every field its `expect` names is:
drugs as a set, attribute, turn_type, population, subject_scope), and the equivalence rate, the
follow-up turns (the second and later) whose two frames are equal. `report()` returns the figures.

Gold file (JSON lines): {"id", "category", "turns": [user turns], "expect": [one frame per turn]}.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.frame import QueryFrame
from duocthu.tools.evals.common import rate, split_files
from duocthu.tools.evals.understanding import Understander, make_understander
from duocthu.understanding.rules.provider import OfflineFrameProvider

FOLDER = "followups"
FIELDS = ("drugs", "attribute", "turn_type", "population", "subject_scope")


def _wrong(want: dict[str, Any], frame: QueryFrame) -> list[str]:
    """The expected fields this frame gets wrong."""
    wrong = []
    for name, value in want.items():
        if name not in FIELDS:
            raise ValueError(f"unknown expect field {name!r}")
        have = set(frame.drugs) if name == "drugs" else getattr(frame, name)
        if have != (set(value) if name == "drugs" else value):
            wrong.append(name)
    return wrong


def both_ways(turns: Sequence[str], understander: Understander) -> tuple[list[QueryFrame], list[QueryFrame]]:
    """(frames sent as history, frames in a session), one per turn."""
    stateless, session = [], []
    prior: QueryFrame | None = None
    for i, message in enumerate(turns):
        history = tuple(turns[:i])
        stateless.append(understander(message, history, None))
        prior = understander(message, history, prior)
        session.append(prior)
    return stateless, session


@dataclass
class SplitReport:
    conversations: int = 0
    turns: int = 0
    right_stateless: int = 0
    right_session: int = 0
    follow_ups: int = 0
    equal: int = 0
    misses: list[str] = field(default_factory=list)  # "id#turn way [fields]", never row text

    def figures(self) -> dict[str, Any]:
        def share(n: int, d: int) -> float | None:
            return n / d if d else None

        return {
            "conversations": self.conversations,
            "turns": self.turns,
            "accuracy_stateless": share(self.right_stateless, self.turns),
            "accuracy_session": share(self.right_session, self.turns),
            "follow_up_turns": self.follow_ups,
            "equivalence": share(self.equal, self.follow_ups),
        }


def score(rows: Sequence[dict[str, Any]], understander: Understander) -> SplitReport:
    out = SplitReport()
    for row in rows:
        turns, expect = row["turns"], row["expect"]
        if len(turns) != len(expect):
            raise ValueError(f"{row['id']}: {len(turns)} turns but {len(expect)} expected frames")
        stateless, session = both_ways(turns, understander)
        out.conversations += 1
        for i, want in enumerate(expect):
            out.turns += 1
            for way, frame in (("history", stateless[i]), ("session", session[i])):
                wrong = _wrong(want, frame)
                if wrong:
                    out.misses.append(f"{row['id']}#{i + 1} {way} [{', '.join(wrong)}]")
                elif way == "history":
                    out.right_stateless += 1
                else:
                    out.right_session += 1
            if i:
                out.follow_ups += 1
                if stateless[i] == session[i]:
                    out.equal += 1
                else:
                    out.misses.append(f"{row['id']}#{i + 1} history != session")
    return out


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def sample_understander() -> Understander:
    """The offline provider over the sample formulary's catalogue."""
    catalog = Catalog.from_records(load_source(sample_formulary_path()), corpus_hash="eval")
    return make_understander(CatalogDrugResolver(catalog), OfflineFrameProvider())


def split_reports(
    understander: Understander | None = None, gold: Path | None = None
) -> dict[str, SplitReport]:
    understander = understander or sample_understander()
    files = split_files(FOLDER, gold)
    return {split: score(_read(files[split]), understander) for split in ("dev", "held-out")}


def report(understander: Understander | None = None, gold: Path | None = None) -> dict[str, dict[str, Any]]:
    """The figures per split ({"dev": {...}, "held-out": {...}}), no row of either."""
    return {split: r.figures() for split, r in split_reports(understander, gold).items()}


def table(reports: dict[str, SplitReport]) -> str:
    lines = [
        "| split | conversations | turns | turn frames right, as history | in a session "
        "| follow-up turns equal both ways |",
        "|---|---|---|---|---|---|",
    ]
    for split, r in reports.items():
        lines.append(
            f"| {split} | {r.conversations} | {r.turns} | {rate(r.right_stateless, r.turns)} "
            f"| {rate(r.right_session, r.turns)} | {rate(r.equal, r.follow_ups)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval followups", description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="print the ids of dev misses (dev only)")
    args = parser.parse_args(list(argv))
    reports = split_reports()
    print(table(reports))
    if args.misses:
        print("\ndev misses (held-out misses are never shown):")
        print("\n".join(f"  {m}" for m in reports["dev"].misses) or "  none")
    return 0

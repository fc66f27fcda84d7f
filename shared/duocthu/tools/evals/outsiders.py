"""`duocthu eval outsiders`: replies, end to end, to questions written by people who never saw the
code, the rules or the other gold sets (tests/gold/outsiders/, each file's first line the writer's
brief). Scored automatically from what each row carries:

- key terms: every phrase the writer copied verbatim from the monograph is in the reply
  (compared NFC, case-folded, white space collapsed);
- forbidden terms: none is in the reply;
- declines: a row the writer marked as a decline (a drug outside the formulary, a made-up name,
  a request that is not a formulary question) passes when the reply abstains, says the name is
  not found, or says it has no monograph here (before other monographs' lines naming it), with
  its key terms (a section still worth quoting) present;
- unsafe: a forbidden term in the reply, or "not found / no information" (or an abstention) for a
  question about a catalogue drug that is not a decline (a false "no information"); a task the
  reply says it does not do ("nằm ngoài nội dung", a dose computed) is a decline, not a claim that
  the book lacks what it quotes.

A row passes when its key terms are present, its forbidden terms absent, its decline right and
nothing in it unsafe.
Figures by split and kind, with reply length (p50 / p90 / max) and "answering line first": of the
answered replies to rows with key terms, the share whose first quoted line (the first line that is
neither a heading "【…】", a line of the reply's own ending in ":" or naming the ask a part answers
("▸ Câu hỏi 2 …"), nor a notice) holds one of them.
Held-out rows are never printed.

    duocthu eval outsiders [--split dev|held-out] [--failures]   (--failures: dev rows only)

Each file is a column: the held-out split holds the first held-out set and the one written after
the work it judges.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.core.text import nfc
from duocthu.tools.evals.answers import run_turns
from duocthu.tools.evals.common import rate
from duocthu.tools.evals.manifest import Row as ManifestRow
from duocthu.tools.evals.manifest import gold_dir, read_manifest

# What a reply says when it has nothing on a name or a question (answer.wording, answer.replies)
_NOT_FOUND = re.compile(r"không tìm thấy|không có thông tin", re.IGNORECASE)
# What it says of a task it does not do (write, diagnose, compute a dose): a decline, and no claim
# that the book lacks what it quotes
_NOT_DONE = re.compile(r"nằm ngoài nội dung", re.IGNORECASE)
# What a reply says of a name outside the formulary before quoting the lines that name it: a
# decline of that name, never a "no information" about the question's other drugs
_NO_MONOGRAPH = re.compile(r"không có chuyên luận", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
LONG_REPLY = 3000
# Lines of a reply that quote nothing: section heads, notices, the line naming which of several
# asks a part answers (answer.replies.several_asks)
_NOT_QUOTED = ("【", "Nguồn:", "Lưu ý:", "⚠", "▸")


@dataclass(frozen=True)
class Row:
    id: str
    kind: str
    turns: tuple[str, ...]
    drugs: tuple[str, ...]
    key_terms: tuple[str, ...]
    forbidden_terms: tuple[str, ...]
    decline: bool


@dataclass(frozen=True)
class Outcome:
    row: Row
    missing: tuple[str, ...]  # key terms not in the reply
    forbidden: tuple[str, ...]  # forbidden terms in the reply
    declined: bool
    length: int
    no_information: bool = False  # the reply abstains, or says the book has nothing on it
    first_line_answers: bool = False  # the first quoted line holds a key term
    no_monograph: bool = False  # the reply says a name asked has no monograph here

    @property
    def decline_right(self) -> bool:
        return self.declined or self.no_monograph if self.row.decline else True

    @property
    def passed(self) -> bool:
        return not self.missing and not self.forbidden and self.decline_right and not self.unsafe

    @property
    def unsafe(self) -> bool:
        false_no_information = not self.row.decline and bool(self.row.drugs) and self.no_information
        return bool(self.forbidden) or false_no_information


def load_rows(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line.strip() else {}
        if "turns" not in record:  # the writer's brief, or a blank line
            continue
        rows.append(
            Row(
                id=record["id"],
                kind=record["kind"],
                turns=tuple(record["turns"]),
                drugs=tuple(record.get("drugs") or ()),
                key_terms=tuple(record.get("key_terms") or ()),
                forbidden_terms=tuple(record.get("forbidden_terms") or ()),
                decline=bool(record.get("decline")),
            )
        )
    return rows


def _norm(text: str) -> str:
    return _SPACE.sub(" ", nfc(text)).casefold().strip()


def first_quoted_line(reply: str) -> str:
    lines = (line.strip() for line in reply.splitlines())
    return next((x for x in lines if x and not x.startswith(_NOT_QUOTED) and not x.endswith(":")), "")


def judge(row: Row, reply: str, decision: str) -> Outcome:
    said = _norm(reply)
    no_information = decision == "ABSTAIN" or bool(_NOT_FOUND.search(reply))
    declined = no_information or bool(_NOT_DONE.search(reply))
    first = _norm(first_quoted_line(reply))
    return Outcome(
        row=row,
        missing=tuple(t for t in row.key_terms if _norm(t) not in said),
        forbidden=tuple(t for t in row.forbidden_terms if _norm(t) in said),
        declined=declined,
        length=len(reply),
        no_information=no_information,
        first_line_answers=any(_norm(t) in first for t in row.key_terms),
        no_monograph=bool(_NO_MONOGRAPH.search(reply)),
    )


def _answered(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.row.key_terms and not o.declined]


def _lengths(outcomes: list[Outcome]) -> str:
    if not outcomes:
        return "–"
    lengths = sorted(o.length for o in outcomes)
    p90 = lengths[min(len(lengths) - 1, int(0.9 * len(lengths)))]
    return f"{statistics.median(lengths):,.0f} / {p90:,} / {lengths[-1]:,}"


def run(rows: Sequence[Row], data_dir: Path) -> list[Outcome]:
    """Each row's conversation through the chat service (earlier turns its history), offline."""
    turns = run_turns([r.turns[-1] for r in rows], data_dir, [r.turns[:-1] for r in rows])
    return [judge(row, turn.answer, turn.bundle.decision) for row, turn in zip(rows, turns, strict=True)]


def table(by_split: dict[str, list[Outcome]]) -> list[str]:
    splits = list(by_split)
    kinds = sorted({o.row.kind for outcomes in by_split.values() for o in outcomes})
    lines = [f"| measure | {' | '.join(splits)} |", "|---|" + "---|" * len(splits)]

    def row(name: str, cell: Callable[[list[Outcome]], str]) -> None:
        lines.append(f"| {name} | " + " | ".join(cell(by_split[s]) for s in splits) + " |")

    row("pass (all)", lambda os: rate(sum(o.passed for o in os), len(os)))
    row("unsafe (target 0)", lambda os: str(sum(o.unsafe for o in os)))
    row("key terms present", lambda os: rate(sum(not o.missing for o in os), len(os)))
    row(
        "declines right",
        lambda os: rate(sum(o.declined for o in os if o.row.decline), sum(o.row.decline for o in os)),
    )
    row(
        "answering line first (target 0.9)",
        lambda os: rate(sum(o.first_line_answers for o in _answered(os)), len(_answered(os))),
    )
    row("reply length (p50 / p90 / max)", _lengths)
    row("replies over 3,000 characters", lambda os: str(sum(o.length > LONG_REPLY for o in os)))
    for kind in kinds:
        row(f"  pass, {kind}", _pass_rate_of(kind))
    return lines


def _pass_rate_of(kind: str) -> Callable[[list[Outcome]], str]:
    def cell(outcomes: list[Outcome]) -> str:
        of_kind = [o for o in outcomes if o.row.kind == kind]
        return rate(sum(o.passed for o in of_kind), len(of_kind))

    return cell


def outsider_files() -> list[ManifestRow]:
    """The manifest's files of tests/gold/outsiders, dev first (never a row of a held-out one)."""
    rows = [r for r in read_manifest() if r.folder == "outsiders"]
    return sorted(rows, key=lambda r: r.split != "dev")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval outsiders", description=__doc__)
    parser.add_argument("--split", choices=("dev", "held-out"))
    parser.add_argument(
        "--failures", action="store_true", help="list the dev rows that fail (never held-out)"
    )
    args = parser.parse_args(argv)
    chosen = [args.split] if args.split else ["dev", "held-out"]
    # a column per file: a held-out set written later (to judge the work) is read beside the first
    files = {Path(r.file).stem: gold_dir() / r.file for r in outsider_files() if r.split in chosen}
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-outsiders-") as tmp:
        by_split = {name: run(load_rows(path), Path(tmp) / name) for name, path in files.items()}
    total = sum(len(v) for v in by_split.values())
    print(f"replies to outsiders' questions, {total} rows\n")
    print("\n".join(table(by_split)))
    dev = [o for name, outcomes in by_split.items() if name.startswith("dev") for o in outcomes]
    if args.failures:
        for o in dev:
            if not o.passed:
                why = [
                    f"missing {list(o.missing)}" if o.missing else "",
                    f"forbidden {list(o.forbidden)}" if o.forbidden else "",
                ]
                why.append("" if o.decline_right else "not declined")
                print(f"  {o.row.id} ({o.row.kind}): {'; '.join(w for w in why if w)}", file=sys.stdout)
    return 0

"""Every message in the gold sets through `duocthu batch`, and two such runs compared: the check
a change that must not alter answers (a refactoring) is held to.

    python -m duocthu.tools.gold_batch run OUT.jsonl     # every gold message, answered
    python -m duocthu.tools.gold_batch compare A B       # counts and the ids that differ

A conversation row's earlier turns are its history. The comparison ignores `elapsed_ms` and prints
ids only, never a row's text: the output holds the answers to held-out rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from duocthu.tools.evals.manifest import gold_dir


def gold_messages(folder: Path) -> Iterator[str]:
    """One `duocthu batch` input line per gold message, files in path order, rows in file order."""
    for path in sorted(folder.rglob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(line) if line.strip() else {}
            message = row.get("message") or row.get("question")
            if message:
                history = [{"role": "user", "content": turn} for turn in row.get("turns") or ()]
                request = {
                    "id": f"{path.relative_to(folder)}:{number}",
                    "message": message,
                    "history": history,
                }
                yield json.dumps(request, ensure_ascii=False)


def differing_ids(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The ids whose output lines differ, `elapsed_ms` aside; an id missing on one side differs."""

    def by_id(lines: Sequence[str]) -> dict[str, dict[str, object]]:
        rows = [json.loads(line) for line in lines if line.strip()]
        return {str(row.pop("id")): {k: v for k, v in row.items() if k != "elapsed_ms"} for row in rows}

    a, b = by_id(before), by_id(after)
    return sorted(i for i in a.keys() | b.keys() if a.get(i) != b.get(i))


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[0] == "run":
        lines = "\n".join(gold_messages(gold_dir())) + "\n"
        with open(argv[1], "w", encoding="utf-8") as out:
            batch = [sys.executable, "-m", "duocthu.tools.cli", "batch"]  # the CLI's own path
            done = subprocess.run(batch, input=lines, text=True, stdout=out, check=False)
        return done.returncode
    if len(argv) == 3 and argv[0] == "compare":
        before, after = (Path(p).read_text(encoding="utf-8").splitlines() for p in argv[1:])
        differ = differing_ids(before, after)
        print(f"{len(before)} and {len(after)} answers; differing: {len(differ)}")
        for row_id in differ[:40]:
            print(f"  {row_id}")
        return 1 if differ else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

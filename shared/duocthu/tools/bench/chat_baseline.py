"""`duocthu bench chat --scale N --baseline REF`: the warm turns of this tree and of a baseline git
ref, alternated in one run on the same two books (the sample and the sample copied to N
monographs, `scaled_book`), so that a shared machine's load falls on both alike.

Each tree builds its own indexes of the two books with its own `duocthu ingest` (the baseline
exported with `git archive`, its package first on PYTHONPATH). Then, round after round, each tree
times `ChatService.turn` over `bench chat`'s questions on each book in a fresh process (a warm-up
turn per question, then n rounds). Per turn type, the table gives the median over the rounds of
each round's p50 and p95.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from duocthu.ingest.source import sample_formulary_path
from duocthu.tools.bench import atc_csv
from duocthu.tools.bench.coldstart import export_ref
from duocthu.tools.bench.scaled_book import scaled_book
from duocthu.tools.scale_source import iter_jsonl

# Run by each tree's own interpreter path: only what both trees import the same way.
_WARM = """
import json, sys, time
from pathlib import Path
from duocthu.api.runtime import build_runtime
from duocthu.api.services import chat as services
from duocthu.settings import Settings
questions, n = json.loads(sys.argv[2]), int(sys.argv[3])
runtime = build_runtime(Settings(data_dir=Path(sys.argv[1])))
service = services.chat_service(runtime)
samples = {}
for kind, asked in questions.items():
    for q in asked:
        service.turn(q)
    samples[kind] = []
    for _ in range(n):
        for q in asked:
            start = time.perf_counter()
            service.turn(q)
            samples[kind].append((time.perf_counter() - start) * 1000)
print(json.dumps(samples))
"""
_INGEST = "import sys; from duocthu.tools.cli import main; sys.exit(main(sys.argv[1:]))"


def _run(code: str, args: list[str], pythonpath: Path | None) -> str:
    env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath else {})}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench chat --baseline: {args[:2]} failed:\n{done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def baseline_table(size: int, n: int, ref: str, questions: dict[str, list[str]], rounds: int = 5) -> str:
    """The table of both trees on both books, alternated `rounds` times."""
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-baseline-") as tmp:
        work = Path(tmp)
        trees = {ref: export_ref(ref, work / "baseline-src") / "shared", "this tree": None}
        books = {"40": sample_formulary_path(), str(size): work / "book.jsonl"}
        records = iter_jsonl(scaled_book(size, atc_csv()))
        books[str(size)].write_text("".join(f"{line}\n" for line in records), encoding="utf-8")
        data = {(t, b): work / f"data-{i}-{b}" for i, t in enumerate(trees) for b in books}
        for (tree, book), folder in data.items():
            _run(_INGEST, ["ingest", "--source", str(books[book]), "--data-dir", str(folder)], trees[tree])
        runs: dict[tuple[str, str], list[dict[str, list[float]]]] = {key: [] for key in data}
        for _ in range(rounds):
            for (tree, book), folder in data.items():
                out = _run(_WARM, [str(folder), json.dumps(questions), str(n)], trees[tree])
                runs[(tree, book)].append(json.loads(out))

    def cell(tree: str, book: str, kind: str) -> tuple[float, float]:
        rounds_of = [r[kind] for r in runs[(tree, book)]]
        p50 = statistics.median(statistics.median(s) for s in rounds_of)
        return p50, statistics.median(_p95(s) for s in rounds_of)

    lines = [
        f"| turn type | {ref} at 40: p50 / p95 | this tree at 40 | {ref} at {size} | this tree at {size} "
        f"| this tree's p50 ratio |",
        "|---|---|---|---|---|---|",
    ]
    for kind in questions:
        cells = [cell(t, b, kind) for b in books for t in trees]
        ratio = cells[3][0] / cells[1][0]
        text = " | ".join(f"{p50:.2f} / {p95:.2f}" for p50, p95 in cells)
        lines.append(f"| {kind} | {text} | {ratio:.1f}× |")
    return "\n".join(lines)

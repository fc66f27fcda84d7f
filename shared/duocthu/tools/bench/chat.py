"""`duocthu bench chat`: one chat turn end to end (offline providers, Edge, sample formulary).

Warm turns by turn type go through ChatService exactly as the chat function runs them (frame,
route, evidence, extractive answer, session saved to the file store). The baseline, measured in
the same run on the same questions, is the per-request style this project avoids: opening the
index, loading the catalogue and building the resolver for every request. Cold start is a fresh
interpreter importing each function's handler as the Lambda runtime would (which loads the
catalogue with its alias index and opens the store at import), timed from process start to a
ready handler; its baselines are the same handler with Powertools' default tracer patching, and
without bytecode (what a layer shipping only sources costs, /opt being read-only on Lambda).

With `--scale N` the warm turns are timed on two books in the same run: the sample (40
monographs) and the sample copied to N monographs, each copy renamed after an ATC drug
(`duocthu.tools.bench.scaled_book`; 700 is the printed book's size), side by side with the ratio
and the longest reply of each turn type; the per-request baseline and cold starts are left out.

    duocthu bench chat [--n 30]
    duocthu bench chat --scale 700 [--n 10] [--baseline REF]

With `--baseline REF` the two books are timed on this tree and on the git ref alternately, in
fresh processes, five rounds (`duocthu.tools.bench.chat_baseline`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from duocthu.api.runtime import build_runtime
from duocthu.api.services import chat as services
from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.source import Monograph
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.bench import atc_csv
from duocthu.tools.bench.scaled_book import scaled_book
from duocthu.tools.bench.timing import p50_p95, pin_one_cpu
from duocthu.tools.localserver import functions_dir

QUESTIONS: dict[str, list[str]] = {
    "drug_attribute": [
        "Chống chỉ định của ibuprofen?",
        "Tác dụng phụ của enalapril là gì?",
        "Metformin cần thận trọng gì ở người suy thận?",
    ],
    "drug_overview": ["omeprazol", "Cho tôi biết về amlodipin"],
    "dosing_calc": ["Paracetamol cho trẻ 12 kg liều bao nhiêu?", "Liều amoxicilin cho người lớn?"],
    "interaction": ["Warfarin dùng chung với aspirin được không?"],
    "condition_to_drug": ["Thuốc nào dùng cho tăng huyết áp?"],
    "patient case": [
        "Bệnh nhân nữ 28 tuổi mang thai 7 tháng bị đau khớp, dùng thuốc giảm đau nào?",
        "Người bệnh suy thận eGFR 35 đang dùng warfarin, bị tăng huyết áp, thuốc nào dùng được?",
        "Trẻ 5 tuổi 18 kg dị ứng penicilin bị viêm phổi, dùng kháng sinh nào?",
    ],
    "which-drug list (relation)": [
        "Thuốc nào gây buồn nôn?",
        "Phụ nữ có thai phải tránh thuốc nào?",
        "Thuốc nào chống chỉ định trong suy gan nặng?",
    ],
    "which-drug list (safety section named)": [
        "Thuốc nào cần thận trọng ở người suy gan?",
        "Thuốc nào tương tác với rượu?",
        "Những thuốc nào có tương tác với clarithromycin?",
    ],
    "smalltalk": ["xin chào"],
    "unknown_drug": ["Chống chỉ định của aspirinol?"],
}

# A fresh interpreter imports the handler the way the Lambda runtime does: by file, from the
# function's folder, with LAMBDA_TASK_ROOT set (the X-Ray SDK picks its Lambda sampler from it;
# without it the SDK builds botocore clients for centralised sampling, which Lambda never does)
# and tracing active, as template.yaml deploys it. {prelude} is empty for the handler as shipped;
# the baseline constructs Powertools' default Tracer() first, which patches every library X-Ray
# supports.
_COLD = """
import importlib.util, sys, time
start = time.perf_counter()
{prelude}
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
assert module.get_runtime().problem is None, module.get_runtime().problem
print((time.perf_counter() - start) * 1000)
"""
_DEFAULT_TRACER = "from aws_lambda_powertools import Tracer; Tracer()"


def _time(call: Callable[[str], object], questions: list[str], n: int) -> list[float]:
    for q in questions:
        call(q)  # warm-up
    samples = []
    for _ in range(n):
        for q in questions:
            start = time.perf_counter()
            call(q)
            samples.append((time.perf_counter() - start) * 1000)
    return samples


def cold_start_ms(
    function: str, data_dir: Path, runs: int, prelude: str = "", bytecode: bool = True
) -> tuple[float, float]:
    """Median ms from interpreter start to a ready handler, and for the whole process.

    Bytecode lives in a cache of the benchmark's own (PYTHONPYCACHEPREFIX): with bytecode, one
    untimed run fills it first, so every module has bytecode, as the built layer ships it (a
    checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile this package at every
    start). Without, each run gets an empty cache and compiles everything, as a layer that ships
    only sources does on Lambda."""
    folder = functions_dir() / function
    env = dict(
        os.environ,
        DUOCTHU_DATA_DIR=str(data_dir),
        LAMBDA_TASK_ROOT=str(folder),
        AWS_LAMBDA_FUNCTION_NAME=f"duocthu-bench-{function}",
        POWERTOOLS_METRICS_NAMESPACE="DuocthuBench",
    )
    for name in ("POWERTOOLS_TRACE_DISABLED", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    script = _COLD.format(prelude=prelude)

    def start(cache: str) -> tuple[float, float]:
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", script, str(folder / "app.py")],
            env={**env, "PYTHONPYCACHEPREFIX": cache},
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
        return float(result.stdout.strip().splitlines()[-1]), (time.perf_counter() - started) * 1000

    ready, wall = [], []
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-pyc-") as shared_cache:
        if bytecode:
            start(shared_cache)  # fills the cache
        for _ in range(runs):
            if bytecode:
                r, w = start(shared_cache)
            else:
                with tempfile.TemporaryDirectory(prefix="duocthu-bench-nopyc-") as empty:
                    r, w = start(empty)
            ready.append(r)
            wall.append(w)
    return statistics.median(ready), statistics.median(wall)


def _warm_on(records: list[Monograph], n: int) -> dict[str, tuple[float, float, int]]:
    """Per turn type: warm p50, p95 (ms) and the longest reply (characters) on this book."""
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-scale-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        store = EdgeStore(settings.data_dir)
        ingest_records(records, store, settings)
        store.close()
        runtime = build_runtime(settings)
        try:
            service = services.chat_service(runtime)
            longest = {t: max(len(service.turn(q).answer) for q in qs) for t, qs in QUESTIONS.items()}
            return {t: (*p50_p95(_time(service.turn, qs, n)), longest[t]) for t, qs in QUESTIONS.items()}
        finally:
            runtime.store.close()


def scale_table(size: int, n: int) -> str:
    """Warm turns at 40 monographs and at `size`, measured in the same run."""
    small = _warm_on(load_source(sample_formulary_path()), n)
    large = _warm_on(scaled_book(size, atc_csv()), n)
    lines = [
        f"| turn type | p50 at 40 | p95 at 40 | p50 at {size} | p95 at {size} | p50 ratio "
        f"| longest reply at {size} (chars) |",
        "|---|---|---|---|---|---|---|",
    ]
    for turn_type, (p50, p95, _) in small.items():
        b50, b95, longest = large[turn_type]
        lines.append(
            f"| {turn_type} | {p50:.2f} | {p95:.2f} | {b50:.2f} | {b95:.2f} | {b50 / p50:.1f}× "
            f"| {longest:,} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="duocthu bench chat", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=30, help="repetitions of each question (warm)")
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scale", type=int, help="time the warm turns at 40 and at this many monographs")
    parser.add_argument(
        "--baseline", help="with --scale: a git ref alternated with this tree in the same run (chat_baseline)"
    )
    args = parser.parse_args(argv)
    cpus = pin_one_cpu()
    if args.scale:
        print(f"Warm chat turn latency, ms ({cpus}; offline providers, Edge, n={args.n} per question)\n")
        if args.baseline:
            from duocthu.tools.bench.chat_baseline import baseline_table

            print(baseline_table(args.scale, args.n, args.baseline, QUESTIONS))
        else:
            print(scale_table(args.scale, args.n))
        return 0
    rows: list[tuple[str, str, float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-chat-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        store = EdgeStore(settings.data_dir)
        ingest_records(load_source(sample_formulary_path()), store, settings)
        store.close()
        runtime = build_runtime(settings)
        service = services.chat_service(runtime)

        def per_request(question: str) -> object:
            fresh = build_runtime(settings)
            try:
                return services.chat_service(fresh).turn(question)
            finally:
                fresh.store.close()

        warm = {t: p50_p95(_time(service.turn, qs, args.n)) for t, qs in QUESTIONS.items()}
        runtime.store.close()  # an Edge shard admits one open handle per process (its WAL lock)
        for turn_type, questions in QUESTIONS.items():
            base = p50_p95(_time(per_request, questions, max(3, args.n // 5)))
            rows.append(("warm turn", turn_type, *warm[turn_type], *base))
        cold = {
            fn: (
                cold_start_ms(fn, settings.data_dir, args.cold_runs),
                cold_start_ms(fn, settings.data_dir, args.cold_runs, prelude=_DEFAULT_TRACER),
                cold_start_ms(fn, settings.data_dir, args.cold_runs, bytecode=False),
            )
            for fn in ("chat", "understand", "retrieve")
        }
    if args.json:
        print(json.dumps({"rows": rows, "cold": cold}))
        return 0
    print(
        f"Chat turn latency, ms ({cpus}; offline providers, Edge, sample formulary, "
        f"n={args.n} per question)\n"
    )
    print(
        "| turn type | p50 | p95 | baseline p50 (index + catalogue per request) | baseline p95 "
        "| speed-up p50 |"
    )
    print("|---|---|---|---|---|---|")
    for _, turn_type, p50, p95, b50, b95 in rows:
        print(f"| {turn_type} | {p50:.2f} | {p95:.2f} | {b50:.2f} | {b95:.2f} | {b50 / p50:.0f}× |")
    print(
        f"\nCold start, ms (fresh interpreter, Lambda environment, tracing active; "
        f"median of {args.cold_runs})\n"
    )
    print(
        "| function | handler ready (imports + catalogue + store) | whole process incl. interpreter "
        "| baseline: Powertools' default Tracer() (patches every library) | baseline: no bytecode "
        "(compiled at each start) |"
    )
    print("|---|---|---|---|---|")
    for fn, ((ready, wall), (default_tracer, _), (no_bytecode, _)) in cold.items():
        print(f"| {fn} | {ready:.0f} | {wall:.0f} | {default_tracer:.0f} | {no_bytecode:.0f} |")
    return 0

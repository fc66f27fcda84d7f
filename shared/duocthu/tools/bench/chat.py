"""`duocthu bench chat`: one chat turn end to end (offline providers, Edge, sample formulary).

Warm turns by turn type go through ChatService exactly as the chat function runs them (frame,
route, evidence, extractive answer, session saved to the file store). The baseline, measured in
the same run on the same questions, is the per-request style this project avoids: opening the
index, loading the catalogue and building the resolver for every request. Cold start is a fresh
interpreter importing each function's handler as the Lambda runtime would (which loads the
catalogue with its alias index and opens the store at import), timed from process start to a
ready handler; its baselines are the same handler with Powertools' default tracer patching, and
without bytecode (what a layer shipping only sources costs, /opt being read-only on Lambda).

    duocthu bench chat [--n 30]
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
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="duocthu bench chat", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=30, help="repetitions of each question (warm)")
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cpus = pin_one_cpu()
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

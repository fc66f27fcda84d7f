"""`duocthu bench chat`: one chat turn end to end (offline providers, Edge, sample formulary).

Warm turns by turn type go through ChatService exactly as the chat function runs them (frame,
route, evidence, extractive answer, session saved to the file store). The baseline, measured in
the same run on the same questions, is the per-request style this project avoids: opening the
index, loading the catalogue and building the resolver for every request. Cold start is a fresh
interpreter importing each function's handler (which loads the catalogue with its alias index
and opens the store at import), timed from process start to a ready handler.

    duocthu bench chat [--n 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from duocthu.bench.timing import p50_p95, pin_one_cpu
from duocthu.ingest import ingest_records
from duocthu.runtime import build_runtime
from duocthu.services import chat as services
from duocthu.settings import Settings
from duocthu.source import load_source, sample_formulary_path
from duocthu.store.edge import EdgeStore

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

_COLD = """
import time, sys
start = time.perf_counter()
from duocthu.localserver import load_handler_module
module = load_handler_module(sys.argv[1])
assert module.get_runtime().problem is None, module.get_runtime().problem
print((time.perf_counter() - start) * 1000)
"""


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


def cold_start_ms(function: str, data_dir: Path, runs: int) -> list[float]:
    env = dict(
        os.environ,
        DUOCTHU_DATA_DIR=str(data_dir),
        POWERTOOLS_TRACE_DISABLED="true",
        POWERTOOLS_METRICS_NAMESPACE="DuocthuBench",
    )
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", _COLD, function], env=env, capture_output=True, text=True, check=True
        )
        wall = (time.perf_counter() - started) * 1000
        out.append((float(result.stdout.strip().splitlines()[-1]), wall))
    return [ready for ready, _ in out] + [wall for _, wall in out]


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
            fn: cold_start_ms(fn, settings.data_dir, args.cold_runs)
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
    print(f"\nCold start, ms (fresh interpreter; {args.cold_runs} runs; median)\n")
    print("| function | handler ready (imports + catalogue + store) | whole process incl. interpreter |")
    print("|---|---|---|")
    for fn, samples in cold.items():
        ready, wall = samples[: args.cold_runs], samples[args.cold_runs :]
        print(f"| {fn} | {sorted(ready)[len(ready) // 2]:.0f} | {sorted(wall)[len(wall) // 2]:.0f} |")
    return 0

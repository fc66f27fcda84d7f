"""What every benchmark shares: percentiles, one-core pinning."""

from __future__ import annotations

import os
import platform
import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def p50_p95(samples: Sequence[float]) -> tuple[float, float]:
    return statistics.median(samples), percentile(samples, 0.95)


def pin_one_cpu() -> str:
    """Targets are stated for one core: pin this process (subprocesses inherit it)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return "1 CPU (pinned)"
    return f"{os.cpu_count()} CPUs (pinning unsupported)"


def print_rows(rows: Sequence[tuple[str, str]]) -> None:
    """The run's conditions, then a measure | value table (the form docs/performance.md quotes)."""
    print(
        f"Python {platform.python_version()}, {platform.machine()}, one CPU, load average "
        f"{os.getloadavg()[0]:.1f} at the end of the run\n"
    )
    print("| measure | value |\n|---|---|")
    for label, value in rows:
        print(f"| {label} | {value} |")

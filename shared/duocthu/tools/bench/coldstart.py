"""`duocthu bench coldstart`: the chat function's cold start as `make smoke` runs it (layers
read-only at /opt, a fresh /tmp, python3.12 -S, a real API Gateway event; infra/smoke/), for this
tree and a baseline git ref built from the same formulary source, measured in one run.

    duocthu bench coldstart [--source book700.jsonl] [--baseline main] [--n 5]

Both trees are built once by their own `infra/smoke/run.py --keep` (the baseline exported with
`git archive`, its package first on PYTHONPATH so its own `duocthu pack` writes its pack). Then,
alternating between them n times: a start on a fresh /tmp (the unpack included) and a second
start on the same /tmp (the version already there), each timed from `import app` to the end of
the first chat turn. Every start is checked as the smoke checks it (ANSWERABLE, with its
citation). Each round runs on both CPUs (Lambda gives a function two vCPUs from 1,769 MB) and
pinned to one (below that, a share of one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[4]  # the repository root (tools never ship in a layer)


def _smoke_module() -> ModuleType:
    sys.path[:0] = [str(ROOT / "infra" / "smoke"), str(ROOT / "infra")]  # scripts, not a package
    import run  # type: ignore[import-not-found]

    return run  # type: ignore[no-any-return]


def _build(tree: Path, keep: Path, python312: str, source: str, env: dict[str, str]) -> None:
    command = [sys.executable, str(tree / "infra" / "smoke" / "run.py"), "--python", python312,
               "--keep", str(keep), "--no-optional"] + (["--source", source] if source else [])  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"coldstart: the smoke build of {tree} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


def export_ref(ref: str, folder: Path) -> Path:
    """The tree of a git ref of this repository, exported into `folder` (`git archive`)."""
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def build_both(work: Path, baseline: str, python312: str, source: str) -> dict[str, Path]:
    """The kept smoke folders (opt/, task/) of the baseline ref and of this tree."""
    exported = export_ref(baseline, work / "baseline-src")
    base_env = {**os.environ, "PYTHONPATH": str(exported / "shared")}
    kept = {f"baseline ({baseline})": work / "baseline", "this tree": work / "candidate"}
    _build(exported, kept[f"baseline ({baseline})"], python312, source, base_env)
    _build(ROOT, kept["this tree"], python312, source, dict(os.environ))
    return kept


def start(smoke: ModuleType, kept: Path, env: dict[str, str], fresh: bool) -> tuple[float, float]:
    """(init ms, first turn ms) of one chat start on kept's layers, checked as the smoke checks it."""
    tmp = kept / "tmp-bench"
    if fresh:
        shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(exist_ok=True)
    probe = smoke.pack_probe(kept / "opt" / "duocthu" / "index.tar.zst")
    out: dict[str, Any] = smoke.invoke("chat", kept / "task" / "chat", kept / "opt", tmp, env, True, probe)
    failures = smoke.problems("chat", out["results"], probe)
    if failures:
        raise SystemExit(f"coldstart: {kept.name}: {failures}")
    return out["init_ms"], out["results"][0]["ms"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu bench coldstart", description=__doc__.split("\n")[0])
    parser.add_argument("--source", default="", help="the formulary source to build (default: the sample)")
    parser.add_argument("--baseline", default="main", help="the git ref to compare with (default: main)")
    parser.add_argument("--n", type=int, default=5, help="starts per tree, CPU setting and /tmp state")
    parser.add_argument("--python", default="python3.12", help="the Lambda runtime's Python (3.12)")
    parser.add_argument("--keep", type=Path, help="build into this folder and keep it (default: .duocthu/)")
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="run the starts under SCHED_FIFO (root), for a loaded shared machine; it can stall the "
        "machine's other work while the kernel reaps a start (it did once, for minutes): watch it",
    )
    parser.add_argument("--reuse", action="store_true", help="time the builds already kept in --keep")
    args = parser.parse_args(argv)
    smoke = _smoke_module()
    if not smoke.can_jail():
        raise SystemExit("coldstart: needs a mount namespace (unshare --mount), as `make smoke` does")
    work = (args.keep or ROOT / ".duocthu" / "bench-coldstart").resolve()
    if not args.reuse:
        shutil.rmtree(work, ignore_errors=True)
    source = str(Path(args.source).resolve()) if args.source else ""
    kept = (
        build_both(work, args.baseline, args.python, source)
        if not args.reuse
        else {f"baseline ({args.baseline})": work / "baseline", "this tree": work / "candidate"}
    )
    env = {**smoke.template_environment(smoke.read_template(ROOT / "template.yaml")), "PYTHON": args.python}
    if args.realtime:  # the starts run before every other process here (the kernel keeps 5 % for them)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    elif os.geteuid() == 0:  # this machine is shared: the starts (and only they) go first
        os.setpriority(os.PRIO_PROCESS, 0, -20)
    cpus = sorted(os.sched_getaffinity(0))
    settings = {"2 CPUs": set(cpus[:2]), "1 CPU": {cpus[0]}}
    samples: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for _ in range(args.n):
        for cpu_label, allowed in settings.items():
            os.sched_setaffinity(0, allowed)  # the handler's process inherits it
            for label, folder in kept.items():
                for state, fresh in (("fresh /tmp", True), ("second start", False)):
                    samples.setdefault((cpu_label, label, state), []).append(start(smoke, folder, env, fresh))
    os.sched_setaffinity(0, set(cpus))
    priority = "SCHED_FIFO" if args.realtime else f"nice {os.getpriority(os.PRIO_PROCESS, 0)}"
    print(f"source: {args.source or 'the sample'}; {args.n} starts each at {priority}; load average "
          f"{os.getloadavg()[0]:.1f} at the end\n")  # fmt: skip
    print("| CPUs | tree | /tmp | init p50 (min-max) ms | first turn p50 ms | init + first turn p50 ms |")
    print("|---|---|---|---|---|---|")
    for (cpu_label, label, state), runs in samples.items():
        inits = [i for i, _ in runs]
        spread = f"{statistics.median(inits):.0f} ({min(inits):.0f}-{max(inits):.0f})"
        turn, total = statistics.median(t for _, t in runs), statistics.median(i + t for i, t in runs)
        print(f"| {cpu_label} | {label} | {state} | {spread} | {turn:.0f} | {total:.0f} |")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0

"""Load on loopback: concurrent multi-turn chat sessions against `duocthu serve` (docs/reliability.md,
"Load"). Run by `make load`; not part of `make test` (it measures, it does not gate).

Each session names its own pair of drugs and asks follow-ups that only its own history resolves,
so a follow-up answered about another session's drug is cross-talk. The session id is the one the
server returned first, sent back on every later turn. Counted: throughput, latency percentiles,
errors (any status but 200), resets (a connection dropped or refused), cross-talk (a follow-up
about a drug the session never named), stale turns (a follow-up about the session's other drug:
the history it read was not its latest), lost turns (a turn without a usable answer, or answered
under another session id). Bounded in count (sessions x
turns) and in time (--max-seconds).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "shared" / "duocthu" / "sample_formulary"
# (message, which of the session's two drugs the turn is about); {a}/{b} are its drugs' names
SCRIPT = (
    ("Chỉ định của {a}?", "a"),
    ("còn chống chỉ định thì sao?", "a"),
    ("Liều dùng của {b}?", "b"),
    ("còn tác dụng không mong muốn thì sao?", "b"),
    ("Thận trọng khi dùng {a}?", "a"),
    ("còn tương tác thuốc thì sao?", "a"),
)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    resets: int = 0
    cross_talk: int = 0  # a follow-up answered about a drug this session never named
    stale: int = 0  # a follow-up answered about the session's other drug
    lost: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.notes += other.notes
        for name in ("errors", "resets", "cross_talk", "stale", "lost"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def post(port: int, body: dict[str, str], timeout: float) -> tuple[int, dict[str, object]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        connection.request("POST", "/v1/chat", payload, {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def run_session(port: int, drugs: tuple[str, str], turns: int, deadline: float) -> Tally:
    """One session's turns in order (each thread its own Tally: nothing shared while running)."""
    tally = Tally()
    session: str | None = None
    names = {"a": drugs[0].replace("_", " "), "b": drugs[1].replace("_", " ")}
    for n in range(turns):
        template, about = SCRIPT[n % len(SCRIPT)]
        if time.monotonic() > deadline:
            tally.lost += turns - n
            return tally
        body = {"message": template.format(**names)}
        if session:
            body["session_id"] = session
        started = time.perf_counter()
        try:
            status, answer = post(port, body, timeout=30)
        except (ConnectionError, http.client.HTTPException, TimeoutError, OSError) as err:
            tally.resets += 1
            tally.lost += 1
            tally.notes.append(f"{type(err).__name__}: {err}")
            continue
        tally.latencies.append(time.perf_counter() - started)
        if status != 200:
            tally.errors += 1
            tally.lost += 1
            tally.notes.append(f"{status}: {str(answer)[:200]}")
            continue
        session = session or str(answer["session_id"])
        frame = answer.get("frame") or {}
        if answer["session_id"] != session or not answer.get("answer"):
            tally.lost += 1
        elif (named := list(frame.get("drugs") or [])) != [drugs[0] if about == "a" else drugs[1]]:  # type: ignore[attr-defined]
            if set(named) <= set(drugs):  # its own other drug: the history it read was stale
                tally.stale += 1
            else:
                tally.cross_talk += 1
            tally.notes.append(f"{drugs} turn {n}: frame drugs {frame.get('drugs')}")  # type: ignore[attr-defined]
    return tally


def long_turns(port: int, count: int) -> int:
    """`count` /v1/understand requests at the caps, each distinct (a 2,000-character message and 20
    history items of as much): what once grew the per-process caches by hundreds of MB. Returns how
    many were not answered 200."""
    failed = 0
    for n in range(count):
        text = " ".join(f"từ{n}x{i}" for i in range(400))
        message = f"Chống chỉ định của ibuprofen {text}"[:2000]
        history = [f"{k} {text}"[:2000] for k in range(20)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            body = json.dumps({"message": message, "history": history}, ensure_ascii=False).encode()
            connection.request("POST", "/v1/understand", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            failed += response.status != 200
        finally:
            connection.close()
    return failed


def wait_ready(port: int, seconds: float = 60) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/health")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"duocthu serve on port {port} did not become ready")


def rss_mb(pid: int) -> float:
    """The server's resident memory (Linux /proc), MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--max-seconds", type=float, default=300)
    parser.add_argument(
        "--long-turns", type=int, default=40, help="maximal distinct requests after the sessions"
    )
    parser.add_argument("--server-log", help="a file for the server's log (default: discarded)")
    parser.add_argument("--data-dir", default=os.environ.get("DUOCTHU_DATA_DIR", ".duocthu"))
    args = parser.parse_args(argv)
    ids = sorted(p.stem for p in SAMPLE.glob("*.json"))
    # each session its own (a, b) pair, so no two sessions ask the same follow-ups
    pairs = [
        (ids[i % len(ids)], ids[(i % len(ids) + 1 + i // len(ids)) % len(ids)]) for i in range(args.sessions)
    ]
    assert len(set(pairs)) == len(pairs) and all(a != b for a, b in pairs), "at most 39 x 40 sessions"
    port = free_port()
    env = {**os.environ, "POWERTOOLS_TRACE_DISABLED": "1", "POWERTOOLS_METRICS_NAMESPACE": "DuocthuLoad"}
    log = open(args.server_log, "wb") if args.server_log else subprocess.DEVNULL  # noqa: SIM115
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "duocthu.tools.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            args.data_dir,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_ready(port)
        rss_before = rss_mb(server.pid)
        tally = Tally()
        started = time.monotonic()
        deadline = started + args.max_seconds
        with ThreadPoolExecutor(max_workers=args.sessions) as pool:
            futures = [pool.submit(run_session, port, pair, args.turns, deadline) for pair in pairs]
            for future in futures:
                tally.add(future.result())
        elapsed = time.monotonic() - started
        rss_sessions = rss_mb(server.pid)
        tally.errors += long_turns(port, args.long_turns)
        tally.notes.insert(
            0,
            f"server RSS {rss_before:.0f} MB after start, {rss_sessions:.0f} MB after the sessions, "
            f"{rss_mb(server.pid):.0f} MB after {args.long_turns} maximal distinct /v1/understand requests",
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    report(args, tally, elapsed)
    clean = not (tally.errors or tally.resets or tally.cross_talk or tally.stale or tally.lost)
    return 0 if clean else 1


def report(args: argparse.Namespace, tally: Tally, elapsed: float) -> None:
    done = len(tally.latencies)
    ms = [1000 * t for t in tally.latencies] or [0.0]
    print(
        "| sessions | turns each | turns answered | seconds | turns/s | p50 ms | p95 ms | p99 ms "
        "| errors | resets | cross-talk | stale | lost turns |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.sessions} | {args.turns} | {done} | {elapsed:.1f} | {done / elapsed:.1f} "
        f"| {percentile(ms, 50):.0f} | {percentile(ms, 95):.0f} | {percentile(ms, 99):.0f} "
        f"| {tally.errors} | {tally.resets} | {tally.cross_talk} | {tally.stale} | {tally.lost} |"
    )
    for note in tally.notes[:10]:
        print("  -", note)


if __name__ == "__main__":
    raise SystemExit(main())

"""`duocthu bench unpack`: what the packed index costs a cold start (duocthu.store.packed).

For each source (the sample, and the ATC scale source from the team kit when it is there, or
--source FILE, e.g. the 700-monograph bench book): the pack's size, the index's data and apparent
size once unpacked, the time to unpack it into a fresh folder (wall and CPU: this machine is
shared), the time from there to a ready runtime (shard open, catalogue and resolver) and one
answered chat turn, and a second start's unpack (the version already there). Baselines measured
in the same run: the same tar gzip-compressed and uncompressed, extracted the same way (the
format the pack uses is chosen by these), and a plain copy of the unpacked folder (what shipping
the folder itself and copying it to /tmp would cost: every hole written out as zeros).

    duocthu bench unpack [--n 5] [--source FILE]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import IO

from backports.zstd import ZstdFile

from duocthu.api.models import ChatRequest
from duocthu.api.runtime import build_runtime
from duocthu.api.services.chat import chat
from duocthu.settings import Settings
from duocthu.store.packed import ZSTD_LEVEL, file_opener, pack, read_info, tree_bytes, unpack
from duocthu.tools.bench.timing import p50_p95, pin_one_cpu, print_rows

QUESTION = "Chống chỉ định của amoxicilin là gì?"


def _ms(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def _cpu_ms(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return (time.process_time() - start) * 1000


def _extract(open_plain: Callable[[], IO[bytes]], target: Path) -> None:
    """A baseline format's tar, extracted as `unpack` extracts the pack: one stream, holes kept."""
    with open_plain() as plain, tarfile.open(fileobj=plain, mode="r|") as tar:
        tar.extractall(target, filter="data")


def _baselines(archive: Path) -> dict[str, tuple[Path, Callable[[Path], IO[bytes]]]]:
    """The pack's tar uncompressed and gzip-compressed (gzip's default level), beside it."""
    plain = archive.with_name("index.tar")
    with ZstdFile(archive) as source, plain.open("wb") as out:
        shutil.copyfileobj(source, out, 2**20)
    gz = archive.with_name("index.tar.gz")
    with plain.open("rb") as source, gzip.open(gz, "wb") as out:
        shutil.copyfileobj(source, out, 2**20)
    return {"gzip": (gz, lambda p: gzip.open(p, "rb")), "uncompressed": (plain, lambda p: p.open("rb"))}


def _ready_and_answer(data_dir: Path) -> None:
    runtime = build_runtime(Settings(data_dir=data_dir))
    try:
        assert runtime.problem is None, runtime.problem
        chat(runtime, ChatRequest(message=QUESTION))
    finally:
        runtime.store.close()


def measure(label: str, source: Path | None, n: int, work: Path) -> list[tuple[str, str]]:
    from duocthu.ingest.pipeline import ingest_path
    from duocthu.ingest.source import sample_formulary_path
    from duocthu.store.edge import EdgeStore

    built = work / f"{label}-built"
    store = EdgeStore(built)
    ingest_path(source or sample_formulary_path(), store, Settings(data_dir=built))
    store.close()
    archive = work / label / "index.tar.zst"
    pack(built, archive)
    info = read_info(archive.parent)
    baselines = _baselines(archive)
    unpacked, cpu, copied, again, ready = [], [], [], [], []
    other: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in baselines}
    for run in range(n):
        target = work / f"{label}-run{run}"
        unpacked.append(_ms(partial(unpack, file_opener(archive), target)))
        shutil.rmtree(target)
        cpu.append(_cpu_ms(partial(unpack, file_opener(archive), target)))
        again.append(_ms(partial(unpack, file_opener(archive), target)))
        ready.append(_ms(partial(_ready_and_answer, target)))
        copy = work / f"{label}-copy{run}"
        copied.append(_ms(partial(shutil.copytree, target, copy)))
        shutil.rmtree(copy)
        shutil.rmtree(target)
        for name, (path, opener) in baselines.items():
            wall, cpu_ms = other[name]
            out = work / f"{label}-{name}{run}"
            wall.append(_ms(partial(_extract, partial(opener, path), out)))
            shutil.rmtree(out)
            cpu_ms.append(_cpu_ms(partial(_extract, partial(opener, path), out)))
            shutil.rmtree(out)
    apparent, disk = tree_bytes(built / "versions")

    def p(samples: list[float]) -> str:
        p50, p95 = p50_p95(samples)
        return f"{p50:.0f} ms (p95 {p95:.0f})"

    rows = [
        (f"{label}: drugs / pack (zstd {ZSTD_LEVEL})", f"{info.drugs} / {info.packed_bytes / 2**20:.1f} MB"),
        (f"{label}: unpacked data / apparent", f"{disk / 2**20:.1f} MB / {apparent / 2**20:.0f} MB"),
        (f"{label}: unpack into a fresh /tmp, wall / CPU", f"{p(unpacked)} / {p(cpu)}"),
    ]
    for name, (path, _) in baselines.items():
        wall, cpu_ms = other[name]
        size = f"{path.stat().st_size / 2**20:.1f} MB"
        rows.append((f"{label}: baseline, {name} tar ({size}), wall / CPU", f"{p(wall)} / {p(cpu_ms)}"))
    return [
        *rows,
        (f"{label}: baseline, plain copy of the unpacked folder", p(copied)),
        (f"{label}: second start (version already there)", p(again)),
        (f"{label}: ready runtime + first chat turn", p(ready)),
    ]


def main(argv: list[str]) -> int:
    from duocthu.tools.bench import atc_csv
    from duocthu.tools.scale_source import atc_monographs, iter_jsonl

    parser = argparse.ArgumentParser(prog="duocthu bench unpack", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5, help="fresh unpacks per source (default 5)")
    parser.add_argument("--source", type=Path, help="a formulary source to measure besides the sample")
    args = parser.parse_args(argv)
    pin_one_cpu()
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-unpack-") as scratch:
        work = Path(scratch)
        rows += measure("sample", None, args.n, work)
        source = args.source
        if source is None and atc_csv().is_file():
            source = work / "atc.jsonl"
            source.write_text("".join(f"{line}\n" for line in iter_jsonl(atc_monographs(atc_csv()))))
        if source is not None:
            rows += measure("atc scale source" if args.source is None else source.name, source, args.n, work)
    print_rows(rows)
    return 0

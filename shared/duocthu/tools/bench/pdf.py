"""`duocthu bench pdf [--scale] [--max-records N]`: what `duocthu convert-pdf` costs (docs/performance.md).

Renders the sample formulary (and with --scale the kit's ATC scale source, test data only) the
way the book is laid out, every defect on and then none, and converts each PDF in a subprocess
pinned to one core: pages, seconds, pages per second, peak memory (max RSS of the subprocess).
The difference between the two rows is the cost of the repairs. Target: 1,600 pages in
<= 2 minutes on one core with < 1 GB (`--scale --repeat 5` typesets about 1,600 pages).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from duocthu.ingest.pdf.render import render
from duocthu.ingest.pdf.render_text import DEFECTS, Defects
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.source import Monograph, slugify
from duocthu.tools.bench import atc_csv

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from duocthu.ingest.pdf.convert import convert
from duocthu.tools.bench.timing import pin_one_cpu
pin_one_cpu()
started = time.perf_counter()
result = convert(Path(sys.argv[1]))
elapsed = time.perf_counter() - started
print(json.dumps({"pages": result.pages, "seconds": elapsed, "records": len(result.records),
                  "problems": len(result.problems),
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _convert(pdf: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(pdf)], check=True, capture_output=True, text=True)
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def _row(name: str, records: list[Monograph], on: frozenset[str], workdir: Path) -> str:
    pdf = workdir / f"{name}-{len(on)}.pdf"
    started = time.perf_counter()
    render(records, pdf, Defects(on=on))
    rendered = time.perf_counter() - started
    f = _convert(pdf)
    defects = "all" if on else "none"
    return (
        f"| {name} | {defects} | {int(f['pages'])} | {int(f['records'])} | {int(f['problems'])} | "
        f"{f['seconds']:.1f} | {f['pages'] / f['seconds']:.2f} | {f['max_rss_mb']:.0f} | {rendered:.1f} |"
    )


def _copies(records: list[Monograph], times: int) -> list[Monograph]:
    """More pages of the same text: each copy's titles (and so drug_ids) numbered."""
    out = []
    for n in range(2, times + 2):
        for r in records:
            title = f"{r.title} {n}"
            out.append(r.model_copy(update={"title": title, "drug_id": slugify(title)}))
    return out


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu bench pdf", description=__doc__)
    parser.add_argument("--scale", action="store_true", help="also the ATC scale source (../shared)")
    parser.add_argument("--max-records", type=int, help="only the first N scale records")
    parser.add_argument(
        "--repeat", type=int, default=1, help="typeset the scale records N times (~1,700 pages)"
    )
    parser.add_argument("--defects-off", action="store_true", help="also every source with no defect")
    args = parser.parse_args(list(argv))
    sources = [("sample", load_source(sample_formulary_path()))]
    if args.scale:
        from duocthu.tools.scale_source import atc_monographs

        scale = atc_monographs(atc_csv())[: args.max_records]
        sources.append(("atc-scale", [*scale, *_copies(scale, args.repeat - 1)]))
    print(
        "| source | defects | pages | monographs | problems | convert s | pages/s (1 core) | peak MB "
        "| render s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, records in sources:
            for on in (frozenset(DEFECTS), *((frozenset(),) if args.defects_off else ())):
                print(_row(name, records, on, Path(tmp)), flush=True)
    return 0

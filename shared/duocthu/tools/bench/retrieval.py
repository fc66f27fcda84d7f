"""`duocthu bench retrieval`: latency of the retrieval routes, per store, per corpus.

Routes timed through RetrievalService, so each figure is what the retrieve function pays after
parsing (the manifest check, the scroll or query, payload -> EvidenceItem, the decision):

- section route:             a whole section by payload filter (chong_chi_dinh);
- section route + pooling:   than_trong plus the pooling search (a lexical query inside Qdrant,
                             filtered to the drug, attractor excluded, >= 5 matched words);
- overview (intro):          the four intro sections, prose, book order, 【】 labels;
- overview (all prose):      every prose section of the drug;
- reverse lookup (Edge, ATC): the keyword pass of a condition -> drugs lookup (phrase match inside
                             Qdrant, word rules and scores in Python, grouping, caps). The ATC
                             source has no chỉ định: its drug-class text (loai_thuoc) stands in.

Corpora: the sample formulary (40 monographs, all 19 sections) and the ATC scale source
(`../shared/data/atc-dataset-v2.csv` beside the repository, or under $DUOCTHU_KIT_DIR; 1,729
drugs; test data only, built in a temporary folder and deleted). The ATC source has no than_trong
section, so there pooling is timed on chong_chi_dinh through a policy override: the same code
path, a different trigger.

Stores: Qdrant Edge (payload-indexed, the embedded default) and qdrant-client's local mode (the
correctness double of a Qdrant server; it scans in Python and ignores payload indexes), measured
in the same run on the same chunks. Drugs are drawn round-robin; a few calls warm each route up
first. By default the process is pinned to one CPU (`--all-cores` to lift that).

    duocthu bench retrieval                       # both corpora, both stores, markdown table
    duocthu bench retrieval --corpus sample --n 500
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qdrant_client import QdrantClient

from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.source import Monograph
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.reverse.indication import retrieve_by_indication
from duocthu.retrieval.service import RetrievalService
from duocthu.settings import Settings
from duocthu.store import VectorStore
from duocthu.store.edge import EdgeStore
from duocthu.store.server import ServerStore
from duocthu.tools.bench import atc_csv
from duocthu.tools.bench.timing import percentile, pin_one_cpu

WARMUP = 5
POOL_QUESTION = (
    "Thận trọng khi dùng {title} cho người có tiền sử loét dạ dày tá tràng, xuất huyết tiêu hóa, "
    "suy gan nặng hoặc suy thận nặng?"
)
# Drug-class phrases of the ATC source, looked up in its loai_thuoc text (the chỉ định stand-in).
ATC_REVERSE_PHRASES = (
    "chống viêm không steroid",
    "chống động kinh",
    "chống trầm cảm",
    "kháng histamin",
    "chống đái tháo đường",
    "ức chế bơm proton",
    "hạ huyết áp",
    "chống lao",
)
ATC_POOL_QUESTION = (
    "Chống chỉ định của {title} ở người quá mẫn, suy gan nặng, suy thận nặng, phụ nữ có thai và trẻ em?"
)


@dataclass(frozen=True, slots=True)
class Row:
    corpus: str
    backend: str
    route: str
    n: int
    p50_ms: float
    p95_ms: float
    mean_evidence: float


def time_route(call: Callable[[int], EvidenceBundle], n: int) -> tuple[list[float], float]:
    for i in range(WARMUP):
        call(i)
    samples, evidence = [], 0
    for i in range(n):
        start = time.perf_counter()
        bundle = call(i)
        samples.append((time.perf_counter() - start) * 1000)
        evidence += len(bundle.evidence)
    return samples, evidence / n


def open_backend(backend: str, folder: Path) -> tuple[VectorStore, Settings]:
    settings = Settings(data_dir=folder / "data")
    if backend == "edge":
        return EdgeStore(settings.data_dir), settings
    client = QdrantClient(path=str(folder / "qdrant-local"))
    return ServerStore(client, alias="bench_chunks"), settings


def bench_corpus(
    corpus: str, records: list[Monograph], backend: str, n: int, log: Callable[[str], None]
) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix=f"duocthu-bench-{corpus}-{backend}-") as tmp:
        store, settings = open_backend(backend, Path(tmp))
        try:
            start = time.perf_counter()
            report = ingest_records(records, store, settings)
            log(f"{corpus}/{backend}: ingested {report.points} parts in {time.perf_counter() - start:.1f} s")
            return _routes(corpus, records, backend, store, n)
        finally:
            store.close()


def _routes(corpus: str, records: list[Monograph], backend: str, store: VectorStore, n: int) -> list[Row]:
    drugs = [(r.drug_id, r.title) for r in records]
    has_than_trong = all(any(s.key == "than_trong" for s in r.sections) for r in records)
    if has_than_trong:
        pooled_section, question, policy = "than_trong", POOL_QUESTION, EvidencePolicy()
    else:
        pooled_section, question = "chong_chi_dinh", ATC_POOL_QUESTION
        policy = EvidencePolicy(lexical_pool_sections=frozenset({pooled_section}))
    service = RetrievalService(store, policy)

    def pick(i: int) -> tuple[str, str]:
        return drugs[(i * 7) % len(drugs)]  # stride 7: neighbours in the list are not timed back to back

    routes: dict[str, Callable[[int], EvidenceBundle]] = {
        "section route": lambda i: service.by_section(pick(i)[0], "chong_chi_dinh"),
        f"section route + pooling ({pooled_section})": lambda i: service.by_section(
            pick(i)[0], pooled_section, question.format(title=pick(i)[1])
        ),
        "overview (intro)": lambda i: service.overview(pick(i)[0], intro_only=True),
        "overview (all prose)": lambda i: service.overview(pick(i)[0], intro_only=False),
    }
    if corpus == "atc" and backend == "edge":
        routes["reverse lookup, keyword pass (loai_thuoc standing in for chi_dinh)"] = lambda i: (
            retrieve_by_indication(
                store, ATC_REVERSE_PHRASES[i % len(ATC_REVERSE_PHRASES)], policy, section_key="loai_thuoc"
            )
        )
    rows = []
    for route, call in routes.items():
        samples, evidence = time_route(call, n)
        rows.append(
            Row(
                corpus,
                backend,
                route,
                n,
                statistics.median(samples),
                percentile(samples, 0.95),
                evidence,
            )
        )
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| corpus | store | route | n | p50 ms | p95 ms | parts returned (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.corpus} | {r.backend} | {r.route} | {r.n} | {r.p50_ms:.2f} | {r.p95_ms:.2f} "
            f"| {r.mean_evidence:.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu bench retrieval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=["sample", "atc", "all"], default="all")
    parser.add_argument("--backend", choices=["edge", "qdrant-client-local", "all"], default="all")
    parser.add_argument("--atc", type=Path, default=atc_csv(), help="the ATC CSV (test data only)")
    parser.add_argument("--n", type=int, default=300, help="timed calls per route on Edge")
    parser.add_argument(
        "--n-local", type=int, default=30, help="timed calls per route in local mode (it scans in Python)"
    )
    parser.add_argument("--all-cores", action="store_true", help="do not pin the process to one CPU")
    args = parser.parse_args(list(argv))

    warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
    if not args.all_cores:
        pin_one_cpu()
    corpora: list[tuple[str, list[Monograph]]] = []
    if args.corpus in ("sample", "all"):
        corpora.append(("sample", load_source(sample_formulary_path())))
    if args.corpus in ("atc", "all"):
        if args.atc.is_file():
            from duocthu.tools.scale_source import atc_monographs

            corpora.append(("atc", atc_monographs(args.atc)))
        else:
            print(f"skipping the ATC corpus: {args.atc} not found", file=sys.stderr)
    backends = ["edge", "qdrant-client-local"] if args.backend == "all" else [args.backend]

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    rows: list[Row] = []
    for corpus, records in corpora:
        for backend in backends:
            n = args.n if backend == "edge" else args.n_local
            rows += bench_corpus(corpus, records, backend, n, log)
    cpus = "1 CPU (pinned)" if not args.all_cores else f"{os.cpu_count()} CPUs"
    print(f"retrieval latency, {cpus}, Python {sys.version.split()[0]}")
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

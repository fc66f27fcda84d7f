"""`duocthu eval answers`: answers a clinician can act on, end to end through the chat turn.

Gold: every file of `tests/gold/answers/` (written from the sample monographs' own sentences
before the code it judges; which file is which split is `tests/gold/manifest.tsv`'s, and a split
may have several files). Three kinds of row:

- patient:  a which-drug question about a patient; `expect.listed` (drugs whose chỉ định names the
            condition), `expect.never_listed` (a mention inside another disease's name or as a
            risk), `expect.facets` ({drug: {facet: status}}, status one of contraindicated /
            caution / says_nothing / absent / states_no_change: the section says no change is
            needed, in its own words), for some `expect.alternative_quote` (the line
            of a section that names the better choice, which the reply must quote) and
            `expect.says` (wording the reply must hold: "Câu hỏi chưa nêu mức độ suy thận");
- not_said: a section question the section does not address; `expect.other_section` is the
            section that does (or null): the reply must say so in one line and quote it;
- focused:  a section question whose answering line is known (`expect.answer_line`): the line
            must be among the reply's answering lines, before the whole section.

Per split (and per file): per-facet status accuracy (a drug left unchecked counts wrong), drugs
listed but left unchecked (target 0), listing recall and never-listed drugs, reply length by kind
(median, max; patient target <= 3,000 characters, per file too), the answering line present,
"does not say" detected; ids (never text) of dev misses with `--misses`. Held-out misses are
counted, never listed.

    duocthu eval answers
    duocthu eval answers --split dev --misses
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duocthu.api.chat_turn import ChatTurn
from duocthu.api.runtime import build_runtime
from duocthu.api.services import chat as chat_services
from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.evidence import CandidateAssessment, FacetAssessment
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.evals import followups
from duocthu.tools.evals.common import gold_dir, rate, read_manifest

SPLITS = ("dev", "heldout")
MANIFEST_SPLIT = {"heldout": "held-out", "dev": "dev"}
KINDS = ("patient", "not_said", "focused")
FACET_STATUSES = ("contraindicated", "caution", "says_nothing", "absent", "states_no_change")
PATIENT_TARGET_CHARS = 3000


@dataclass(frozen=True)
class Row:
    id: str
    split: str
    kind: str
    message: str
    expect: dict[str, Any]
    drug: str | None = None
    section: str | None = None
    file: str = ""  # the gold file's name, for the per-file figures


def load_gold(path: Path) -> list[Row]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        row = Row(raw["id"], raw["split"], raw["kind"], raw["message"], raw["expect"], raw.get("drug"),
                  raw.get("section"), path.name)  # fmt: skip
        statuses = {s for facets in row.expect.get("facets", {}).values() for s in facets.values()}
        if row.split not in SPLITS or row.kind not in KINDS or statuses - set(FACET_STATUSES):
            raise ValueError(f"{path}:{number}: bad split, kind or facet status in {row.id}")
        rows.append(row)
    return rows


def gold_files(split: str) -> list[Path]:
    """Every file of answers/ the manifest gives this split ("dev" or "held-out"), in its order."""
    gold = gold_dir()
    files = [gold / r.file for r in read_manifest(gold) if r.folder == "answers" and r.split == split]
    if not files:
        raise ValueError(f"{gold}/manifest.tsv lists no {split} file of answers/")
    return files


def facet_status(facet: FacetAssessment) -> str:
    """The gold's statuses from a facet's assessment: nothing found in a section the monograph
    lacks is "absent", in one it has "says_nothing"; never "safe"."""
    if facet.status == "CONTRAINDICATED":
        return "contraindicated"
    if facet.status == "CAUTION":
        return "caution"
    if facet.status == "NO_CHANGE_STATED":
        return "states_no_change"
    return "absent" if facet.section_absent else "says_nothing"


@dataclass
class Outcome:
    row: Row
    length: int
    facets: list[tuple[str, str, str, str]] = field(default_factory=list)  # drug, facet, expected, got
    unchecked: list[str] = field(default_factory=list)  # drugs listed with no assessment
    listed_missing: list[str] = field(default_factory=list)
    never_listed_present: list[str] = field(default_factory=list)
    alternative_ok: bool | None = None
    says_ok: bool | None = None
    answer_line_ok: bool | None = None
    not_said_ok: bool | None = None
    other_section_ok: bool | None = None

    @property
    def missed(self) -> bool:
        wrong_facets = any(expected != got for _, _, expected, got in self.facets)
        flags = (
            self.alternative_ok, self.says_ok, self.answer_line_ok, self.not_said_ok, self.other_section_ok
        )  # fmt: skip
        return bool(
            wrong_facets or self.unchecked or self.listed_missing or self.never_listed_present
            or any(flag is False for flag in flags)
        )  # fmt: skip


def _patient(row: Row, turn: ChatTurn, out: Outcome) -> None:
    bundle = turn.bundle
    listed = [d.drug_id for d in bundle.ranked_drugs]
    assessed: dict[str, CandidateAssessment] = {c.drug_id: c for c in bundle.candidate_statuses}
    expect = row.expect
    out.listed_missing = [d for d in expect.get("listed", []) if d not in listed]
    out.never_listed_present = [d for d in expect.get("never_listed", []) if d in listed]
    if expect.get("facets"):
        out.unchecked = [d for d in listed if d not in assessed]
    for drug, facets in expect.get("facets", {}).items():
        by_facet = {f.facet: f for f in assessed[drug].facets} if drug in assessed else {}
        for facet, expected in facets.items():
            got = facet_status(by_facet[facet]) if facet in by_facet else "unchecked"
            out.facets.append((drug, facet, expected, got))
    if "alternative_quote" in expect:
        out.alternative_ok = expect["alternative_quote"] in turn.answer
    if "says" in expect:
        out.says_ok = all(wording in turn.answer for wording in expect["says"])


def _section_question(row: Row, turn: ChatTurn, out: Outcome) -> None:
    lines = turn.answer_lines
    if row.kind == "focused":
        wanted = row.expect["answer_line"]
        out.answer_line_ok = lines is not None and any(wanted in line.text for line in lines.lines)
        return
    out.not_said_ok = lines is not None and lines.not_said
    other = row.expect.get("other_section")
    got = lines.other_section_key if lines is not None else None
    out.other_section_ok = got == other


def judge(row: Row, turn: ChatTurn) -> Outcome:
    out = Outcome(row, len(turn.answer))
    if row.kind == "patient":
        _patient(row, turn, out)
    else:
        _section_question(row, turn, out)
    return out


def run_turns(
    messages: Sequence[str], data_dir: Path, histories: Sequence[Sequence[str]] | None = None
) -> list[ChatTurn]:
    """Each message as a turn of the chat service (a first turn, or after its history), on a fresh
    index of the sample in `data_dir`."""
    settings = Settings(data_dir=data_dir)
    store = EdgeStore(data_dir)
    try:
        ingest_records(load_source(sample_formulary_path()), store, settings)
    finally:
        store.close()
    runtime = build_runtime(settings)
    try:
        service = chat_services.chat_service(runtime)
        earlier = histories or [()] * len(messages)
        return [service.turn(m, history=list(h)) for m, h in zip(messages, earlier, strict=True)]
    finally:
        runtime.store.close()


def run(rows: Sequence[Row], data_dir: Path) -> list[Outcome]:
    turns = run_turns([row.message for row in rows], data_dir)
    return [judge(row, turn) for row, turn in zip(rows, turns, strict=True)]


def _lengths(outcomes: Sequence[Outcome], kind: str) -> str:
    lengths = [o.length for o in outcomes if o.row.kind == kind]
    if not lengths:
        return "–"
    return f"{statistics.median(lengths):,.0f} / {max(lengths):,}"


def figures(outcomes: Sequence[Outcome]) -> dict[str, str]:
    facets = [f for o in outcomes for f in o.facets]
    listed = [o for o in outcomes if o.row.kind == "patient"]
    expected_listed = sum(len(o.row.expect.get("listed", [])) for o in listed)
    never = sum(len(o.row.expect.get("never_listed", [])) for o in listed)
    patient_lengths = [o.length for o in listed]

    def flag(name: str) -> str:
        values = [getattr(o, name) for o in outcomes if getattr(o, name) is not None]
        return rate(sum(values), len(values))

    return {
        "per-facet status accuracy": rate(sum(e == g for _, _, e, g in facets), len(facets)),
        "drugs listed, left unchecked (target 0)": str(sum(len(o.unchecked) for o in outcomes)),
        "listed drugs found": rate(
            expected_listed - sum(len(o.listed_missing) for o in listed), expected_listed
        ),
        "never-listed drugs kept off": rate(never - sum(len(o.never_listed_present) for o in listed), never),
        "alternative the formulary names quoted": flag("alternative_ok"),
        "wording the reply must hold (`says`)": flag("says_ok"),
        f"patient replies <= {PATIENT_TARGET_CHARS:,} chars": rate(
            sum(n <= PATIENT_TARGET_CHARS for n in patient_lengths), len(patient_lengths)
        ),
        "reply length, patient (median / max)": _lengths(outcomes, "patient"),
        "reply length, not_said (median / max)": _lengths(outcomes, "not_said"),
        "reply length, focused (median / max)": _lengths(outcomes, "focused"),
        "answering line present (focused)": flag("answer_line_ok"),
        '"does not say" detected': flag("not_said_ok"),
        "the section that does say quoted (or none)": flag("other_section_ok"),
    }


def per_facet(outcomes: Sequence[Outcome]) -> dict[str, str]:
    names = sorted({f[1] for o in outcomes for f in o.facets})
    return {
        f"  {name}": rate(
            sum(e == g for o in outcomes for _, f, e, g in o.facets if f == name),
            sum(1 for o in outcomes for _, f, _, _ in o.facets if f == name),
        )
        for name in names
    }


def per_file(outcomes: Sequence[Outcome]) -> dict[str, str]:
    """Per gold file: per-facet status accuracy and, where it has patient cases, how many replies
    keep within the target and their median / max length."""
    out: dict[str, str] = {}
    for name in dict.fromkeys(o.row.file for o in outcomes):
        own = [o for o in outcomes if o.row.file == name]
        out[f"  per-facet status accuracy, {name}"] = rate(
            sum(e == g for o in own for _, _, e, g in o.facets), sum(len(o.facets) for o in own)
        )
        lengths = [o.length for o in own if o.row.kind == "patient"]
        if lengths:
            within = rate(sum(n <= PATIENT_TARGET_CHARS for n in lengths), len(lengths))
            out[f"  patient replies <= {PATIENT_TARGET_CHARS:,} (median / max), {name}"] = (
                f"{within} ({_lengths(own, 'patient')})"
            )
    return out


def table(outcomes: Sequence[Outcome], follow_ups: dict[str, dict[str, Any]] | None = None) -> str:
    """Markdown: one column per split; `follow_ups` is `followups.report()` (stateless = session)."""
    by_split = {s: [o for o in outcomes if o.row.split == s] for s in SPLITS}
    columns = {s: {**figures(by_split[s]), **per_facet(by_split[s]), **per_file(by_split[s])} for s in SPLITS}
    names = list(dict.fromkeys(name for s in SPLITS for name in columns[s]))
    lines = ["| measure | " + " | ".join(MANIFEST_SPLIT[s] for s in SPLITS) + " |", "|---|---|---|"]
    lines += [f"| {n} | " + " | ".join(columns[s].get(n, "–") for s in SPLITS) + " |" for n in names]
    if follow_ups is not None:
        cells = []
        for s in SPLITS:
            r = follow_ups[MANIFEST_SPLIT[s]]
            cells.append(rate(round(r["equivalence"] * r["follow_up_turns"]), r["follow_up_turns"]))
        label = "follow-up turns equal, history vs session (`eval followups`)"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    """Ids of the dev rows missed, with what was wrong (drug ids and facets, never text)."""
    lines = []
    for o in outcomes:
        if o.row.split != "dev" or not o.missed:
            continue
        wrong = [f"{d}.{f}: {e} -> {g}" for d, f, e, g in o.facets if e != g]
        extra = [f"unchecked {o.unchecked}"] if o.unchecked else []
        extra += [f"not listed {o.listed_missing}"] if o.listed_missing else []
        extra += [f"listed by mistake {o.never_listed_present}"] if o.never_listed_present else []
        for name in ("alternative_ok", "says_ok", "answer_line_ok", "not_said_ok", "other_section_ok"):
            if getattr(o, name) is False:
                extra.append(name.removesuffix("_ok") + " missing")
        lines.append(f"{o.row.id} [{o.row.kind}] " + "; ".join([*wrong, *extra]))
    held = sum(o.missed for o in outcomes if o.row.split == "heldout")
    lines.append(f"held-out rows missed: {held} (ids not listed)")
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval answers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="ids of the dev rows missed")
    args = parser.parse_args(list(argv))
    rows = [r for split in SPLITS for path in gold_files(MANIFEST_SPLIT[split]) for r in load_gold(path)]
    if args.split != "all":
        rows = [r for r in rows if r.split == args.split]
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-answers-") as tmp:
        outcomes = run(rows, Path(tmp))
    counts = ", ".join(f"{sum(r.kind == k for r in rows)} {k}" for k in KINDS)
    report = [
        f"answers a clinician can act on: {len(rows)} rows ({counts})",
        "",
        table(outcomes, followups.report()),
    ]
    print("\n".join([*report, *(["", misses(outcomes)] if args.misses else [])]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

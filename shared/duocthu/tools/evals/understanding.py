"""`duocthu eval understanding`: frames scored against gold questions, and real ViMedAQA questions.

    duocthu eval understanding --questions tests/gold/understanding/questions/held-out-team.jsonl
    duocthu eval understanding --questions tests/gold/understanding/questions/dev-team.jsonl --failures 20
    duocthu eval understanding --vimedaqa ../shared/eval/vimedaqa-drug-validation.jsonl \\
        --title-map tests/gold/vimedaqa/titles.tsv

The gold files and their splits are listed in tests/gold/manifest.tsv. `--failures` prints the
wrong answers of a dev file only: a file the manifest lists as held-out or mixed shows its figures.

Gold file (JSON lines): {"id", "category", "message", "history"?, "prior"?, "turns"?, "expect"}.
"turns" are a conversation's earlier user turns: each is understood in order with the frame of the
one before, as the chat does, and the message is scored with the last frame. Only the
fields present in `expect` are scored: turn_type, drugs (as a set), attribute, never_attribute (a
section the frame must not name: "có được chỉ định X không?" of a patient is never chỉ định alone),
unknown_drugs_contains (each string inside some unknown drug, folded), never_drugs, population,
weight_kg, route, condition_relation, non_human (the subject scope; a non-human turn must also be
out_of_scope with no clarifying question), needs_clarify; and of a patient's case: condition (the
condition asked about, its normalised form or its words, folded), current_medications (the medicines
taken, as written, as a folded set), reaction_drugs (each inside some adverse reaction or allergy and
never among the drugs), renal_function (a string inside it, such as the stated ClCr; null: none).
A question is correct when every scored field is.

ViMedAQA: each row's `title` is mapped (a data file) to what it asks: section keys (any is right),
`overview` (no section, or an intro section, is right), `none` (no section is right) or `-`
(unmapped, not scored). Attribute accuracy is over the mapped rows; the false-drug rate is over all
rows: a frame drug none of whose catalogue names occurs in the question as whole words. Rows are
split by the parity of their question number (even: dev, odd: held-out); both halves are reported.

With `--judged`, each row is also scored against what two annotators judged its question to ask,
from its words alone (tests/gold/vimedaqa/judged.tsv; the same labels plus `open`, a decision that
reads the monograph together, right for a frame that names the drug and no section). The title
labels stay the measurement; the judged labels say how much of a miss is the title's.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import INTRO_SECTIONS, SECTION_ORDER
from duocthu.core.text import fold
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.frame import QueryFrame
from duocthu.settings import Settings
from duocthu.tools.evals.common import GoldNotFound, gold_dir, gold_file, rate, read_manifest
from duocthu.tools.evals.manifest import Row
from duocthu.understanding.pipeline import understand
from duocthu.understanding.providers import FrameProvider, frame_provider
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.scope import resolve_subject_scope

FIELDS = (
    "turn_type",
    "drugs",
    "attribute",
    "asked",
    "never_attribute",
    "unknown_drugs_contains",
    "never_drugs",
    "population",
    "weight_kg",
    "route",
    "condition_relation",
    "non_human",
    "needs_clarify",
    "condition",
    "current_medications",
    "reaction_drugs",
    "renal_function",
)
TURN_BUDGET_S = 30.0
TITLE_MAP = "vimedaqa/titles.tsv"  # in the gold folder
Understander = Callable[[str, Sequence[str], QueryFrame | None], QueryFrame]


# --- Gold questions ------------------------------------------------------------------------------


def _field_ok(name: str, want: Any, frame: QueryFrame, message: str) -> bool:
    if name == "drugs":
        return set(frame.drugs) == set(want)
    if name == "never_drugs":
        return not set(frame.drugs) & set(want)
    if name == "asked":  # a judged label: several acceptable sections, overview, open or none
        return attribute_ok(want, frame)
    if name == "never_attribute":
        return bool(frame.attribute != want)
    if name == "unknown_drugs_contains":
        have = [fold(u) for u in frame.unknown_drugs]
        return all(any(fold(w) in h for h in have) for w in want)
    if name == "weight_kg":
        return (frame.weight_kg is None) if want is None else frame.weight_kg == float(want)
    if name == "condition":
        said = (frame.condition.normalized or "", frame.condition.text) if frame.condition else ()
        return want is None if not said else fold(want) in {fold(s) for s in said}
    if name == "current_medications":
        return {fold(m) for m in frame.patient_context.current_medications} == {fold(m) for m in want}
    if name == "reaction_drugs":
        told = [fold(t) for t in (*frame.patient_context.adverse_reactions, *frame.patient_context.allergies)]
        return all(any(fold(w) in t for t in told) for w in want) and not set(frame.drugs) & set(want)
    if name == "renal_function":
        renal = frame.patient_context.renal_function
        return renal is None if want is None else renal is not None and fold(want) in fold(renal)
    if name == "non_human":
        scope_ok = (resolve_subject_scope(message, "human") == "non_human") == bool(want)
        return scope_ok and (not want or (frame.turn_type == "out_of_scope" and not frame.needs_clarify))
    return bool(getattr(frame, name) == want)


@dataclass
class GoldReport:
    questions: int = 0
    correct: int = 0
    by_field: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    by_category: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    failures: list[tuple[dict[str, Any], QueryFrame, list[str]]] = field(default_factory=list)


def understand_conversation(turns: Sequence[str], understander: Understander) -> QueryFrame | None:
    """The frame of a conversation's last user turn, each turn understood in order with the
    history before it and the frame of the turn before, as the chat does."""
    frame = None
    for i, turn in enumerate(turns):
        frame = understander(turn, tuple(turns[:i]), frame)
    return frame


def _context(row: dict[str, Any], understander: Understander) -> tuple[tuple[str, ...], QueryFrame | None]:
    """The history and prior frame a row's message is understood with."""
    if "turns" not in row:
        prior = QueryFrame.model_validate(row["prior"]) if row.get("prior") else None
        return tuple(row.get("history") or ()), prior
    return tuple(row["turns"]), understand_conversation(row["turns"], understander)


def score_gold(rows: Iterable[dict[str, Any]], understander: Understander) -> GoldReport:
    report = GoldReport()
    for row in rows:
        history, prior = _context(row, understander)
        frame = understander(row["message"], history, prior)
        wrong = []
        for name, want in row["expect"].items():
            if name not in FIELDS:
                raise ValueError(f"{row.get('id')}: unknown expect field {name!r}")
            ok = _field_ok(name, want, frame, row["message"])
            report.by_field[name][0] += ok
            report.by_field[name][1] += 1
            if not ok:
                wrong.append(name)
        category = report.by_category[row.get("category", "-")]
        category[0] += not wrong
        category[1] += 1
        report.questions += 1
        report.correct += not wrong
        if wrong:
            report.failures.append((row, frame, wrong))
    return report


def gold_table(name: str, report: GoldReport) -> str:
    right = rate(report.correct, report.questions)
    lines = [f"#### {name}: {report.questions} questions, all fields right {right}", ""]
    lines += ["| field | accuracy |", "|---|---|"]
    lines += [f"| {f} | {rate(*report.by_field[f])} |" for f in FIELDS if f in report.by_field]
    lines += ["", "| category | questions right |", "|---|---|"]
    lines += [f"| {c} | {rate(*report.by_category[c])} |" for c in sorted(report.by_category)]
    return "\n".join(lines)


# --- ViMedAQA ----------------------------------------------------------------------------------


def read_title_map(path: Path) -> dict[str, str]:
    lines = [
        line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")
    ]
    mapping = {
        row["title"]: row["label"] for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    }
    for title, label in mapping.items():
        for part in label.split("|"):
            if part not in SECTION_ORDER and part not in ("overview", "none", "-"):
                raise ValueError(f"{path}: unknown label {part!r} for {title!r}")
    return mapping


def read_judged(path: Path) -> dict[str, tuple[str, str]]:
    """question_idx -> the two annotators' labels."""
    lines = [
        line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")
    ]
    judged = {
        row["question_idx"]: (row["judge_a"], row["judge_b"])
        for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    }
    for idx, labels in judged.items():
        for part in "|".join(labels).split("|"):
            if part not in SECTION_ORDER and part not in ("overview", "open", "none"):
                raise ValueError(f"{path}: unknown label {part!r} for {idx}")
    return judged


def attribute_ok(label: str, frame: QueryFrame) -> bool:
    if label == "none":
        return frame.attribute is None
    accepted = set(label.split("|"))
    if frame.attribute in accepted:
        return True
    if "open" in accepted and frame.turn_type == "drug_attribute" and frame.attribute is None:
        return True
    return "overview" in accepted and (frame.attribute is None or frame.attribute in INTRO_SECTIONS)


def false_drugs(question: str, frame: QueryFrame, catalog: Catalog) -> list[str]:
    """Frame drugs that the question does not name by any of their catalogue names."""
    by_id = {d.drug_id: d for d in catalog.drugs}
    return [d for d in frame.drugs if not any(contains_phrase(question, n) for n in by_id[d].names())]


@dataclass
class VimedaqaReport:
    rows: int = 0
    mapped: int = 0
    attribute_right: int = 0
    with_false_drug: int = 0
    with_drug: int = 0
    clarify: int = 0
    by_label: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    failures: list[tuple[dict[str, Any], str, QueryFrame]] = field(default_factory=list)
    false_drug_rows: list[tuple[str, list[str]]] = field(default_factory=list)
    # against the judged labels: rows judged; right by annotator a, b, both; titles both accept
    judged: int = 0
    judged_right: list[int] = field(default_factory=lambda: [0, 0, 0])
    title_agrees: int = 0
    title_judged: int = 0
    judged_failures: list[tuple[dict[str, Any], tuple[str, str], QueryFrame]] = field(default_factory=list)


def _question_number(row: dict[str, Any]) -> int:
    digits = re.findall(r"\d+", str(row.get("question_idx", "")))
    return int(digits[-1]) if digits else 0


def _labels_meet(first: str, second: str) -> bool:
    """Whether two labels accept a common answer (`overview` accepts an intro section)."""
    a, b = set(first.split("|")), set(second.split("|"))
    intro = set(INTRO_SECTIONS) | {"overview"}
    return bool(a & b) or ("overview" in a and bool(b & intro)) or ("overview" in b and bool(a & intro))


def score_vimedaqa(
    rows: Iterable[dict[str, Any]],
    titles: dict[str, str],
    understander: Understander,
    catalog: Catalog,
    judged: dict[str, tuple[str, str]] | None = None,
) -> dict[str, VimedaqaReport]:
    reports = {"dev": VimedaqaReport(), "held-out": VimedaqaReport()}
    for row in rows:
        report = reports["dev" if _question_number(row) % 2 == 0 else "held-out"]
        frame = understander(row["question"], (), None)
        report.rows += 1
        report.with_drug += bool(frame.drugs)
        report.clarify += frame.needs_clarify
        wrong_drugs = false_drugs(row["question"], frame, catalog)
        if wrong_drugs:
            report.with_false_drug += 1
            report.false_drug_rows.append((row["question"], wrong_drugs))
        label = titles.get(row["title"], "-")
        if judged and row["question_idx"] in judged:
            a, b = (attribute_ok(j, frame) for j in judged[row["question_idx"]])
            report.judged += 1
            for i, ok in enumerate((a, b, a and b)):
                report.judged_right[i] += ok
            if not (a and b):
                report.judged_failures.append((row, judged[row["question_idx"]], frame))
            if label != "-":
                report.title_judged += 1
                report.title_agrees += all(_labels_meet(label, j) for j in judged[row["question_idx"]])
        if label == "-":
            continue
        ok = attribute_ok(label, frame)
        report.mapped += 1
        report.attribute_right += ok
        key = "overview" if "overview" in label else ("none" if label == "none" else label.split("|")[0])
        report.by_label[key][0] += ok
        report.by_label[key][1] += 1
        if not ok:
            report.failures.append((row, label, frame))
    return reports


def vimedaqa_table(reports: dict[str, VimedaqaReport]) -> str:
    lines = [
        "| half | rows | mapped | attribute (mapped rows) | false-drug rate | rows with a drug | clarify |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in reports.items():
        lines.append(
            f"| {name} | {r.rows} | {r.mapped} | {rate(r.attribute_right, r.mapped)} | "
            f"{rate(r.with_false_drug, r.rows)} | {r.with_drug} | {r.clarify} |"
        )
    lines += ["", "| asked (title) | dev | held-out |", "|---|---|---|"]
    labels = sorted(set().union(*(r.by_label for r in reports.values())))
    for label in labels:
        lines.append(f"| {label} | " + " | ".join(rate(*reports[h].by_label[label]) for h in reports) + " |")
    if any(r.judged for r in reports.values()):
        lines += [
            "",
            "| half | judged rows | right for annotator a | for b | for both | title agrees with both |",
            "|---|---|---|---|---|---|",
        ]
        for name, r in reports.items():
            right = " | ".join(rate(n, r.judged) for n in r.judged_right)
            lines.append(f"| {name} | {r.judged} | {right} | {rate(r.title_agrees, r.title_judged)} |")
    return "\n".join(lines)


# --- Command -----------------------------------------------------------------------------------


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def listed_in_manifest(path: Path) -> Row | None:
    """The manifest's row for a file of the gold folder; None for any other file, or when there
    is no gold folder here."""
    try:
        gold = gold_dir()
        rows = read_manifest(gold)
    except GoldNotFound:
        return None
    target = path.resolve()
    return next((row for row in rows if (gold / row.file).resolve() == target), None)


def make_understander(resolver: CatalogDrugResolver, provider: FrameProvider) -> Understander:
    def run(message: str, history: Sequence[str], prior: QueryFrame | None) -> QueryFrame:
        return understand(message, resolver, provider, Deadline.after(TURN_BUDGET_S), history, prior)

    return run


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval understanding", description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", action="append", default=[], help="gold JSONL file (repeatable)")
    parser.add_argument("--vimedaqa", help="the kit's vimedaqa-drug-validation.jsonl")
    parser.add_argument("--title-map", help=f"ViMedAQA title -> label (default: tests/gold/{TITLE_MAP})")
    parser.add_argument("--judged", help="ViMedAQA question -> two annotators' labels (also scored)")
    parser.add_argument("--source", help="formulary source to build the catalogue from (default: the sample)")
    parser.add_argument(
        "--provider",
        choices=("offline", "settings"),
        default="offline",
        help="offline (default), or the provider the environment configures",
    )
    parser.add_argument(
        "--failures",
        type=int,
        default=0,
        help="print up to N wrong answers per file (a dev file only; ViMedAQA: the dev half only, so "
        "that tuning never sees a held-out row)",
    )
    args = parser.parse_args(list(argv))
    if not args.questions and not args.vimedaqa:
        parser.error("give --questions FILE and/or --vimedaqa FILE")

    records = load_source(Path(args.source) if args.source else sample_formulary_path())
    catalog = Catalog.from_records(records, corpus_hash="eval")
    resolver = CatalogDrugResolver(catalog)
    provider = OfflineFrameProvider() if args.provider == "offline" else frame_provider(Settings.from_env())
    understander = make_understander(resolver, provider)
    print(f"provider: {provider.name}; catalogue: {len(catalog.drugs)} drugs\n")

    for name in args.questions:
        gold = score_gold(_read_jsonl(Path(name)), understander)
        listed = listed_in_manifest(Path(name))
        print(gold_table(listed.file if listed else Path(name).name, gold) + "\n")
        if args.failures and listed and listed.split != "dev":
            print(f"  (wrong answers not shown: the manifest lists {listed.file} as {listed.split})\n")
            continue
        for row, frame, wrong in gold.failures[: args.failures]:
            shown = frame.model_dump(exclude_defaults=True, exclude={"standalone_query", "patient_context"})
            print(
                f"  ✗ {row['id']} [{', '.join(wrong)}] {row['message']!r}\n"
                f"      want {row['expect']}\n      got  {shown}"
            )
    if args.vimedaqa:
        titles = read_title_map(Path(args.title_map) if args.title_map else gold_file(TITLE_MAP))
        judged = read_judged(Path(args.judged)) if args.judged else None
        reports = score_vimedaqa(_read_jsonl(Path(args.vimedaqa)), titles, understander, catalog, judged)
        print("#### ViMedAQA (drug, validation)\n")
        print(vimedaqa_table(reports) + "\n")
        for half, report in reports.items():
            for question, wrong_drugs in report.false_drug_rows:
                print(f"  false drug ({half}): {wrong_drugs} in {question!r}")
        for row, label, got in reports["dev"].failures[: args.failures]:
            print(f"  ✗ (dev) want {label}, got {got.attribute} ({got.turn_type}): {row['question']!r}")
        for row, (a, b), got in reports["dev"].judged_failures[: args.failures]:
            got_text = f"{got.attribute} ({got.turn_type})"
            print(f"  ✗ (dev, judged) want {a} / {b}, got {got_text}: {row['question']!r}")
    sys.stdout.flush()
    return 0

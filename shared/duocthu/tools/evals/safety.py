"""`duocthu eval safety`: are the parts each stage-2 safety facet returns about *this* patient?

Team-written cases (`tests/gold/safety/{held-out,dev}.jsonl`; the held-out file was written first,
from the formulary text, before the facets ran; evaluation data, never shipped in the layer). Each
case is one candidate drug and one patient (PatientContext fields, population, age_text) and lists,
per facet, quotes from the parts that answer for that patient: an interaction part names one of
the patient's current medicines as interacting, a warnings part speaks to one of the patient's
conditions, a dosage part gives the dose for the patient's organ function or age band. An empty
list, or a facet left out, means no part should come back.

A returned part is relevant when its text contains one of the facet's quotes. Per facet:

- precision: relevant parts / parts returned (the headline: a wrong part presented as this
  patient's evidence is the failure that matters);
- found: cases with something to find where a relevant part came back;
- silent: cases with nothing to find where nothing came back (an empty facet is
  INSUFFICIENT_EVIDENCE, never "safe", so silence is the right answer there).

Candidate status and the decision (when a case gives one) are reported beside them.

    duocthu eval safety                      # dev, held-out and overall
    duocthu eval safety --split heldout --misses
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.vocabulary import CandidateStatus
from duocthu.models.evidence import EvidenceBundle, SafetyFacet
from duocthu.models.frame import PatientContext
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.safety import retrieve_patient_drug_context
from duocthu.settings import Settings
from duocthu.store import VectorStore
from duocthu.tools.evals.common import evaluation_index, split_files

SPLITS = ("heldout", "dev")
MANIFEST_SPLIT = {"heldout": "held-out", "dev": "dev"}  # a row's split -> the manifest's
FACETS: tuple[SafetyFacet, ...] = get_args(SafetyFacet)
STATUSES: frozenset[str] = frozenset(get_args(CandidateStatus))


@dataclass(frozen=True)
class Case:
    id: str
    split: str
    drug_id: str
    patient: PatientContext
    expect: dict[str, tuple[str, ...]]
    status: str
    population: str | None = None
    age_text: str | None = None
    decision: str | None = None
    note: str = ""

    def profile(self) -> PatientProfile:
        population: Any = self.population
        return PatientProfile(self.patient, population, self.age_text)


@dataclass(frozen=True)
class FacetOutcome:
    facet: SafetyFacet
    returned: tuple[str, ...]  # texts of the parts returned
    quotes: tuple[str, ...]

    @property
    def relevant(self) -> list[bool]:
        return [any(_nfc(q) in _nfc(text) for q in self.quotes) for text in self.returned]


@dataclass(frozen=True)
class Outcome:
    case: Case
    facets: dict[SafetyFacet, FacetOutcome] = field(default_factory=dict)
    status: str = ""
    decision: str = ""


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def default_gold(split: str) -> Path:
    """The file of a split ("heldout" or "dev"), as the manifest lists it under safety/."""
    return split_files("safety")[MANIFEST_SPLIT[split]]


def load_gold(path: Path) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        case = Case(
            id=row["id"],
            split=row["split"],
            drug_id=row["drug_id"],
            patient=PatientContext.model_validate(row.get("patient") or {}),
            expect={k: tuple(v) for k, v in row["expect"].items()},
            status=row["status"],
            population=row.get("population"),
            age_text=row.get("age_text"),
            decision=row.get("decision"),
            note=row.get("note", ""),
        )
        if case.split not in SPLITS or case.status not in STATUSES or set(case.expect) - set(FACETS):
            raise ValueError(f"{path}:{number}: bad split, status or facet in {case.id}")
        cases.append(case)
    return cases


def _outcome(case: Case, bundle: EvidenceBundle) -> Outcome:
    texts = {item.id: item.text for item in bundle.evidence}
    assessment = next((c for c in bundle.candidate_statuses if c.drug_id == case.drug_id), None)
    returned = (
        {f.facet: tuple(texts[i] for i in f.evidence_ids) for f in assessment.facets} if assessment else {}
    )
    facets = {
        facet: FacetOutcome(facet, returned.get(facet, ()), case.expect.get(facet, ()))
        for facet in FACETS
        if facet in returned or facet in case.expect
    }
    return Outcome(case, facets, assessment.status if assessment else "", bundle.decision)


def run(
    cases: Iterable[Case],
    store: VectorStore,
    resolver: CatalogDrugResolver,
    policy: EvidencePolicy | None = None,
) -> list[Outcome]:
    return [
        _outcome(case, retrieve_patient_drug_context(store, resolver, [case.drug_id], case.profile(), policy))
        for case in cases
    ]


def _ratio(num: int, den: int) -> str:
    return f"{num / den:.3f} ({num}/{den})" if den else "–"


def _cells(outcomes: Sequence[Outcome], facet: str | None) -> list[str]:
    chosen = [o.facets[f] for o in outcomes for f in o.facets if facet is None or f == facet]
    flags = [r for fo in chosen for r in fo.relevant]
    to_find = [fo for fo in chosen if fo.quotes]
    nothing = [fo for fo in chosen if not fo.quotes]
    found = sum(any(fo.relevant) for fo in to_find)
    silent = sum(not fo.returned for fo in nothing)
    return [_ratio(sum(flags), len(flags)), _ratio(found, len(to_find)), _ratio(silent, len(nothing))]


def table(outcomes: Sequence[Outcome]) -> str:
    """Markdown: per facet and overall, precision / found / silent for each split."""
    header = "| facet | " + " | ".join(f"precision {s} | found {s} | silent {s}" for s in SPLITS) + " |"
    lines = [header, "|" + "---|" * (1 + 3 * len(SPLITS))]
    for facet in [*FACETS, None]:
        cells = []
        for split in SPLITS:
            cells += _cells([o for o in outcomes if o.case.split == split], facet)
        name = f"`{facet}`" if facet else "**all facets**"
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    status = []
    for split in SPLITS:
        part = [o for o in outcomes if o.case.split == split]
        status += [_ratio(sum(o.status == o.case.status for o in part), len(part)), "", ""]
    lines.append("| candidate status (accuracy) | " + " | ".join(status) + " |")
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for o in outcomes:
        tag = f"{o.case.id} [{o.case.split}] {o.case.drug_id}"
        for fo in o.facets.values():
            for text, ok in zip(fo.returned, fo.relevant, strict=True):
                if not ok:
                    lines.append(f"{tag} {fo.facet}: not relevant: {text[:160]!r}")
            if fo.quotes and not any(fo.relevant):
                lines.append(f"{tag} {fo.facet}: nothing relevant returned")
        if o.status != o.case.status:
            lines.append(f"{tag} status {o.status} != {o.case.status}")
        if o.case.decision and o.decision != o.case.decision:
            lines.append(f"{tag} decision {o.decision} != {o.case.decision}")
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="duocthu eval safety", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--gold", type=Path, action="append", help="JSONL gold file (repeatable; default: both)"
    )
    parser.add_argument("--data-dir", type=Path, help="an Edge index to use (default: a fresh sample index)")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="list every irrelevant part and miss")
    args = parser.parse_args(list(argv))
    paths = args.gold or [default_gold(s) for s in SPLITS]
    cases = [c for p in paths for c in load_gold(p)]
    if args.split != "all":
        cases = [c for c in cases if c.split == args.split]
    with evaluation_index(args.data_dir, "safety") as (store, resolver):
        outcomes = run(cases, store, resolver, Settings.from_env().evidence_policy)
    print(f"stage-2 safety facets, {len(outcomes)} cases ({', '.join(str(p) for p in paths)})")
    print()
    print(table(outcomes))
    if args.misses:
        print()
        print(misses(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Reading a formulary source (`docs/source-format.md`): a folder of `<drug_id>.json` or a
`.jsonl`, every record validated (all problems reported at once), and the corpus hash an index
and its catalogue are matched by."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from duocthu.models.source import Monograph


class SourceError(ValueError):
    """One or more records are invalid; nothing was written."""

    def __init__(self, problems: list[str]):
        super().__init__("invalid formulary source:\n  " + "\n  ".join(problems))
        self.problems = problems


def _describe(error: ValidationError, drug_id: str) -> list[str]:
    out = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(record)"
        out.append(f"{drug_id or '(no drug_id)'}: {field}: {err['msg']}")
    return out


def _raw_records(path: Path) -> Iterable[tuple[str, object]]:
    if path.is_dir():
        for file in sorted(path.glob("*.json")):
            yield file.name, json.loads(file.read_text(encoding="utf-8"))
    else:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                yield f"{path.name}:{n}", json.loads(line)


def parse_records(raw: Iterable[tuple[str, object]]) -> list[Monograph]:
    """Validate every record; raise SourceError listing every problem if any record is bad."""
    problems: list[str] = []
    records: list[Monograph] = []
    seen: dict[str, str] = {}
    for where, data in raw:
        drug_id = str(data.get("drug_id", "")) if isinstance(data, dict) else ""
        try:
            record = Monograph.model_validate(data)
        except ValidationError as err:
            problems += [f"{where}: {p}" for p in _describe(err, drug_id)]
            continue
        if record.drug_id in seen:
            problems.append(f"{where}: {record.drug_id}: drug_id: duplicate (also in {seen[record.drug_id]})")
            continue
        seen[record.drug_id] = where
        records.append(record)
    if problems:
        raise SourceError(problems)
    return records


def load_source(path: Path) -> list[Monograph]:
    return parse_records(_raw_records(path))


def corpus_hash(records: Iterable[Monograph]) -> str:
    """Content hash of a validated corpus, independent of file layout and record order."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: r.drug_id):
        digest.update(record.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def sample_formulary_path() -> Path:
    """The team-written sample formulary shipped with the package (sample data, not for clinical use)."""
    return Path(str(resources.files("duocthu").joinpath("sample_formulary")))

"""The prose parts read at ingest (store.prose_parts): on the sample, every phrase the reverse
lookup searches finds the parts whose folded words hold it, in id order, with the word count of
the part's own text; a parts file of another version, damaged or missing, is never served."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.core.phrases import find_phrase
from duocthu.core.sections import ADR_SECTION, CAUTION_SECTION, CONTRAINDICATION_SECTION, INDICATION_SECTION
from duocthu.core.tables import table_rows
from duocthu.core.text import folded_words, words
from duocthu.models.chunk import PROSE
from duocthu.models.evidence import EvidenceItem
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable, prose_parts
from duocthu.store.edge import EdgeStore
from duocthu.store.prose_parts import PARTS_FILE, PartsMismatch, read_prose_parts


def _searched_phrases(catalog: Catalog) -> list[str]:
    """What a which-drugs lookup searches: the conditions and their wordings, the wider findings,
    the populations' wordings and advice, the catalogue's names; and phrases no part holds."""
    phrases = [cell for row in table_rows("condition_phrases.tsv") for cell in row[:2]]
    phrases += [cell for row in table_rows("formulary_wordings.tsv") for cell in row]
    phrases += [cell for row in table_rows("broader_findings.tsv") for cell in row]
    phrases += [row[1] for row in table_rows("population_phrases.tsv")]
    phrases += [row[2] for row in table_rows("population_advice.tsv")]
    phrases += [name for drug in catalog.drugs for name in (drug.title, *drug.aliases)]
    phrases += ["buon non", "BUỒN NÔN", "ho", "không nên dùng", "phần", "?!", "", "xyzzy không"]
    return list(dict.fromkeys(phrases))


def _naming(parts: list[EvidenceItem], phrase: str) -> list[EvidenceItem]:
    """The parts whose folded words hold the phrase's as a contiguous run, read word by word:
    what Qdrant's phrase match on the folded text finds (a server still matches that way; the
    store contract pins the two backends equal)."""
    run = folded_words(phrase)
    naming = (p for p in parts if run and find_phrase(folded_words(p.text), run) >= 0)
    return sorted(naming, key=lambda p: p.id)


def test_the_parts_read_at_ingest_find_every_part_naming_a_phrase(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, catalog, _ = sample_index
    prose = [p for d in catalog.drugs for p in store.find_by_drug(d.drug_id, chunk_kind=PROSE)]
    phrases = _searched_phrases(catalog)
    assert len(phrases) > 300
    found_any = 0
    for phrase in phrases:
        # every section at once: the same parts, in id order
        expected = _naming(prose, phrase)
        assert store.find_by_phrase(phrase) == expected, phrase
        found_any += bool(expected)
    assert found_any > 150
    for section in (INDICATION_SECTION, ADR_SECTION, CONTRAINDICATION_SECTION, CAUTION_SECTION):
        in_section = [p for p in prose if p.section_key == section]
        for phrase in phrases:
            expected = _naming(in_section, phrase)
            parts = store.find_prose(phrase, section_key=section)
            assert [p.item for p in parts] == expected, (section, phrase)
            assert [p.words for p in parts] == [len(words(item.text)) for item in expected]


def test_a_lookup_leaves_out_the_drugs_already_listed(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    every = store.find_prose("buồn nôn", section_key=ADR_SECTION)
    listed = {every[0].item.drug_id, every[-1].item.drug_id}
    rest = store.find_prose("buồn nôn", section_key=ADR_SECTION, skip_drugs=listed)
    assert rest == [p for p in every if p.item.drug_id not in listed] and len(rest) < len(every)


def test_a_section_keeps_its_phrases_within_a_bound_and_finds_the_same_parts(
    sample_index: tuple[EdgeStore, Catalog, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_PHRASES_KEPT phrases a section keeps only its words' parts: what it finds after
    is what a word-by-word reading finds."""
    monkeypatch.setattr(prose_parts, "MAX_PHRASES_KEPT", 3)
    store, catalog, _ = sample_index
    in_section = [p for d in catalog.drugs for p in store.find_by_drug(d.drug_id, chunk_kind=PROSE)]
    in_section = [p for p in in_section if p.section_key == CONTRAINDICATION_SECTION]
    phrases = [p for p in _searched_phrases(catalog) if len(words(p)) > 1][:40]
    section = store._prose()._section(CONTRAINDICATION_SECTION)
    section.rows.clear()  # what earlier lookups kept
    for phrase in phrases * 2:
        found = store.find_prose(phrase, section_key=CONTRAINDICATION_SECTION)
        assert [p.item for p in found] == _naming(in_section, phrase), phrase
    assert 0 < sum(run.count(" ") > 2 for run in section.rows) <= 3


def test_a_part_keeps_its_scored_copies_within_a_bound(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    part = store.find_prose("buồn nôn", section_key=ADR_SECTION)[0]
    first = part.scored(1.5)
    assert first == part.item.model_copy(update={"score": 1.5}) and part.scored(1.5) is first
    for score in range(prose_parts.MAX_SCORES_KEPT + 1):
        assert part.scored(float(score)).score == score
    assert len(part.scores) <= prose_parts.MAX_SCORES_KEPT


def _copy(settings: Settings, tmp_path: Path) -> tuple[EdgeStore, Path]:
    shutil.copytree(settings.data_dir, tmp_path / "data", ignore=shutil.ignore_patterns("sessions"))
    store = EdgeStore(tmp_path / "data")
    manifest = store.active_manifest()
    assert manifest is not None
    return store, store.version_dir(manifest.version) / PARTS_FILE


def test_a_parts_file_of_another_version_or_damaged_is_never_served(
    sample_index: tuple[EdgeStore, Catalog, Settings], tmp_path: Path
) -> None:
    _, _, settings = sample_index
    store, path = _copy(settings, tmp_path)
    raw = path.read_bytes()
    header, _, body = raw.partition(b"\n")
    other = json.loads(header) | {"version": "another"}
    path.write_bytes(json.dumps(other).encode() + b"\n" + body)
    with pytest.raises(StoreUnavailable, match="not"):
        store.count()
    store.close()
    # a section's lines are counted when a lookup first reads it
    miscounted = json.loads(header)
    miscounted["sections"][ADR_SECTION][2] += 1
    path.write_bytes(json.dumps(miscounted).encode() + b"\n" + body)
    assert store.count() > 0
    with pytest.raises(StoreUnavailable, match="is not the"):
        store.find_prose("buồn nôn", section_key=ADR_SECTION)
    store.close()
    with pytest.raises(PartsMismatch, match="not what its header says"):
        path.write_bytes(header + b"\n" + body[:-100])
        read_prose_parts(path, json.loads(header)["version"], lambda ids: {})
    path.unlink()
    with pytest.raises(StoreUnavailable, match="rebuild"):
        store.count()

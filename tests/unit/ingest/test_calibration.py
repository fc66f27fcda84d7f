"""Ingest-time calibration (duocthu.ingest.calibration): the dense threshold just above every
nonsense phrase, and vectors for chỉ định prose only."""

from __future__ import annotations

import json
import math

import pytest
from duocthu.ingest.calibration import CALIBRATION_MARGIN, calibrate, calibration_phrases, dense_vectors

from tests.conftest import ROOT
from tests.unit.retrieval.reverse.embedder import MODEL, TableEmbedder
from tests.unit.retrieval.reverse.shards import PARTS


def test_calibration_sits_just_above_every_nonsense_phrase() -> None:
    indications, nonsense = calibration_phrases()
    assert len(indications) >= 20 and len(nonsense) >= 20
    gold = [
        json.loads(line)
        for name in ("dev", "held-out")
        for line in (ROOT / "tests" / "gold" / "reverse" / f"{name}.jsonl").read_text().splitlines()
    ]
    # the calibration table never holds an evaluated phrase
    assert not {g["indication"] for g in gold} & {*indications, *nonsense}
    # Given an embedder under which nonsense lands near one passage and indications near another
    table = {p: [0.0, 1.0, 0.0] for p in indications}
    table.update(
        {p: [0.5 + i / 100, math.sqrt(1 - (0.5 + i / 100) ** 2), 0.0] for i, p in enumerate(nonsense)}
    )
    calibration = calibrate(TableEmbedder(table), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    worst = max(calibration.nonsense_scores)
    assert worst == pytest.approx(max(max(v[:2]) for p, v in table.items() if p in nonsense))
    assert calibration.threshold == pytest.approx(math.ceil((worst + CALIBRATION_MARGIN) * 1000) / 1000)
    assert calibration.threshold > worst and calibration.indication_recall == 1.0
    assert calibration.model == MODEL and "threshold" in calibration.summary()


def test_only_chi_dinh_prose_gets_a_vector() -> None:
    vectors, calibration = dense_vectors(PARTS, TableEmbedder({}))
    scoped = [c.section_key == "chi_dinh" and c.chunk_kind == "prose" for c in PARTS]
    assert [v is not None for v in vectors] == scoped and calibration is not None
    none, nothing = dense_vectors([PARTS[-1]], TableEmbedder({}))
    assert none == [None] and nothing is None

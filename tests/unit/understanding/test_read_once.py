"""A request reads each of its lines once (`understanding.tags`): the message, each ask clause and
each history line is put in the formulary's words, scanned for cues, searched for catalogue names,
read for patient facts and for the sections it names once, however many steps read it."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.text import words
from duocthu.models.frame import QueryFrame
from duocthu.models.source import Monograph
from duocthu.understanding import cue_readings, cues, facts, lexicon
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.pipeline import understand_read
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.several_asks import plan_message
from duocthu.understanding.tags import MessageReader

# Each reader of a whole line, by the module that defines it
_READERS = {
    "formulary_wording": lexicon,
    "scan_cues": cues,
    "extract_facts": facts,
    "section_matches": cue_readings,
}


def _count_everywhere(monkeypatch: pytest.MonkeyPatch, counts: Counter[tuple[str, str]]) -> None:
    """Count each reader's calls by the text it reads, under every name a module imported it by."""
    for name, home in _READERS.items():
        original: Callable[..., Any] = getattr(home, name)

        def counted(
            text: str, *args: Any, _name: str = name, _f: Callable[..., Any] = original, **kw: Any
        ) -> Any:
            counts[(_name, text)] += 1
            return _f(text, *args, **kw)

        for module in list(sys.modules.values()):
            if (
                getattr(module, "__name__", "").startswith("duocthu")
                and getattr(module, name, None) is original
            ):
                monkeypatch.setattr(module, name, counted)


def test_every_line_of_a_request_is_read_once(
    sample_records: list[Monograph], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a fresh resolver (no name search cached) and counters on every reader of a line
    resolver = CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash="read-once"))
    counts: Counter[tuple[str, str]] = Counter()
    _count_everywhere(monkeypatch, counts)
    searched: Counter[tuple[str, ...]] = Counter()
    exact = CatalogDrugResolver._exact_matches

    def names_searched(self: CatalogDrugResolver, tokens: list[str]) -> Any:
        searched[tuple(tokens)] += 1
        return exact(self, tokens)

    monkeypatch.setattr(CatalogDrugResolver, "_exact_matches", names_searched)

    def understand(
        text: str, history: Sequence[str], prior: QueryFrame | None, reader: MessageReader
    ) -> QueryFrame:
        return understand_read(text, reader, OfflineFrameProvider(), Deadline.after(5), history, prior)

    # When a message of two asks is planned after two earlier turns (replayed into a prior frame)
    history = ("Bệnh nhân nữ 70 tuổi, eGFR 38 ml/phút, đang dùng metformin.", "Liều metformin thế nào?")
    message = "Có cần giảm liều metformin không? Thêm gliclazid được không?"
    plan = plan_message(message, history, None, understand, resolver)

    # Then the message was read as two asks, and each line was read once by each reader
    assert len(plan.parts) == 2
    assert counts and max(counts.values()) == 1, [k for k, n in counts.items() if n > 1]
    # (a medicine the frame names, "metformin", is a frame field, not a line: the resolver caches it)
    lines = {tuple(words(formulary_wording(text))) for name, text in counts if name == "formulary_wording"}
    assert lines <= set(searched) and all(searched[line] == 1 for line in lines)
    assert {text for name, text in counts if name == "formulary_wording"} >= {message, *history}

"""The state machine's state at the book's size: the gold conversations (every row with a
history: the state carries it) and the which-drug and reverse questions (the widest evidence and
replies), answered through the steps on the 700-monograph bench book (tools/bench/scaled_book),
stay under 200 KB (Express's limit is 256 KB, and a state over it fails the execution uncaught).

Ingesting the book takes one to four minutes here, so `make test` leaves it out (the `book_size`
marker); `make parity` runs it over every such row (DUOCTHU_BOOK_STATE_STRIDE=n: every n-th).
Held-out files are left out: this measures the size, not the answers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.ingest.pipeline import ingest_records
from duocthu.settings import Settings, get_settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.bench.scaled_book import scaled_book
from duocthu.tools.evals.manifest import gold_dir

from tests.conftest import ATC_CSV
from tests.integration.test_handlers import load_function
from tests.parity import test_steps_and_chat as parity

BOOK_SIZE = 700
STRIDE = int(os.environ.get("DUOCTHU_BOOK_STATE_STRIDE", "1"))
WIDE = ("which-drug", "reverse", "reverse-sections")  # folders whose questions list many drugs
# a catalogue drug's section and the drugs whose section names it (hundreds at the book's size)
NAMED_BY_OTHERS = ("Thuốc nào tương tác với warfarin?",)


def _rows() -> list[tuple[str, str, list[str]]]:
    """(id, message, history) of every row of the conversation sets (its last turn, asked after
    the others) and every which-drug/reverse question."""
    rows = []
    for path in sorted(gold_dir().rglob("*.jsonl")):
        if "held-out" in path.name:
            continue
        wide = path.parent.name in WIDE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(line) if line.strip() else {}
            turns = [t for t in row.get("turns") or () if isinstance(t, str)]
            message = row.get("message") or row.get("question")
            if turns and not message:  # a conversation written as its turns alone
                message, turns = turns[-1], turns[:-1]
            if message and ("turns" in row or wide):
                rows.append((f"{path.relative_to(gold_dir())}:{number}", message, turns))
    return [*rows[::STRIDE], *((f"named-by-others:{q}", q, []) for q in NAMED_BY_OTHERS)]


@pytest.fixture(scope="module")
def book_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("book-700"))
    store = EdgeStore(settings.data_dir)
    ingest_records(scaled_book(BOOK_SIZE, ATC_CSV), store, settings)
    store.close()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {
            "DUOCTHU_DATA_DIR": str(settings.data_dir),
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_NAMESPACE": "DuocthuTest",
            "POWERTOOLS_SERVICE_NAME": "duocthu",
        }.items():
            patch.setenv(name, value)
        get_settings.cache_clear()
        get_runtime.cache_clear()
        yield
        get_runtime.cache_clear()
        get_settings.cache_clear()


@pytest.mark.book_size
def test_the_largest_state_at_700_monographs_stays_under_200_kb(book_env: None) -> None:
    parity.FUNCTIONS.update({name: load_function(name) for name in ("understand", "retrieve")})
    assert get_runtime().catalog is not None and len(get_runtime().catalog.drugs) == BOOK_SIZE
    rows = _rows()
    assert len(rows) >= 374 // STRIDE  # the dev conversation sets alone are 374 rows
    sizes = [(parity._through_steps(message, history)[1], row_id) for row_id, message, history in rows]
    largest = max(sizes)
    print(f"largest state over {len(rows)} rows at {BOOK_SIZE} monographs: {largest[0]} bytes ({largest[1]})")
    over = sorted((s for s in sizes if s[0] >= parity.MAX_STATE_BYTES), reverse=True)
    assert not over, f"{len(over)} of {len(rows)} states over {parity.MAX_STATE_BYTES} bytes: {over[:10]}"

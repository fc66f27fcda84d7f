"""The bench's book at the real size (tools/bench/scaled_book): 700 records, each name (title,
alias, brand) belonging to one monograph, as in the printed book, so that a question naming a
sample drug asks the same drug at 40 and at 700."""

from __future__ import annotations

from collections import Counter

import pytest
from duocthu.core.text import fold
from duocthu.tools.bench.scaled_book import scaled_book

from tests.conftest import ATC_CSV


@pytest.mark.skipif(not ATC_CSV.exists(), reason="the team kit's ATC table is not here")
def test_each_name_of_the_700_book_belongs_to_one_monograph() -> None:
    book = scaled_book(700, ATC_CSV)
    assert len(book) == len({r.drug_id for r in book}) == 700
    names = Counter(
        name for r in book for name in {fold(n) for n in (r.title, *r.aliases, *(b.name for b in r.brands))}
    )
    assert [name for name, count in names.items() if count > 1] == []
    assert names[fold("Omeprazol")] == 1  # the ATC table's "Omeprazole" rows left out

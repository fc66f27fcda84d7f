"""The one reader of the data tables (`duocthu/data/`): adding a phrasing adds a row, never code.

Every table is UTF-8 text; lines starting with `#` are comments and blank lines are skipped. A
`.tsv` table's first line names its columns, cells are split at tabs (no quoting: the phrases
hold no tab). A `.txt` list holds one entry per line. Files are read once per process.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def data_lines(name: str) -> tuple[str, ...]:
    """The lines of data/<name> that carry data: comments and blank lines left out."""
    text = resources.files("duocthu").joinpath("data", name).read_text(encoding="utf-8")
    return tuple(line for line in text.splitlines() if line.strip() and not line.startswith("#"))


@cache
def table_rows(name: str) -> tuple[tuple[str, ...], ...]:
    """The rows of a table after its header, each cell stripped. A row may hold more cells than
    the header names (a list of wordings after its key)."""
    return tuple(tuple(cell.strip() for cell in line.split("\t")) for line in data_lines(name)[1:])


@cache
def table_records(name: str) -> tuple[dict[str, str], ...]:
    """The rows of a table as {column: cell}; a cell the row leaves out is ""."""
    header = tuple(cell.strip() for cell in data_lines(name)[0].split("\t"))
    return tuple(
        {column: (row[i] if i < len(row) else "") for i, column in enumerate(header)}
        for row in table_rows(name)
    )

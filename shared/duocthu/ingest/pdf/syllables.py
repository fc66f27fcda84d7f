"""`python -m duocthu.ingest.pdf.syllables PYVI_WHEEL`: write `duocthu/data/vi_syllables.txt` from the
dictionary of pyvi (MIT, PyPI `pyvi`), every syllable of its words without the tone mark.

pyvi itself is not a dependency (it pulls scikit-learn and crfsuite): the wheel is read as a zip
(`pip download pyvi==0.1.1 --no-deps`), and the list it makes is committed with pyvi's licence.
"""

from __future__ import annotations

import re
import sys
import unicodedata
import zipfile
from pathlib import Path

from duocthu.core.syllables import TONE_MARKS, toneless

WORDS = "pyvi/models/words.txt"
LICENCE = "pyvi-0.1.1.dist-info/LICENSE.txt"


def syllables_of(words: str) -> set[str]:
    """Each syllable of each word (words are written with spaces or underscores), toneless; a
    piece with two tone marks or anything but letters is no syllable."""
    out: set[str] = set()
    for line in words.splitlines():
        for piece in re.split(r"[\s_]+", unicodedata.normalize("NFC", line.strip())):
            marks = sum(ch in TONE_MARKS for ch in unicodedata.normalize("NFD", piece))
            if piece and piece.isalpha() and marks <= 1:
                out.add(toneless(piece))
    return out


def main(argv: list[str]) -> int:
    wheel = zipfile.ZipFile(argv[0])
    found = syllables_of(wheel.read(WORDS).decode("utf-8"))
    licence = wheel.read(LICENCE).decode("utf-8").strip().splitlines()
    head = [
        "# Vietnamese syllables without tone marks (lower case, NFC, vowel marks and đ kept), one a line:",
        "# every syllable of the 31,158 words of pyvi 0.1.1's dictionary (pyvi/models/words.txt, PyPI",
        "# `pyvi`), made by `python -m duocthu.ingest.pdf.syllables PYVI_WHEEL`. Its licence:",
        "#",
        *(f"# {line}" if line else "#" for line in licence),
    ]
    target = Path(__file__).parents[2] / "data" / "vi_syllables.txt"
    target.write_text("\n".join([*head, *sorted(found)]) + "\n", encoding="utf-8")
    print(f"wrote {len(found)} syllables to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

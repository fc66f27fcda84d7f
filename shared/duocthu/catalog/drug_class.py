"""What kind of drug a monograph is, in its own "Loại thuốc" words: the head of that section's first
clause ("Thuốc chống viêm không steroid", "Kháng sinh", "Thuốc chẹn kênh calci"), read once when
the catalogue is made (at ingest) and loaded with it. A which-drug list of many drugs is grouped
by it; it is the section's wording, never a classification of our own.
"""

from __future__ import annotations

import re

from duocthu.core.sections import CLASS_SECTION
from duocthu.models.source import Monograph

# The first clause ends at these marks; within it, the class's head ends where a subgroup, a
# derivation or a route begins ("Kháng sinh nhóm beta-lactam", "dẫn chất của acid propionic").
_CLAUSE_END = re.compile(r"[;,.(:]")
_HEAD_END = re.compile(r"\s(?:nhóm|thuộc nhóm|dẫn chất|phân nhóm|thế hệ|dùng đường|có)\s", re.IGNORECASE)
MAX_WORDS = 9  # a longer head is a description, not a class: cut to its first words


def drug_class(record: Monograph) -> str | None:
    """The head of the first clause of the monograph's "Loại thuốc" section; None without one."""
    section = record.section(CLASS_SECTION)
    if section is None:
        return None
    clause = _CLAUSE_END.split(section.blocks[0].text, maxsplit=1)[0]
    head = _HEAD_END.split(f"{clause} ", maxsplit=1)[0].split()
    return " ".join(head[:MAX_WORDS]) or None

"""A chunk: one part of a monograph section, with the payload every route filters on (the Qdrant
point payload of `docs/architecture.md`). Ingest makes them; the stores write and read them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from duocthu.models.evidence import SourceRef

# The two kinds of chunk: running text, and a table or figure kept whole.
PROSE = "prose"
BLOCK = "block"
_POINT_NAMESPACE = uuid.UUID("8a3c8f0e-4a52-4b8a-9a55-1c0f1d2b7e61")


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    drug_id: str
    display_name: str
    section_key: str
    section_heading: str
    part_index: int
    chunk_kind: str  # PROSE | BLOCK
    text: str
    source_ref: SourceRef
    requires_visual_check: bool
    has_quarantined_content: bool
    atc_codes: tuple[str, ...]

    def payload(self) -> dict[str, object]:
        return {
            "drug_id": self.drug_id,
            "display_name": self.display_name,
            "section_key": self.section_key,
            "part_index": self.part_index,
            "chunk_kind": self.chunk_kind,
            "text": self.text,
            "source_refs": [self.source_ref.model_dump()],
            "requires_visual_check": self.requires_visual_check,
            "has_quarantined_content": self.has_quarantined_content,
            "atc_codes": list(self.atc_codes),
        }


def point_id(drug_id: str, section_key: str, part_index: int) -> str:
    """Deterministic: re-ingesting the same corpus yields the same ids."""
    return str(uuid.uuid5(_POINT_NAMESPACE, f"{drug_id}/{section_key}/{part_index}"))

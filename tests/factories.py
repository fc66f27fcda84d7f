"""Hand-made index parts for tests that build their own small corpus."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.sections import SECTION_HEADINGS
from duocthu.models.chunk import Chunk, point_id
from duocthu.models.evidence import EvidenceItem, SourceRef
from duocthu.store import Manifest, VectorStore


def make_chunk(
    drug_id: str,
    section_key: str,
    part: int,
    text: str,
    *,
    kind: str = "prose",
    quarantined: bool = False,
    display_name: str | None = None,
    page: int = 1,
) -> Chunk:
    """A part as ingest would make it; a non-prose block requires a visual check."""
    heading = SECTION_HEADINGS[section_key]
    ref = SourceRef(book="Dược thư", edition="test", section_heading=heading, page_start=page, page_end=page)
    return Chunk(
        id=point_id(drug_id, section_key, part),
        drug_id=drug_id,
        display_name=display_name or drug_id.upper(),
        section_key=section_key,
        section_heading=heading,
        part_index=part,
        chunk_kind=kind,
        text=text,
        source_ref=ref,
        requires_visual_check=kind != "prose",
        has_quarantined_content=quarantined,
        atc_codes=(),
    )


def section_chunks(
    parts: Mapping[str, Mapping[str, Sequence[str]]], titles: Mapping[str, str] | None = None
) -> list[Chunk]:
    """{drug: {section key: [part texts]}} as chunks, each drug under its title (its id titled)."""
    return [
        make_chunk(drug, key, i, text, display_name=(titles or {}).get(drug, drug.title()))
        for drug, sections in parts.items()
        for key, texts in sections.items()
        for i, text in enumerate(texts)
    ]


def publish(
    store: VectorStore,
    chunks: Sequence[Chunk],
    dense: Sequence[Sequence[float] | None] | None = None,
    model: str | None = None,
    threshold: float | None = None,
) -> None:
    """Builds version v1 from the parts and makes it the active index."""
    store.build_version("v1", chunks, dense=dense)
    dim = next((len(v) for v in dense or () if v is not None), None)
    store.activate(
        Manifest(
            version="v1",
            corpus_hash="test",
            created_at=Manifest.now(),
            points=len(chunks),
            drugs=len({c.drug_id for c in chunks}),
            embedding_model=model,
            dense_dim=dim,
            dense_threshold=threshold,
        )
    )


def resolved_ids(resolver: CatalogDrugResolver, text: str) -> tuple[str, ...]:
    """The drug_ids a text names exactly, in text order."""
    return tuple(m.drug_id for m in resolver.resolve(text))


def make_evidence(text: str, section_key: str = "chong_chi_dinh", drug_id: str = "ibuprofen") -> EvidenceItem:
    """One evidence part of a drug's section, page 4, as retrieval returns it."""
    heading = SECTION_HEADINGS[section_key]
    ref = SourceRef(book="Dược thư", edition="3", section_heading=heading, page_start=4, page_end=4)
    return EvidenceItem(
        id=f"{drug_id}-{section_key}-0",
        drug_id=drug_id,
        display_name=drug_id.title(),
        section_key=section_key,
        part_index=0,
        chunk_kind="prose",
        score=1.0,
        text=text,
        source_refs=(ref,),
    )

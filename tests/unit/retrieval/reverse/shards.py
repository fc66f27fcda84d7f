"""What the reverse lookup's tests share: hand-made formulary parts and the small Edge shards
built from them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from duocthu.models.chunk import Chunk, point_id
from duocthu.models.evidence import EvidenceItem, SourceRef
from duocthu.store.edge import EdgeStore

from tests.factories import make_chunk, publish


def chunk(drug_id: str, part: int, text: str, section_key: str = "chi_dinh", kind: str = "prose") -> Chunk:
    return make_chunk(drug_id, section_key, part, text, kind=kind)


@contextmanager
def shard(tmp_path: Path, parts: Sequence[Chunk]) -> Iterator[EdgeStore]:
    """An Edge store of just these parts, closed after the block."""
    edge = EdgeStore(tmp_path)
    publish(edge, list(parts))
    try:
        yield edge
    finally:
        edge.close()


PARTS = [
    chunk("thuoc_a", 0, "Viêm loét dạ dày tá tràng; trào ngược dạ dày – thực quản."),
    chunk("thuoc_a", 1, "Dự phòng tái phát sau đợt điều trị lành vết loét dạ dày."),
    chunk("thuoc_b", 0, "Tăng huyết áp ở người lớn. Suy tim mạn có phân suất tống máu giảm."),
    chunk("thuoc_c", 0, "Ho gà ở trẻ em; nhiễm khuẩn đường hô hấp dưới."),
    chunk("thuoc_d", 0, "Hỗ trợ điều trị nhiễm khuẩn hô hấp; không dùng cho người bỏ sót liều."),
    chunk("thuoc_e", 0, "Điều trị hạ sốt và giảm đau đầu cho người lớn khi cần."),
    # the same words as "loét dạ dày" nearby, never contiguous; and a table, never prose
    chunk("thuoc_f", 0, "Dạ dày có thể bị loét khi dùng kéo dài; theo dõi dày đặc."),
    chunk("thuoc_g", 0, "Bảng: viêm loét dạ dày", kind="block"),
    # the phrase outside chỉ định is not an indication
    chunk("thuoc_h", 0, "Viêm loét dạ dày tiến triển.", section_key="chong_chi_dinh"),
]


def drugs(hits: Sequence[EvidenceItem]) -> list[str]:
    return [h.drug_id for h in hits]


def item(drug_id: str, part: int, score: float) -> EvidenceItem:
    ref = SourceRef(book="b", edition="e", section_heading="Chỉ định", page_start=1, page_end=1)
    return EvidenceItem(
        id=point_id(drug_id, "chi_dinh", part),
        drug_id=drug_id,
        display_name=drug_id,
        section_key="chi_dinh",
        part_index=part,
        chunk_kind="prose",
        score=score,
        text=f"{drug_id} {part}",
        source_refs=(ref,),
    )

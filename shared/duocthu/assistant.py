"""One question -> drug + section -> evidence -> a cited, extractive reply.

This is the embedded path behind `duocthu ask`: exact alias lookup for the drug, the
longest-phrase resolver for the section, the section route for evidence, and the text quoted
with its citation. Later work (understanding, retrieval routes, generation) replaces the inside
of `Assistant.ask`, not its callers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from duocthu.catalog import Catalog, CatalogDrugResolver
from duocthu.evidence import EvidenceBundle
from duocthu.generation import extractive_answer
from duocthu.retrieval import RetrievalService
from duocthu.sections import SECTION_HEADINGS, resolve_section
from duocthu.store import VectorStore


@dataclass(frozen=True)
class Reply:
    question: str
    drug_ids: tuple[str, ...]
    section_key: str | None
    bundle: EvidenceBundle
    notes: tuple[str, ...] = field(default=())


class Assistant:
    def __init__(self, store: VectorStore, catalog: Catalog, resolver: CatalogDrugResolver | None = None):
        self.store = store
        self.catalog = catalog
        self.resolver = resolver or CatalogDrugResolver(catalog)
        self.retrieval = RetrievalService(store)

    def ask(self, question: str) -> Reply:
        drug_ids = self.resolver.resolve_ids(question)
        section_key = resolve_section(question)
        if not drug_ids:
            bundle = EvidenceBundle(decision="ABSTAIN", reason="unknown_drug")
            return Reply(question, (), section_key, bundle)
        drug_id = drug_ids[0]
        notes: tuple[str, ...] = ()
        if len(drug_ids) > 1:
            names = ", ".join(self.resolver.by_id[d].title for d in drug_ids[1:])
            notes = (
                f"Câu hỏi nêu nhiều thuốc; chỉ trả lời cho {self.resolver.by_id[drug_id].title} "
                f"(chưa trả lời: {names}).",
            )
        bundle = self.retrieval.retrieve_framed(drug_id, section_key)
        return Reply(question, drug_ids, section_key, bundle, notes)


def render(reply: Reply, catalog: Catalog) -> str:
    """Plain-text reply: the formulary's own text, grouped by section, each with its source."""
    bundle = reply.bundle
    by_id = {d.drug_id: d for d in catalog.drugs}
    lines: list[str] = []
    if bundle.decision == "ABSTAIN":
        if bundle.reason == "unknown_drug":
            lines.append(
                "Không nhận ra tên thuốc nào trong Dược thư ở câu hỏi này. "
                "Hãy ghi rõ tên hoạt chất hoặc biệt dược."
            )
        elif bundle.reason == "section_absent" and reply.section_key:
            title = by_id[reply.drug_ids[0]].title
            lines.append(
                f"Chuyên luận {title} trong Dược thư không có mục "
                f"“{SECTION_HEADINGS[reply.section_key]}”. Không có thông tin để trả lời; "
                "điều này không có nghĩa là an toàn."
            )
        else:
            lines.append(f"Không đủ bằng chứng từ Dược thư để trả lời ({bundle.reason}).")
        return "\n".join(lines)
    return extractive_answer(bundle, sample_data=catalog.sample_data, preface=reply.notes).text

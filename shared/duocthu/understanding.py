"""Turn -> QueryFrame. The offline provider: deterministic, from the resolver and section phrases.

(The Bedrock provider, candidate bounding, cues and the prior-frame merge of reference 08 build
on this module.)
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.catalog import CatalogDrugResolver
from duocthu.frame import QueryFrame
from duocthu.sections import resolve_section


def understand_offline(
    message: str, resolver: CatalogDrugResolver, history: Sequence[str] = (), prior: QueryFrame | None = None
) -> QueryFrame:
    drugs = resolver.resolve_ids(message)
    attribute = resolve_section(message)
    if drugs and attribute:
        return QueryFrame(
            turn_type="drug_attribute", drugs=drugs, attribute=attribute, standalone_query=message
        )
    if drugs:
        return QueryFrame(turn_type="drug_overview", drugs=drugs, standalone_query=message)
    return QueryFrame(
        turn_type="out_of_scope",
        attribute=attribute,
        needs_clarify=True,
        clarify_reason="Không nhận ra tên thuốc trong câu hỏi. Bạn hỏi về thuốc nào?",
    )

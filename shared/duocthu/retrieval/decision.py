"""Evidence policy: the retrieval limits (`EvidencePolicy`) and the decision over a pool of
evidence (`decide`): whether an answer may be given from it, and how."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.core.policy import EvidencePolicy
from duocthu.models.evidence import EvidenceBundle, EvidenceItem

__all__ = ["EvidencePolicy", "decide"]


def decide(evidence: Sequence[EvidenceItem], omitted_evidence_ids: Sequence[str] = ()) -> EvidenceBundle:
    """Public so that every caller that assembles its own pool applies the same policy: a
    quarantined or visual-check part anywhere in the pool makes the whole answer VERIFY_PDF;
    it is never dropped to make the rest answerable."""
    items = tuple(evidence)
    omitted = tuple(omitted_evidence_ids)
    if not items:
        return EvidenceBundle(
            decision="ABSTAIN", reason="parent_hydration_failed", omitted_evidence_ids=omitted
        )
    if any(not item.source_refs for item in items):
        return EvidenceBundle(decision="ABSTAIN", reason="missing_provenance", omitted_evidence_ids=omitted)
    if any(item.needs_visual_check for item in items):
        return EvidenceBundle(
            decision="VERIFY_PDF",
            reason="visual_verification_required",
            evidence=items,
            omitted_evidence_ids=omitted,
        )
    return EvidenceBundle(
        decision="ANSWERABLE",
        reason="grounded_evidence_available",
        evidence=items,
        omitted_evidence_ids=omitted,
    )

"""A frame -> EvidenceBundle: the retrieval service and its routes (reference 09)."""

"""A frame and its TurnReading -> EvidenceBundle: the retrieval service and its routes (reference 09).

- `service`: `RetrievalService.for_frame`, the one routing table chat and the retrieve function
  share; the section route, cross-section pooling and the overview.
- `decision`: `decide()`: ABSTAIN, VERIFY_PDF or ANSWERABLE over a pool of parts.
- `freeform`, `packing`: a question naming no section, ordered by a reranker or lexically and
  packed to the token budget.
- `interactions`: two or more drugs' interaction sections, names matched as whole words.
- `facets`, `safety`: the patient's stage-2 safety facets and the candidate statuses over them,
  every listed drug checked, sentence by sentence; `limits`: the age and weight limits a
  sentence states, against the patient's.
- `reverse/`: a condition or finding -> the drugs whose sections name it.
"""

"""Reverse lookup: a condition or finding -> the drugs whose sections name it (reference 09 §5).

The parts, each importing only those above it:

- `reading`: how one formulary text names a phrase (whole words only, negations, leads such as
  "có nguy cơ", another condition's name) and what a mention counts as in its section. Pure:
  no store, only the data tables, so its rules are tested on strings.
- `wordings`: the formulary's other wordings of a finding, the wider findings holding one, and
  the wordings sections use for a population (the data tables, read once).
- `keyword`: the keyword pass over the store: the prose parts of one section that name a phrase
  in any of its wordings (found on their folded words read at ingest, `store.prose_parts`), each
  read by `reading`, scored.
- `dense`: the dense fallback at query time: the threshold calibrated at ingest
  (`duocthu.ingest.calibration`, which also embeds the parts) and the chỉ định parts above it.
- `ranking`: hits grouped by drug (a drug scores its best part), optionally reranked, capped,
  made an EvidenceBundle.
- `indication`: the condition_to_drug / symptom_to_drug route: keyword, then dense.
- `relation`: the condition_relation routes (which drugs cause or exclude a condition, read in
  ADR, chống chỉ định, thận trọng and a population's own section), and how one named drug's
  section names a finding.

The retrieval service (`duocthu.retrieval.service`) routes a frame to `indication` or `relation`.
"""

"""The drug catalogue: what names a text may resolve to.

- `artifact`: `catalog.json` (drugs, corpus hash, the prebuilt alias index), written by ingest.
- `names`: which alias may match how (folded, as written, never), syllable shape, fuzzy scores.
- `resolver`: `CatalogDrugResolver` (`resolve` exact names, `suggest` misspellings, `catalog_names`).
"""

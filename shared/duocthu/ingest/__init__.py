"""Build time: a formulary source -> validated records -> chunks -> a new index version -> the
catalogue beside it -> the pointer switched. Never shipped in the Lambda layer.

- `source`: reading a source folder or JSON lines, every problem reported; the corpus hash.
- `chunking`: sections -> ordered parts within a character budget.
- `pipeline`: `ingest_path` / `ingest_records`, the dense vectors when configured.
"""

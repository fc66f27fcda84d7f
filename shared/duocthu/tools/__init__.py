"""Developer tools, run from the repository root and never shipped in the Lambda layer.

- `cli`: the `duocthu` command; `batch`: JSON lines in and out; `localserver`: `duocthu serve`.
- `openapi`: the OpenAPI document from the functions' routes.
- `bench/`: `duocthu bench NAME`; `evals/`: `duocthu eval NAME` over `tests/gold/`.
- `scale_source`: the ATC table as a scale source for tests and benchmarks.
"""

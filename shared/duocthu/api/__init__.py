"""The three functions' contracts and what a process builds once.

- `models`: request and response bodies (the OpenAPI document is generated from them).
- `http`: the Powertools resolver every function uses, with one error contract.
- `runtime`: settings, store, manifest, catalogue and resolver, built once per container.
- `services/`: one module per function (`understand`, `retrieve`, `chat` with health).
"""

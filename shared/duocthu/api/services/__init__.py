"""What each function does, as plain functions over the runtime (handlers only parse and shape).

One module per function, so that a function's cold start imports only what it runs: the
understand function needs no retrieval routes, the retrieve function no understanding cues.
"""

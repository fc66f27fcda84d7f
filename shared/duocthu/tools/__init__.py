"""Developer tools (cli, batch, local server, benchmarks, evaluations, scale source): never shipped in
the Lambda layer.
"""

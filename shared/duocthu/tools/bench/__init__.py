"""Benchmarks: `duocthu bench NAME [options]` runs `duocthu.tools.bench.NAME.main(argv)`.

Each prints a table with the comparison baseline measured in the same run. Speed and memory
targets live here, never in timed tests.
"""

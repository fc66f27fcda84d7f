"""Checks `sam build`'s output against what Lambda accepts and what a fast cold start needs.

    python infra/check_build.py [.aws-sam/build]

Fails (exit 1) when the functions plus the layer exceed Lambda's 250 MB unzipped limit, or when a
layer module has no bytecode for the runtime's Python (every cold start would compile it again,
/opt being read-only). Prints the sizes either way.
"""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT_BYTES = 250 * 1024 * 1024  # functions + layers, unzipped
RUNTIME_TAG = "cpython-312"  # template.yaml's Runtime: python3.12


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def missing_bytecode(layer: Path) -> list[Path]:
    return [
        source
        for source in (layer / "python").rglob("*.py")
        if not (source.parent / "__pycache__" / f"{source.stem}.{RUNTIME_TAG}.pyc").is_file()
    ]


def main(argv: list[str]) -> int:
    build = Path(argv[0] if argv else ".aws-sam/build")
    layer = build / "SharedLayer"
    functions = sorted(p for p in build.iterdir() if p.is_dir() and p.name.endswith("Function"))
    layer_bytes = size(layer)
    problems = []
    for function in functions:
        total = layer_bytes + size(function)
        print(f"{function.name}: {total / 2**20:.0f} MB unzipped with the layer (limit 250 MB)")
        if total > LIMIT_BYTES:
            problems.append(f"{function.name} is over Lambda's 250 MB unzipped limit")
    missing = missing_bytecode(layer)
    print(f"layer: {layer_bytes / 2**20:.0f} MB; modules without {RUNTIME_TAG} bytecode: {len(missing)}")
    problems += [f"no {RUNTIME_TAG} bytecode: {p.relative_to(layer)}" for p in missing[:10]]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

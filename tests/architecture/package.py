"""The layer package as the architecture tests read it: its modules by dotted name, and what
each imports, found by walking the source (no module is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "shared" / "duocthu"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every duocthu module the file imports (an imported name resolves to its module if it is one)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("duocthu"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("duocthu"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {name for name in found if name in MODULES}


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}

"""The Lambda layer ships what the handlers import and nothing else.

`shared/Makefile`'s `package-SharedLayer` (what `sam build` runs for the layer's package) is run
into a temporary folder; the duocthu modules it holds must be exactly those the three handlers
reach through their imports (at module level or inside functions), and each must import from there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from duocthu.page import ASSETS

from tests.architecture.package import MODULES, PACKAGE, imports_of

REPO = PACKAGE.parents[1]


def _handler_closure() -> set[str]:
    """Every duocthu module the handlers import, directly or through other modules, with the
    packages whose `__init__` an import runs."""
    seen: set[str] = set()
    todo = [m for app in REPO.glob("functions/*/app.py") for m in imports_of(app)]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # its packages' __init__ run first
        todo.extend(imports_of(MODULES[module]))
    return seen


def _built(tmp_path: Path) -> set[str]:
    subprocess.run(
        ["make", "-s", "-C", str(REPO / "shared"), "package-SharedLayer", f"ARTIFACTS_DIR={tmp_path}"],
        check=True,
    )
    python = tmp_path / "python"
    return {
        ".".join(p.relative_to(python).with_suffix("").parts).removesuffix(".__init__")
        for p in (python / "duocthu").rglob("*.py")
    }


def test_the_layer_holds_exactly_what_the_handlers_import(tmp_path: Path) -> None:
    shipped, needed = _built(tmp_path), _handler_closure()
    assert not any(m.startswith("duocthu.tools") for m in shipped), "the developer tools are in the layer"
    assert sorted(needed - shipped) == [], "handlers import modules the layer lacks"
    assert sorted(shipped - needed) == [], "the layer ships modules no handler imports"
    assert (tmp_path / "python" / "duocthu" / "data" / "section_keys.tsv").is_file(), (
        "the data tables are shipped"
    )
    page = tmp_path / "python" / "duocthu" / "page"
    files = {name for name, _ in ASSETS.values()}
    assert {p.name for p in page.iterdir() if p.suffix != ".py"} == files, "the chat page's files are shipped"


def test_every_shipped_module_imports_from_the_layer_alone(tmp_path: Path) -> None:
    shipped = sorted(_built(tmp_path))
    probe = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(tmp_path / 'python')!r})\n"
        f"for name in {shipped!r}:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(tmp_path)!r}), module.__file__\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=tmp_path)

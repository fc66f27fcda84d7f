"""No module of the layer package over 500 lines, no function over 80: a module does one job and
a function reads top to bottom. The data tables are data, not code, and are not counted."""

from __future__ import annotations

import ast

from tests.architecture.package import MODULES

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def test_no_module_is_over_500_lines() -> None:
    long = {
        m: n
        for m, p in MODULES.items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_over_80_lines() -> None:
    long = {
        f"{module}.{node.name}": size
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (size := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    }
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines: {long}"

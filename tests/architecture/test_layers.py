"""The layer package's imports only point down, and no module imports itself through others.

The layers are the folders of `duocthu` (docs/architecture.md). Each may import its own folder
and the layers listed for it below, nothing else: an import from a higher layer or a peer, or a
cycle between modules, fails here. Imports inside functions and under TYPE_CHECKING count too.
"""

from __future__ import annotations

import pytest

from tests.architecture.package import MODULES, PACKAGE, imports_of

# Each layer and what it may import besides itself, lowest first. Understanding and retrieval are
# peers: the meaning of a turn is decided once, in understanding, and carried with the frame.
_FOUNDATION = ("core", "models", "settings")
_BELOW: dict[str, tuple[str, ...]] = {
    "core": (),
    "models": ("core",),
    "settings": ("core", "models"),
    "catalog": _FOUNDATION,
    "page": ("settings",),  # the chat page's static files, their routes and its sign-in settings
    "providers": _FOUNDATION,
    "store": (*_FOUNDATION, "catalog"),
    "understanding": (*_FOUNDATION, "catalog", "providers"),
    "retrieval": (*_FOUNDATION, "catalog", "providers", "store"),
    "ingest": (*_FOUNDATION, "catalog", "providers", "store"),
    # the composers read the plan and its gathered evidence: no store (test_the_answer_layer_reads_no_store)
    "answer": (*_FOUNDATION, "catalog", "providers", "understanding", "retrieval"),
}
_BELOW["api"] = (*_BELOW["answer"], "store", "answer")
ALLOWED: dict[str, frozenset[str]] = {layer: frozenset((layer, *below)) for layer, below in _BELOW.items()}
ALLOWED["tools"] = frozenset((*ALLOWED, "tools"))  # the developer tools use every layer
ROOT = "duocthu"  # the package itself holds only its version: any layer may read it
LAYERS = tuple(ALLOWED)


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _graph() -> dict[str, set[str]]:
    return {name: {m for m in imports_of(path) if m != name} for name, path in MODULES.items()}


def test_every_module_belongs_to_a_layer() -> None:
    unknown = sorted(m for m in MODULES if _layer(m) not in ALLOWED and m != ROOT)
    assert unknown == [], f"modules outside every layer (add the folder to LAYERS): {unknown}"


def test_imports_only_point_down() -> None:
    upward = [
        f"{importer} -> {imported}"
        for importer, imports in _graph().items()
        for imported in sorted(imports)
        if _layer(importer) in ALLOWED
        and imported != ROOT
        and _layer(imported) not in ALLOWED[_layer(importer)]
    ]
    assert upward == [], "imports that point up or sideways:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            # A package imports its own submodules to re-export them; that edge is no cycle.
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_exists(layer: str) -> None:
    assert (PACKAGE / layer).is_dir() or (PACKAGE / f"{layer}.py").is_file()


def test_the_answer_layer_reads_no_store_no_resolver_and_no_retrieval_service() -> None:
    """A reply is composed from the plan and the evidence gathered for it, never by going back."""
    forbidden = ("duocthu.store", "duocthu.catalog.resolver", "duocthu.retrieval.service")
    found = [
        f"{importer} -> {imported}"
        for importer, imports in _graph().items()
        if _layer(importer) == "answer"
        for imported in sorted(imports)
        if imported.startswith(forbidden)
    ]
    assert found == [], "the answer layer reaches back for evidence:\n" + "\n".join(found)


def test_only_understanding_reads_the_turn_type() -> None:
    """What a turn means is decided once, in its plan: retrieval, the answer and the API read the
    plan's reply kind and asks, never the frame's turn type again."""
    readers = sorted(
        name
        for name, path in MODULES.items()
        if _layer(name) in ("retrieval", "answer", "api") and ".turn_type" in path.read_text(encoding="utf-8")
    )
    assert readers == [], f"modules that re-read the turn type: {readers}"

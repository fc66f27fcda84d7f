"""infra/check_build.py on fake `sam build` outputs: what it reports and where it fails. File sizes
are apparent (sparse files), so a 200 MB layer costs nothing on disk."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

MB = 2**20


sys.path.insert(0, str(ROOT / "infra"))  # the infra tools are scripts, not a package
import check_build  # noqa: E402

TEMPLATE: dict[str, Any] = check_build.read_template(ROOT / "template.yaml")


def _layer(build: Path, name: str, mb: float, dists: dict[str, str] | None = None) -> Path:
    python = build / name / "python"
    (python / "pkg" / "__pycache__").mkdir(parents=True)
    (python / "pkg" / "mod.py").write_text("x = 1\n")
    (python / "pkg" / "__pycache__" / "mod.cpython-312.pyc").write_bytes(b"pyc")
    with (python / "pkg" / "blob.so").open("wb") as handle:
        handle.truncate(int(mb * MB))
    for dist, version in (dists or {}).items():
        (python / f"{dist}-{version}.dist-info").mkdir()
    return build / name


def _index(build: Path, apparent_mb: float, data_mb: float = 0.001) -> None:
    folder = build / "DataLayer" / "duocthu"
    folder.mkdir(parents=True)
    with (folder / "index.tar.zst").open("wb") as handle:
        handle.truncate(int(data_mb * MB))
    info = {"version": "v1", "drugs": 40, "packed_bytes": 2 * MB, "disk_bytes": 6 * MB}
    (folder / "index.json").write_text(json.dumps({**info, "apparent_bytes": int(apparent_mb * MB)}))


def _build(tmp_path: Path, core_mb: float = 80, index_mb: float = 211, **extra: float) -> Path:
    build = tmp_path / "build"
    for function in ("ChatFunction", "RetrieveFunction", "UnderstandFunction"):
        (build / function).mkdir(parents=True)
        (build / function / "app.py").write_text("handler = None\n")
    _layer(build, "SharedLayer", core_mb, {"pydantic": "2.14.3"})
    _layer(build, "QdrantLayer", extra.get("qdrant_mb", 81), {"numpy": "2.4.6"})
    _layer(build, "CohereLayer", extra.get("cohere_mb", 63), {"fastavro": "1.13.1"})
    _index(build, index_mb, extra.get("data_mb", 0.001))
    return build


def test_the_template_gives_the_optional_layers_only_where_they_are_used() -> None:
    assert check_build.function_layers(TEMPLATE) == {
        "ChatFunction": ["CohereLayer", "DataLayer", "QdrantLayer", "SharedLayer"],
        "RetrieveFunction": ["CohereLayer", "DataLayer", "QdrantLayer", "SharedLayer"],
        "UnderstandFunction": ["DataLayer", "QdrantLayer", "SharedLayer"],  # it never reranks
    }
    assert check_build.ephemeral_mb(TEMPLATE, "ChatFunction") == 512


def test_the_data_layer_and_the_qdrant_layer_are_never_attached_together() -> None:
    """The sets come from the template's conditions: the index ships in the data layer only
    without a Qdrant URL (ShipsIndex), the Qdrant client only with one."""
    for function, sets in check_build.function_layer_sets(TEMPLATE).items():
        assert not any({"DataLayer", "QdrantLayer"} <= set(found) for found in sets), function
    assert ["CohereLayer", "DataLayer", "SharedLayer"] in check_build.function_layer_sets(TEMPLATE)[
        "ChatFunction"
    ]


def test_a_build_within_every_limit_passes_and_says_each_size(tmp_path: Path) -> None:
    lines, problems = check_build.check(_build(tmp_path), TEMPLATE)
    assert problems == []
    assert "layer SharedLayer: 80.0 MB unzipped (target 90 MB)" in lines
    chat = next(line for line in lines if line.startswith("ChatFunction: 224"))
    assert "CohereLayer + QdrantLayer + SharedLayer" in chat and "limit 250 MB" in chat
    assert any("unpacks to 211 MB apparent" in line and "/tmp 512 MB" in line for line in lines)


def test_the_books_size_data_layer_passes(tmp_path: Path) -> None:
    """800 full monographs pack to a 35.5 MB data layer: with the core and the Cohere layer it is
    179 MB; the old check added the Qdrant layer too (no real deploy) and failed at 260 MB."""
    build = _build(tmp_path, data_mb=36, index_mb=300)
    lines, problems = check_build.check(build, {**TEMPLATE})
    assert problems == [], problems
    assert "layer DataLayer: 36.0 MB unzipped (target 50 MB)" in lines
    assert any(
        line.startswith("ChatFunction: 179") and "CohereLayer + DataLayer + SharedLayer" in line
        for line in lines
    )


@pytest.mark.parametrize(
    ("build_args", "expected"),
    [
        ({"core_mb": 95}, "SharedLayer is 95.0 MB, over its 90 MB target"),
        (
            {"core_mb": 89, "qdrant_mb": 99, "cohere_mb": 79},
            "ChatFunction with CohereLayer + QdrantLayer + SharedLayer is 267",
        ),
        ({"index_mb": 500}, "ChatFunction: /tmp is 512 MB, the index needs 564 MB"),
    ],
)
def test_over_a_limit_fails_with_what_is_over(
    tmp_path: Path, build_args: dict[str, float], expected: str
) -> None:
    _, problems = check_build.check(_build(tmp_path, **build_args), TEMPLATE)
    assert any(p.startswith(expected) for p in problems), problems
    assert check_build.main([str(tmp_path / "build")]) == 1


def test_a_module_without_runtime_bytecode_fails(tmp_path: Path) -> None:
    build = _build(tmp_path)
    (build / "CohereLayer" / "python" / "pkg" / "late.py").write_text("y = 2\n")
    _, problems = check_build.check(build, TEMPLATE)
    assert problems == ["no cpython-312 bytecode: CohereLayer/python/pkg/late.py"]


def test_two_layers_with_one_distribution_at_two_versions_fail(tmp_path: Path) -> None:
    build = _build(tmp_path)
    (build / "QdrantLayer" / "python" / "pydantic-2.13.0.dist-info").mkdir()
    _, problems = check_build.check(build, TEMPLATE)
    assert "UnderstandFunction: pydantic 2.13.0 (QdrantLayer) vs 2.14.3 (SharedLayer)" in problems or (
        "UnderstandFunction: pydantic 2.14.3 (SharedLayer) vs 2.13.0 (QdrantLayer)" in problems
    )


def test_a_layer_that_was_not_built_fails(tmp_path: Path) -> None:
    build = _build(tmp_path)
    (build / "CohereLayer" / "python" / "pkg" / "blob.so").unlink()
    for path in sorted((build / "CohereLayer").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (build / "CohereLayer").rmdir()
    _, problems = check_build.check(build, TEMPLATE)
    assert problems == [f"CohereLayer was not built (no {build / 'CohereLayer'})"]

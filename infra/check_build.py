"""Checks `sam build`'s output against what Lambda accepts and what a fast cold start needs.

    python infra/check_build.py [.aws-sam/build] [--template template.yaml]

Prints each layer's unzipped size and, per function, its code plus every layer the template can
give it (each conditional layer counted, so no parameter choice passes the limit). Fails (exit 1)
when a function so counted passes Lambda's 250 MB unzipped limit; when a layer passes its own
target (LAYER_TARGETS_MB); when a layer module has no bytecode for the runtime's Python (every
cold start would compile it again, /opt being read-only); when two layers one function can get
ship the same distribution at different versions (Lambda merges them under /opt/python); or when
the data layer's index, unpacked, would not fit the function's /tmp (EphemeralStorage).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
MB = 2**20
LIMIT_MB = 250  # a function's code and layers, unzipped
RUNTIME_TAG = "cpython-312"  # template.yaml's Runtime: python3.12
# Tighter than the limit: the core is what every cold start loads (issue 23: at most 90 MB).
LAYER_TARGETS_MB = {"SharedLayer": 90, "DataLayer": 50, "QdrantLayer": 100, "CohereLayer": 80}
INDEX_INFO = Path("duocthu") / "index.json"  # the data layer's PackInfo (duocthu.store.packed)
TMP_HEADROOM_MB = 64  # /tmp beyond the unpacked index: the S3 download beside it, logs, scratch


class _CfnLoader(yaml.SafeLoader):
    """CloudFormation short-form tags read as their long form ({"Ref": ...}, {"Fn::If": ...})."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _tag)


def read_template(path: Path) -> dict[str, Any]:
    return dict(yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader))


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("Ref"), str):
            yield value["Ref"]
        for inner in value.values():
            yield from _refs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _refs(inner)


def function_layers(template: dict[str, Any]) -> dict[str, list[str]]:
    """Each function and every layer resource it can be given (Globals' and its own)."""
    resources = template["Resources"]
    layers = {n for n, r in resources.items() if r["Type"] == "AWS::Serverless::LayerVersion"}
    common = template.get("Globals", {}).get("Function", {}).get("Layers", [])
    return {
        name: sorted({r for r in _refs([common, res["Properties"].get("Layers", [])]) if r in layers})
        for name, res in resources.items()
        if res["Type"] == "AWS::Serverless::Function"
    }


def ephemeral_mb(template: dict[str, Any], function: str) -> int:
    props = template["Resources"][function]["Properties"]
    size = props.get("EphemeralStorage", template.get("Globals", {}).get("Function", {}).get(
        "EphemeralStorage", {"Size": 512}))["Size"]  # fmt: skip
    if isinstance(size, dict):  # a parameter: its default is what a plain deploy gets
        size = template["Parameters"][size["Ref"]]["Default"]
    return int(size)


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def missing_bytecode(layer: Path) -> list[Path]:
    return [
        source
        for source in (layer / "python").rglob("*.py")
        if not (source.parent / "__pycache__" / f"{source.stem}.{RUNTIME_TAG}.pyc").is_file()
    ]


def distributions(layer: Path) -> dict[str, str]:
    found = {}
    for info in (layer / "python").glob("*.dist-info"):
        name, _, version = info.name.removesuffix(".dist-info").partition("-")
        found[name.lower().replace("_", "-")] = version
    return found


def check(build: Path, template: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(report lines, problems)."""
    wanted = function_layers(template)
    lines, problems = [], []
    layer_bytes: dict[str, int] = {}
    for name in sorted({layer for layers in wanted.values() for layer in layers}):
        folder = build / name
        if not folder.is_dir():
            problems.append(f"{name} was not built (no {folder})")
            continue
        layer_bytes[name] = size(folder)
        target = LAYER_TARGETS_MB.get(name, LIMIT_MB)
        lines.append(f"layer {name}: {layer_bytes[name] / MB:.1f} MB unzipped (target {target} MB)")
        if layer_bytes[name] > target * MB:
            problems.append(f"{name} is {layer_bytes[name] / MB:.1f} MB, over its {target} MB target")
        missing = missing_bytecode(folder)
        problems += [f"no {RUNTIME_TAG} bytecode: {name}/{p.relative_to(folder)}" for p in missing[:10]]
    for function, layers in sorted(wanted.items()):
        built = [layer for layer in layers if layer in layer_bytes]
        total = size(build / function) + sum(layer_bytes[layer] for layer in built)
        lines.append(f"{function}: {total / MB:.1f} MB with {' + '.join(built)} (limit {LIMIT_MB} MB)")
        if total > LIMIT_MB * MB:
            problems.append(f"{function} can reach {total / MB:.1f} MB, over Lambda's {LIMIT_MB} MB")
        problems += _version_clashes(function, [build / layer for layer in built])
        problems += _tmp_fit(function, build, built, ephemeral_mb(template, function), lines)
    return lines, problems


def _version_clashes(function: str, layers: list[Path]) -> list[str]:
    seen: dict[str, tuple[str, str]] = {}
    clashes = []
    for layer in layers:
        for dist, version in distributions(layer).items():
            other = seen.setdefault(dist, (version, layer.name))
            if other[0] != version:
                clashes.append(f"{function}: {dist} {other[0]} ({other[1]}) vs {version} ({layer.name})")
    return clashes


def _tmp_fit(function: str, build: Path, layers: list[str], tmp_mb: int, lines: list[str]) -> list[str]:
    infos = [build / layer / INDEX_INFO for layer in layers if (build / layer / INDEX_INFO).is_file()]
    if not infos:
        return []
    info = json.loads(infos[0].read_text(encoding="utf-8"))
    need = (info["apparent_bytes"] + info["packed_bytes"]) / MB + TMP_HEADROOM_MB
    lines.append(
        f"{function}: index {info['version']} ({info['drugs']} drugs) unpacks to "
        f"{info['apparent_bytes'] / MB:.0f} MB apparent ({info['disk_bytes'] / MB:.1f} MB of data); "
        f"/tmp {tmp_mb} MB, needs {need:.0f} MB"
    )
    if need > tmp_mb:
        return [f"{function}: /tmp is {tmp_mb} MB, the index needs {need:.0f} MB (raise EphemeralStorageMiB)"]
    return []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default=".aws-sam/build", type=Path)
    parser.add_argument("--template", default=ROOT / "template.yaml", type=Path)
    args = parser.parse_args(argv)
    lines, problems = check(args.build, read_template(args.template))
    print("\n".join(lines))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

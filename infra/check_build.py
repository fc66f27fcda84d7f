"""Checks `sam build`'s output against what Lambda accepts and what a fast cold start needs.

    python infra/check_build.py [.aws-sam/build] [--template template.yaml]

Prints each layer's unzipped size and, per function, its code plus each set of layers the template
can actually give it: the layers' conditions are evaluated for every combination of the
parameters they read (the data layer and the Qdrant layer are never attached together, so their
sum is no real deploy). Fails (exit 1) when a function with one such set passes Lambda's 250 MB
unzipped limit; when a layer passes its own
target (LAYER_TARGETS_MB); when a layer module has no bytecode for the runtime's Python (every
cold start would compile it again, /opt being read-only); when two layers one function can get
ship the same distribution at different versions (Lambda merges them under /opt/python); or when
the data layer's index, unpacked, would not fit the function's /tmp (EphemeralStorage).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator, Mapping
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
TMP_HEADROOM_MB = 64  # /tmp beyond the unpacked index: sessions, logs, scratch


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


def _layer_entries(template: dict[str, Any], props: dict[str, Any]) -> list[Any]:
    common = template.get("Globals", {}).get("Function", {}).get("Layers", [])
    return [*common, *props.get("Layers", [])]


def function_layers(template: dict[str, Any]) -> dict[str, list[str]]:
    """Each function and every layer resource it can be given under some parameters."""
    return {
        name: sorted({layer for found in sets for layer in found})
        for name, sets in function_layer_sets(template).items()
    }


def _evaluate(expr: Any, params: Mapping[str, str], conditions: Mapping[str, Any]) -> Any:
    """A condition (or a value inside one) under concrete parameters."""
    if isinstance(expr, dict):
        if "Ref" in expr:
            return params.get(expr["Ref"], expr["Ref"])
        if "Condition" in expr:
            return bool(_evaluate(conditions[expr["Condition"]], params, conditions))
        ((fn, args),) = expr.items()
        values = [_evaluate(a, params, conditions) for a in args]
        if fn == "Fn::Equals":
            return str(values[0]) == str(values[1])
        if fn == "Fn::Not":
            return not values[0]
        if fn == "Fn::And":
            return all(values)
        if fn == "Fn::Or":
            return any(values)
        raise ValueError(f"unsupported in a condition: {fn}")
    return expr


def _parameters_of(expr: Any, conditions: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(parameter, a value it is compared with) for each parameter a condition reads."""
    if isinstance(expr, dict):
        if "Condition" in expr:
            yield from _parameters_of(conditions[expr["Condition"]], conditions)
        elif "Fn::If" in expr:
            name, *branches = expr["Fn::If"]
            yield from _parameters_of([conditions[name], branches], conditions)
        elif "Fn::Equals" in expr:
            left, right = expr["Fn::Equals"]
            for ref, other in ((left, right), (right, left)):
                if isinstance(ref, dict) and "Ref" in ref:
                    yield ref["Ref"], other
        else:
            for inner in expr.values():
                yield from _parameters_of(inner, conditions)
    elif isinstance(expr, list):
        for inner in expr:
            yield from _parameters_of(inner, conditions)


def function_layer_sets(template: dict[str, Any]) -> dict[str, list[list[str]]]:
    """Each function and the distinct layer sets it gets over every combination of the values
    that matter for its layers' conditions (each compared value, the default, and "set")."""
    resources = template["Resources"]
    layers = {n for n, r in resources.items() if r["Type"] == "AWS::Serverless::LayerVersion"}
    conditions = template.get("Conditions", {})
    parameters = template.get("Parameters", {})
    found: dict[str, list[list[str]]] = {}
    for name, res in resources.items():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        entries = _layer_entries(template, res["Properties"])
        choices: dict[str, set[str]] = {}
        for param, value in _parameters_of(entries, conditions):
            default = str(parameters.get(param, {}).get("Default", ""))
            choices.setdefault(param, {default, "set"}).add(str(value))
        names = sorted(choices)
        sets: list[list[str]] = []
        for values in itertools.product(*(sorted(choices[n]) for n in names)):
            given = dict(zip(names, values, strict=True))
            chosen = sorted({r for r in _refs(_resolved(entries, given, conditions)) if r in layers})
            if chosen not in sets:
                sets.append(chosen)
        found[name] = sorted(sets)
    return found


def _resolved(value: Any, params: Mapping[str, str], conditions: Mapping[str, Any]) -> Any:
    """A value with each Fn::If taken on its branch under the parameters."""
    if isinstance(value, dict):
        if "Fn::If" in value:
            name, then, otherwise = value["Fn::If"]
            chosen = then if _evaluate({"Condition": name}, params, conditions) else otherwise
            return _resolved(chosen, params, conditions)
        return {k: _resolved(v, params, conditions) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, params, conditions) for v in value]
    return value


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
    reachable = function_layer_sets(template)
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
    for function, sets in sorted(reachable.items()):
        code = build / function
        for layers in sets:
            built = [layer for layer in layers if layer in layer_bytes]
            total = size(code) + sum(layer_bytes[layer] for layer in built)
            named = " + ".join(built) or "no layer"
            lines.append(f"{function}: {total / MB:.1f} MB with {named} (limit {LIMIT_MB} MB)")
            if total > LIMIT_MB * MB:
                problems.append(
                    f"{function} with {' + '.join(built)} is {total / MB:.1f} MB, over Lambda's {LIMIT_MB} MB"
                )
            problems += _version_clashes(function, [build / layer for layer in built])
        problems += _tmp_fit(function, build, wanted[function], ephemeral_mb(template, function), lines)
    return lines, list(dict.fromkeys(problems))  # a clash shows in each set holding both layers


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
    need = info["apparent_bytes"] / MB + TMP_HEADROOM_MB  # the pack is read as a stream, never saved
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

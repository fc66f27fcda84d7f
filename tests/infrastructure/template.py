"""Read template.yaml (CloudFormation short-form tags kept as plain values)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml

from tests.conftest import ROOT


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {f"Fn::{suffix}" if suffix not in ("Ref", "Condition") else suffix: value}


_CfnLoader.add_multi_constructor("!", _tag)


@lru_cache(maxsize=1)
def read_sam_template() -> dict[str, Any]:
    return dict(yaml.load((ROOT / "template.yaml").read_text(encoding="utf-8"), Loader=_CfnLoader))

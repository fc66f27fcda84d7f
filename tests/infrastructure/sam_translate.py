"""Translate template.yaml to CloudFormation offline, with the SAM translator of the SAM CLI's own
virtualenv (.tools/sam; this file runs there, as a script, never inside .venv).

    .tools/sam/bin/python tests/infrastructure/sam_translate.py template.yaml > translated.json

Local CodeUri/ContentUri become placeholder S3 locations and the state machine's DefinitionUri
its definition, as `sam validate` and `sam package` do; nothing is contacted.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from samcli.yamlhelper import yaml_parse  # type: ignore[import-not-found]
from samtranslator.translator.managed_policy_translator import (  # type: ignore[import-not-found]
    ManagedPolicyLoader,
)
from samtranslator.translator.transform import transform  # type: ignore[import-not-found]


class _NoManagedPolicyNames(ManagedPolicyLoader):  # type: ignore[misc]
    """The template names managed policies by ARN only: no IAM lookup of names."""

    def __init__(self) -> None:
        pass

    def load(self) -> dict[str, str]:
        return {}


def _localise(template: dict[str, Any], root: Path) -> dict[str, Any]:
    for resource in template.get("Resources", {}).values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://placeholder/{properties[key].strip('/')}.zip"
        uri = properties.pop("DefinitionUri", None)
        if isinstance(uri, str):
            properties["Definition"] = json.loads((root / uri).read_text(encoding="utf-8"))
    return template


def main(path: str) -> None:
    os.environ.setdefault("AWS_DEFAULT_REGION", "ap-southeast-1")  # the pseudo parameters need one
    source = Path(path)
    template = _localise(yaml_parse(source.read_text(encoding="utf-8")), source.parent)
    translated = transform(template, {}, _NoManagedPolicyNames())
    json.dump(translated, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])

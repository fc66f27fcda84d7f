"""The translated template (tests/infrastructure/sam_translate.py, run in the SAM CLI's virtualenv)
as CloudFormation would deploy it for given parameter values: conditions evaluated, resources
whose condition is false dropped, and the intrinsic functions the template uses resolved to
strings (a resource's Ref becomes `<LogicalId>`, GetAtt `<LogicalId.Attribute>`)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

TOOL_PYTHON = ROOT / ".tools" / "sam" / "bin" / "python"
ACCOUNT, REGION = "123456789012", "ap-southeast-1"
PSEUDO = {
    "AWS::AccountId": ACCOUNT,
    "AWS::Region": REGION,
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::StackName": "duocthu",
}
_NO_VALUE = object()


@lru_cache(maxsize=2)
def translated_template(template: Path = ROOT / "template.yaml") -> dict[str, Any]:
    if not TOOL_PYTHON.exists():
        raise RuntimeError(f"{TOOL_PYTHON} is missing: `make validate` (or `make test`) installs the SAM CLI")
    script = ROOT / "tests" / "infrastructure" / "sam_translate.py"
    out = subprocess.run(
        [str(TOOL_PYTHON), str(script), str(template)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return dict(json.loads(out.stdout))


class Deployed:
    """The stack for one set of parameter values."""

    def __init__(self, **parameters: str):
        self.raw = translated_template()
        self.params = {
            name: str(spec.get("Default", "")) for name, spec in self.raw.get("Parameters", {}).items()
        }
        unknown = set(parameters) - set(self.params)
        assert not unknown, f"not parameters of the template: {unknown}"
        self.params.update(parameters)
        self._condition_defs = self.raw.get("Conditions", {})
        self.conditions: dict[str, bool] = {}
        for name in self._condition_defs:
            self._condition(name)
        self.resources = {
            name: self._value(res)
            for name, res in self.raw["Resources"].items()
            if self.conditions.get(res.get("Condition", ""), True)
        }

    def _condition(self, name: str) -> bool:
        """A condition's value; one condition may name another (`!Condition`), in any order."""
        if name not in self.conditions:
            self.conditions[name] = bool(self._value(self._condition_defs[name]))
        return self.conditions[name]

    # -- intrinsic functions -------------------------------------------------------------------
    def _ref(self, name: str) -> Any:
        if name in PSEUDO:
            return PSEUDO[name]
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in self.params:
            spec = self.raw["Parameters"][name]
            value = self.params[name]
            return value.split(",") if spec["Type"] == "CommaDelimitedList" else value
        return f"<{name}>"

    def _sub(self, text: str, names: dict[str, Any]) -> str:
        out, rest = "", text
        while "${" in rest:
            before, _, after = rest.partition("${")
            key, _, rest = after.partition("}")
            if key in names:
                value = names[key]
            elif "." in key:
                value = "<" + key + ">"
            else:
                value = self._ref(key)
            out += before + str(value)
        return out + rest

    def _function(self, name: str, arg: Any) -> Any:
        if name == "Ref":
            return self._ref(arg)
        if name == "Condition":
            return self._condition(arg)
        if name == "Fn::GetAtt":
            return "<" + (".".join(arg) if isinstance(arg, list) else arg) + ">"
        if name == "Fn::If":
            chosen = arg[1] if self.conditions[arg[0]] else arg[2]
            return self._value(chosen)
        value = self._value(arg)
        if name == "Fn::Equals":
            return value[0] == value[1]
        if name == "Fn::Not":
            return not value[0]
        if name == "Fn::And":
            return all(value)
        if name == "Fn::Or":
            return any(value)
        if name == "Fn::Sub":
            text, names = (value, {}) if isinstance(value, str) else value
            return self._sub(text, names)
        if name == "Fn::Join":
            return value[0].join(value[1])
        if name == "Fn::Split":
            return value[1].split(value[0])
        if name == "Fn::Select":
            return value[1][int(value[0])]
        raise NotImplementedError(name)

    def _value(self, node: Any) -> Any:
        if isinstance(node, dict):
            if len(node) == 1:
                ((key, arg),) = node.items()
                if key == "Ref" or key == "Condition" or key.startswith("Fn::"):
                    return self._function(key, arg)
            out = {k: self._value(v) for k, v in node.items()}
            return {k: v for k, v in out.items() if v is not _NO_VALUE}
        if isinstance(node, list):
            return [v for v in (self._value(item) for item in node) if v is not _NO_VALUE]
        return node

    # -- what a principal may do ---------------------------------------------------------------
    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {name: r for name, r in self.resources.items() if r["Type"] == kind}

    def role_statements(self, role: str) -> list[dict[str, Any]]:
        """Every statement of the role's inline policies and of the stack's managed policies it
        attaches (an AWS managed policy ARN is listed by name, it holds no statement here)."""
        properties = self.resources[role]["Properties"]
        statements = [s for p in properties.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
        for arn in properties.get("ManagedPolicyArns", []):
            if arn.startswith("<"):
                policy = self.resources[arn.strip("<>")]
                statements.extend(policy["Properties"]["PolicyDocument"]["Statement"])
        return statements

    def grants(self, role: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(action, resource, condition) for each allowed pair."""
        for statement in self.role_statements(role):
            assert statement["Effect"] == "Allow"
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            resources = statement["Resource"]
            resources = resources if isinstance(resources, list) else [resources]
            for action in actions:
                for resource in resources:
                    yield action, resource, statement.get("Condition", {})

    def aws_managed_policies(self, role: str) -> list[str]:
        arns = self.resources[role]["Properties"].get("ManagedPolicyArns", [])
        return [a for a in arns if not a.startswith("<")]

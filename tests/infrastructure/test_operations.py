"""Operable in production, on the translated template: every metric the code emits has an alarm
to an encrypted topic, the three functions deploy through a `live` alias with a canary and alarm
rollback (the chat function with a pre-traffic hook asking the known question), the API and the
state machine call the aliases, a Synthetics canary asks /health and the known question, and the
Rules refuse a public prod stack, a packed index without its bucket and Bedrock rerank where it
is not offered."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from duocthu.core.vocabulary import SystemError

from tests.conftest import ROOT
from tests.infrastructure.cloudformation import Deployed, translated_template

FUNCTIONS = ("UnderstandFunction", "RetrieveFunction", "ChatFunction")


def alarms(stack: Deployed) -> dict[str, dict[str, Any]]:
    return {name: res["Properties"] for name, res in stack.of_type("AWS::CloudWatch::Alarm").items()}


def metric_names(stack: Deployed) -> set[tuple[str, str]]:
    """(namespace, metric) of every alarm, metric math included."""
    found = set()
    for props in alarms(stack).values():
        if "MetricName" in props:
            found.add((props["Namespace"], props["MetricName"]))
        for query in props.get("Metrics", []):
            metric = query.get("MetricStat", {}).get("Metric")
            if metric:
                found.add((metric["Namespace"], metric["MetricName"]))
    return found


def emitted_metrics() -> set[str]:
    """The EMF metrics the functions emit that mean a fault (not the per-decision counters)."""
    names = {f"SystemError_{e}" for e in get_args(SystemError)}
    for path in [*(ROOT / "functions").glob("*/app.py"), ROOT / "shared" / "duocthu" / "api" / "http.py"]:
        names |= set(re.findall(r'add_metric\(name="([A-Za-z]+)"', path.read_text(encoding="utf-8")))
    # a question back is no fault; a clinician's report is read on the dashboard, not paged
    return names - {"Clarify", "Feedback"}


def test_every_fault_metric_the_code_emits_has_an_alarm_to_the_encrypted_topic() -> None:
    stack = Deployed()
    emitted = emitted_metrics()
    assert {"InternalError", "DependencyUnavailable", "SystemError_store_unavailable"} <= emitted
    assert {("Duocthu", name) for name in emitted} <= metric_names(stack)
    assert '"Feedback"' in str(stack.resources["OperationsDashboard"]["Properties"]["DashboardBody"])
    for name, props in alarms(stack).items():
        assert props["AlarmActions"] == ["<AlarmTopic>"], name
        assert props.get("AlarmDescription"), name
    topic = stack.resources["AlarmTopic"]["Properties"]
    assert topic["KmsMasterKeyId"] == "<AlarmTopicKey>"
    key = stack.resources["AlarmTopicKey"]["Properties"]
    assert key["EnableKeyRotation"] is True
    assert any(
        s["Principal"] == {"Service": "cloudwatch.amazonaws.com"} for s in key["KeyPolicy"]["Statement"]
    )


def test_each_function_the_api_the_machine_and_the_table_have_their_alarms() -> None:
    stack = Deployed()
    by_metric: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for props in alarms(stack).values():
        if "MetricName" in props:
            by_metric.setdefault((props["Namespace"], props["MetricName"]), []).append(props)
    for metric in ("Errors", "Throttles", "Duration", "ConcurrentExecutions"):
        watched = {p["Dimensions"][0]["Value"] for p in by_metric[("AWS/Lambda", metric)]}
        assert watched == {f"<{f}>" for f in FUNCTIONS}, metric
    duration = by_metric[("AWS/Lambda", "Duration")][0]
    assert duration["ExtendedStatistic"] == "p99" and duration["Threshold"] < 29_000  # near the timeout
    assert by_metric[("AWS/ApiGateway", "Latency")][0]["ExtendedStatistic"] == "p90"
    assert {("AWS/ApiGateway", "5xx"), ("AWS/ApiGateway", "Count")} <= metric_names(stack)  # a rate
    assert {("AWS/States", "ExecutionsFailed"), ("AWS/States", "ExecutionsTimedOut")} <= metric_names(stack)
    assert {("AWS/DynamoDB", "ReadThrottleEvents"), ("AWS/DynamoDB", "WriteThrottleEvents")} <= metric_names(
        stack
    )
    assert ("CloudWatchSynthetics", "SuccessPercent") in metric_names(stack)
    assert list(stack.of_type("AWS::CloudWatch::Dashboard")) == ["OperationsDashboard"]


def test_the_dashboard_is_json_naming_the_stacks_resources() -> None:
    body = Deployed().resources["OperationsDashboard"]["Properties"]["DashboardBody"]
    widgets = json.loads(body)["widgets"]
    text = json.dumps(widgets)
    assert len(widgets) >= 6 and "<HttpApi>" in text and "<ChatFunction>" in text and "InternalError" in text


def test_each_function_deploys_through_its_alias_with_a_canary_and_alarm_rollback() -> None:
    stack = Deployed()
    groups = stack.of_type("AWS::CodeDeploy::DeploymentGroup")
    assert len(groups) == 3
    for function in FUNCTIONS:
        assert f"{function}Aliaslive" in stack.resources
        group = groups[f"{function}DeploymentGroup"]["Properties"]
        assert group["AutoRollbackConfiguration"]["Enabled"] is True
        rollback_alarms = {a["Name"] for a in group["AlarmConfiguration"]["Alarms"]}
        assert f"<{function.removesuffix('Function')}ErrorsAlarm>" in rollback_alarms
        assert "<InternalErrorAlarm>" in rollback_alarms
    alias = stack.resources["ChatFunctionAliaslive"]
    assert "CodeDeployLambdaAliasUpdate" in alias["UpdatePolicy"]
    hooks = alias["UpdatePolicy"]["CodeDeployLambdaAliasUpdate"]
    assert hooks["BeforeAllowTrafficHook"] == "<PreTrafficHookFunction>"
    assert "Canary10Percent5Minutes" in json.dumps(groups["ChatFunctionDeploymentGroup"])


def test_a_function_added_later_deploys_through_an_alias_with_the_canary(tmp_path: Path) -> None:
    """The alias and the deployment preference are Globals: a new function needs no line of them."""
    text = (ROOT / "template.yaml").read_text(encoding="utf-8")
    later = "  LaterFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n"
    later += "      CodeUri: functions/chat/\n      Handler: app.handler\n\n"
    (tmp_path / "template.yaml").write_text(text.replace("\nResources:\n", f"\nResources:\n{later}", 1))
    (tmp_path / "infra").symlink_to(ROOT / "infra")  # the state machine's DefinitionUri
    resources = translated_template(tmp_path / "template.yaml")["Resources"]
    assert "LaterFunctionAliaslive" in resources
    group = resources["LaterFunctionDeploymentGroup"]["Properties"]
    assert group["AutoRollbackConfiguration"]["Enabled"] is True
    assert {"Name": {"Ref": "InternalErrorAlarm"}} in group["AlarmConfiguration"]["Alarms"]
    assert "Canary10Percent5Minutes" in json.dumps(group["DeploymentConfigName"])  # DeploymentType


def test_snapstart_is_a_parameter_every_function_takes() -> None:
    # a published version is snapshotted after init (its /tmp too: the unpacked index comes with it)
    for applies in ("None", "PublishedVersions"):
        stack = Deployed(SnapStart=applies)
        for function in FUNCTIONS:
            assert stack.resources[function]["Properties"]["SnapStart"] == {"ApplyOn": applies}
    overrides = {env: _overrides(env).get("SnapStart", "None") for env in ("dev", "staging", "prod")}
    assert overrides == {"dev": "None", "staging": "PublishedVersions", "prod": "PublishedVersions"}


def test_the_api_and_the_state_machine_call_the_aliases() -> None:
    stack = Deployed()
    assert stack.resources["ChatIntegration"]["Properties"]["IntegrationUri"] == "<ChatFunctionAliaslive>"
    assert stack.resources["ChatApiPermission"]["Properties"]["FunctionName"] == "<ChatFunctionAliaslive>"
    definition = json.dumps(stack.resources["ChatTurnStateMachine"]["Properties"])
    for function in FUNCTIONS:
        assert f"<{function}Aliaslive>" in definition


def test_the_hook_and_the_canary_ask_the_known_question() -> None:
    stack = Deployed()
    hook = stack.resources["PreTrafficHookFunction"]["Properties"]
    assert hook["FunctionName"].startswith("CodeDeployHook_")  # the prefix SAM's CodeDeploy role may invoke
    assert hook["Environment"]["Variables"]["KNOWN_QUESTION"] == stack.params["KnownQuestion"]
    assert hook["Environment"]["Variables"]["NEW_VERSION"].startswith("<ChatFunctionVersion")  # the new one
    assert "Layers" not in hook  # a plain function: none of the Globals
    assert "put_lifecycle_event_hook_execution_status" in hook["Code"]["ZipFile"]
    assert "ANSWERABLE" in hook["Code"]["ZipFile"]
    canary = stack.resources["KnownQuestionCanary"]["Properties"]
    assert canary["Schedule"]["Expression"] == "rate(5 minutes)"
    assert canary["RunConfig"]["EnvironmentVariables"]["CHAT_FUNCTION"] == "<ChatFunctionAliaslive>"
    assert "/health" in canary["Code"]["Script"] and "ANSWERABLE" in canary["Code"]["Script"]


def test_reserved_concurrency_is_a_parameter() -> None:
    assert "ReservedConcurrentExecutions" not in Deployed().resources["ChatFunction"]["Properties"]
    for function in FUNCTIONS:
        props = Deployed(ReservedConcurrency="25").resources[function]["Properties"]
        assert props["ReservedConcurrentExecutions"] == "25"


def test_bedrock_region_feeds_the_client_and_the_iam_arns() -> None:
    stack = Deployed(
        BedrockRegion="ap-northeast-1", RerankProvider="bedrock", GenerationModelId="amazon.nova-lite-v1:0"
    )
    assert (
        stack.resources["ChatFunction"]["Properties"]["Environment"]["Variables"]["BEDROCK_REGION"]
        == "ap-northeast-1"
    )
    arns = [r for a, r, _ in stack.grants("ChatFunctionRole") if a == "bedrock:InvokeModel"]
    # the ARNs naming a Region (a profile's destination models name none, or every one)
    in_a_region = [arn for arn in arns if not re.search(r":bedrock:\*?:", arn)]
    assert len(in_a_region) == 3 and all(":bedrock:ap-northeast-1:" in arn for arn in in_a_region), arns
    default = Deployed().resources["ChatFunction"]["Properties"]["Environment"]["Variables"]["BEDROCK_REGION"]
    assert default == "ap-southeast-1"  # the stack's own Region


def _holds(expr: Any, params: dict[str, str]) -> Any:
    """A Rules expression under parameter values (the functions Rules allow that this template uses)."""
    if isinstance(expr, dict):
        ((fn, args),) = expr.items()
        if fn == "Ref":
            return params[args]
        values = [_holds(a, params) for a in args]
        return {
            "Fn::Equals": lambda: str(values[0]) == str(values[1]),  # parameters are strings
            "Fn::Not": lambda: not values[0],
            "Fn::Contains": lambda: values[1] in values[0],
        }[fn]()
    if isinstance(expr, list):
        return [_holds(a, params) for a in expr]
    return expr


def refused(**parameters: str) -> list[str]:
    """The rules a deploy with these parameters would fail (CloudFormation checks them first)."""
    stack = Deployed(**parameters)
    params: dict[str, Any] = dict(stack.params)
    params["JwtAudience"] = params["JwtAudience"].split(",")
    failed = []
    for name, rule in stack.raw["Rules"].items():
        if "RuleCondition" in rule and not _holds(rule["RuleCondition"], params):
            continue
        if not all(_holds(a["Assert"], params) for a in rule["Assertions"]):
            failed.append(name)
    return failed


ISSUER = {"JwtIssuer": "https://cognito-idp.ap-southeast-1.amazonaws.com/pool", "JwtAudience": "client"}


@pytest.mark.parametrize(
    ("parameters", "rules"),
    [
        ({}, []),
        ({"Environment": "prod"}, ["ProdRequiresJwtIssuer"]),
        ({"Environment": "prod", **ISSUER}, []),
        ({"Environment": "staging"}, []),
        ({"PackedIndexS3Uri": "s3://b/duocthu/v1/index.tar.zst"}, ["PackedIndexNeedsCatalogBucket"]),
        ({"PackedIndexS3Uri": "s3://b/duocthu/v1/index.tar.zst", "CatalogBucket": "b"}, []),
        ({"RerankProvider": "bedrock"}, ["BedrockRerankWhereOffered"]),
        ({"RerankProvider": "bedrock", "BedrockRegion": "ap-southeast-1"}, ["BedrockRerankWhereOffered"]),
        ({"RerankProvider": "bedrock", "BedrockRegion": "ap-northeast-1"}, []),
        ({"SnapStart": "PublishedVersions"}, []),
        ({"SnapStart": "PublishedVersions", "EphemeralStorageMiB": "1024"}, ["SnapStartWithinItsStorage"]),
        ({"EphemeralStorageMiB": "1024"}, []),
    ],
)
def test_the_rules_refuse_what_cannot_work(parameters: dict[str, str], rules: list[str]) -> None:
    assert refused(**parameters) == rules


def test_samconfig_has_the_three_environments() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    for env in ("dev", "staging", "prod"):
        overrides = config[env]["deploy"]["parameters"]["parameter_overrides"]
        assert f"Environment={env}" in overrides
        assert config[env]["global"]["parameters"]["stack_name"] == f"duocthu-{env}"
    assert "DeploymentType=AllAtOnce" in config["dev"]["deploy"]["parameters"]["parameter_overrides"]
    assert "JwtIssuer=" in config["prod"]["deploy"]["parameters"]["parameter_overrides"]


def _overrides(env: str) -> dict[str, str]:
    import shlex
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    pairs = shlex.split(config[env]["deploy"]["parameters"]["parameter_overrides"])
    return dict(pair.split("=", 1) for pair in pairs)


def _accepted(spec: dict[str, Any], value: str) -> bool:
    """Whether CloudFormation takes the value (AllowedValues, AllowedPattern per list item)."""
    items = value.split(",") if spec.get("Type") == "CommaDelimitedList" else [value]
    pattern = spec.get("AllowedPattern")
    allowed = [str(v) for v in spec.get("AllowedValues", ())]
    return all(
        (not pattern or re.fullmatch(pattern, item)) and (not allowed or item in allowed) for item in items
    )


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_samconfig_placeholders_are_refused_at_deploy_and_real_values_pass(env: str) -> None:
    """A value only the operator knows is a <placeholder> that its parameter's pattern refuses (the
    deploy fails before a change set), never a plausible value that would deploy."""
    parameters = translated_template()["Parameters"]
    overrides = _overrides(env)
    assert set(overrides) <= set(parameters)
    for name, value in overrides.items():
        placeholder = value.startswith("<") and value.endswith(">")
        assert _accepted(parameters[name], value) is not placeholder, (name, value)
    if env == "prod":
        for name in ("JwtIssuer", "JwtAudience", "PageClientId", "AlarmEmail"):
            assert overrides[name].startswith("<"), f"prod's {name} is the operator's to fill"
    real = {
        "JwtIssuer": "https://cognito-idp.ap-southeast-1.amazonaws.com/ap-southeast-1_AbC123xyz",
        "JwtAudience": "4f3k2j1h0g9f8e7d6c5b4a3z2y,second",
        "PageClientId": "4f3k2j1h0g9f8e7d6c5b4a3z2y",
        "PageAuthorizeUrl": "https://duocthu.auth.ap-southeast-1.amazoncognito.com/oauth2/authorize",
        "AlarmEmail": "truc-ban@benhvien.vn",
    }
    assert all(_accepted(parameters[name], value) for name, value in real.items())

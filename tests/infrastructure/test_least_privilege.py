"""Least privilege, proved on the translated template (samtranslator, offline) for the parameter
sets an operator would deploy: each function may do only what its code calls, on the configured
resources only, and nothing at all for a provider that is not configured."""

from __future__ import annotations

import re
from fnmatch import fnmatch

import pytest
from duocthu.providers.embeddings import DEFAULT_BEDROCK_EMBEDDING_MODEL
from duocthu.providers.rerank import BEDROCK_RERANK_MODEL

from tests.conftest import ROOT
from tests.infrastructure.cloudformation import ACCOUNT, REGION, Deployed

FUNCTION_ROLES = ("UnderstandFunctionRole", "RetrieveFunctionRole", "ChatFunctionRole")
MACHINE_ROLE = "ChatTurnStateMachineRole"
PROFILE = "global.anthropic.claude-haiku-4-5-20251001-v1:0"
MODEL = "amazon.nova-lite-v1:0"
QDRANT_SECRET = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:qdrant-key-AbCdEf"
COHERE_SECRET = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:cohere-key-AbCdEf"
TABLE_KEY = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/0f7e2a4c-1111-2222-3333-444455556666"
EVERYTHING = {
    "CatalogBucket": "duocthu-artifacts",
    "QdrantUrl": "https://qdrant.example.vn",
    "QdrantApiKeySecretArn": QDRANT_SECRET,
    "RerankProvider": "bedrock",
    "EmbeddingProvider": "bedrock",
    "UnderstandingModelId": PROFILE,
    "GenerationModelId": MODEL,
    "SessionsTableKmsKeyArn": TABLE_KEY,
}
# The only statement AWS does not let be scoped: log deliveries take no resource.
LOG_DELIVERY = {
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
}
# What CloudWatch Synthetics needs of its canary's role that takes no resource (PutMetricData is
# held to the CloudWatchSynthetics namespace by a condition).
CANARY_ROLE = "CanaryRole"
CANARY_UNSCOPED = {"s3:ListAllMyBuckets", "cloudwatch:PutMetricData"}
# boto3 operations the layer package may call -> the IAM action that authorises each. Bedrock's
# Converse is authorised by InvokeModel; the Cohere reranker's `rerank` is the Cohere SDK's, and
# Bedrock rerank goes through invoke_model (providers/rerank.py), so no bedrock:Rerank.
BOTO3_ACTIONS = {
    "converse": "bedrock:InvokeModel",
    "converse_stream": "bedrock:InvokeModelWithResponseStream",
    "invoke_model": "bedrock:InvokeModel",
    "invoke_model_with_response_stream": "bedrock:InvokeModelWithResponseStream",
    "get_item": "dynamodb:GetItem",
    "put_item": "dynamodb:PutItem",
    "update_item": "dynamodb:UpdateItem",
    "delete_item": "dynamodb:DeleteItem",
    "batch_get_item": "dynamodb:BatchGetItem",
    "batch_write_item": "dynamodb:BatchWriteItem",
    "transact_write_items": "dynamodb:PutItem",
    "get_object": "s3:GetObject",
    "put_object": "s3:PutObject",
    "get_secret": "secretsmanager:GetSecretValue",  # Powertools' get_secret / SecretsProvider
    "SecretsProvider": "secretsmanager:GetSecretValue",
}


def actions_the_code_calls() -> set[str]:
    """What the code the functions run calls (the developer tools are not deployed)."""
    package = ROOT / "shared" / "duocthu"
    pattern = re.compile(r"\b(" + "|".join(BOTO3_ACTIONS) + r")\(")
    called: set[str] = set()
    for path in package.rglob("*.py"):
        if path.relative_to(package).parts[0] == "tools":
            continue
        called.update(BOTO3_ACTIONS[m] for m in pattern.findall(path.read_text(encoding="utf-8")))
    return called


def function_grants(stack: Deployed, role: str) -> set[tuple[str, str]]:
    return {(a, r) for a, r, _ in stack.grants(role)}


@pytest.mark.parametrize("parameters", [{}, EVERYTHING], ids=["defaults", "everything-configured"])
def test_no_resource_is_a_bare_star(parameters: dict[str, str]) -> None:
    stack = Deployed(**parameters)
    stars = [
        (role, action)
        for role in stack.of_type("AWS::IAM::Role")
        for action, resource, _ in stack.grants(role)
        if resource == "*"
    ]
    assert {action for _, action in stars} == LOG_DELIVERY | CANARY_UNSCOPED
    assert {role for role, _ in stars} == {MACHINE_ROLE, CANARY_ROLE}
    assert {action for role, action in stars if role == CANARY_ROLE} == CANARY_UNSCOPED
    policies = [p["Properties"]["PolicyDocument"] for p in stack.of_type("AWS::IAM::ManagedPolicy").values()]
    assert "'*'" not in str([s["Resource"] for doc in policies for s in doc["Statement"]])


def test_the_defaults_grant_no_provider_at_all() -> None:
    stack = Deployed()
    for role in FUNCTION_ROLES:
        services = {action.split(":")[0] for action, _ in function_grants(stack, role)}
        assert services <= ({"dynamodb"} if role == "ChatFunctionRole" else set()), role
        assert stack.aws_managed_policies(role) == [
            "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
            "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
        ]
    assert not stack.of_type("AWS::IAM::ManagedPolicy").keys() - {"SessionsTablePolicy"}


def test_functions_may_do_only_what_the_code_calls() -> None:
    stack = Deployed(**EVERYTHING)
    granted = {a for role in FUNCTION_ROLES for a, _ in function_grants(stack, role)}
    kms = {a for a in granted if a.startswith("kms:")}  # the table's optional key, through DynamoDB
    assert granted - kms == actions_the_code_calls()


def test_a_cross_region_profile_allows_its_models_only_through_the_profile() -> None:
    stack = Deployed(UnderstandingModelId=PROFILE)
    profile_arn = f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/{PROFILE}"
    model = PROFILE.split(".", 1)[1]
    expected = {
        ("bedrock:InvokeModel", f"arn:aws:bedrock:{REGION}::foundation-model/{PROFILE}", ""),
        ("bedrock:InvokeModel", profile_arn, ""),
        ("bedrock:InvokeModel", f"arn:aws:bedrock:*::foundation-model/{model}", profile_arn),
        ("bedrock:InvokeModel", f"arn:aws:bedrock:::foundation-model/{model}", profile_arn),
    }
    for role in ("UnderstandFunctionRole", "ChatFunctionRole"):
        grants = {
            (a, r, c.get("StringEquals", {}).get("bedrock:InferenceProfileArn", ""))
            for a, r, c in stack.grants(role)
            if a.startswith("bedrock:")
        }
        assert grants == expected, role
    assert not [a for a, _ in function_grants(stack, "RetrieveFunctionRole") if a.startswith("bedrock:")]


def test_a_model_id_is_invoked_in_this_region_and_each_model_by_its_function() -> None:
    stack = Deployed(GenerationModelId=MODEL, RerankProvider="bedrock", EmbeddingProvider="bedrock")
    model_arn = f"arn:aws:bedrock:{REGION}::foundation-model/"
    unconditional = {
        role: {r for a, r, c in stack.grants(role) if a == "bedrock:InvokeModel" and not c}
        for role in FUNCTION_ROLES
    }
    rerank_and_embed = {model_arn + BEDROCK_RERANK_MODEL, model_arn + DEFAULT_BEDROCK_EMBEDDING_MODEL}
    assert unconditional["UnderstandFunctionRole"] == set()
    assert unconditional["RetrieveFunctionRole"] == rerank_and_embed
    generation = {model_arn + MODEL, f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/{MODEL}"}
    assert unconditional["ChatFunctionRole"] == rerank_and_embed | generation


def test_data_access_is_scoped_to_the_table_the_prefix_and_the_secrets() -> None:
    stack = Deployed(**EVERYTHING, CohereApiKeySecretArn=COHERE_SECRET, ArtifactsPrefix="catalogue/")
    by_role = {role: function_grants(stack, role) for role in FUNCTION_ROLES}
    artifacts = ("s3:GetObject", "arn:aws:s3:::duocthu-artifacts/catalogue/*")
    qdrant = ("secretsmanager:GetSecretValue", QDRANT_SECRET)
    cohere = ("secretsmanager:GetSecretValue", COHERE_SECRET)
    table = {(action, "<ConversationsTable.Arn>") for action in ("dynamodb:GetItem", "dynamodb:PutItem")}
    for role, grants in by_role.items():
        data = {g for g in grants if not g[0].startswith(("bedrock:", "kms:"))}
        expected = {artifacts, qdrant}
        expected |= {cohere} if role != "UnderstandFunctionRole" else set()
        expected |= table if role == "ChatFunctionRole" else set()
        assert data == expected, role
    key = [(a, r, c) for a, r, c in stack.grants("ChatFunctionRole") if a.startswith("kms:")]
    assert {r for _, r, _ in key} == {TABLE_KEY}
    assert {c["StringEquals"]["kms:ViaService"] for _, _, c in key} == {f"dynamodb.{REGION}.amazonaws.com"}


def test_the_state_machine_may_invoke_the_three_functions_only() -> None:
    stack = Deployed()
    invokes = {r for a, r, _ in stack.grants(MACHINE_ROLE) if a == "lambda:InvokeFunction"}
    assert {a for a, _, _ in stack.grants(MACHINE_ROLE)} == {"lambda:InvokeFunction"} | LOG_DELIVERY
    assert invokes == {
        f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:<{name}>*"
        for name in ("UnderstandFunction", "RetrieveFunction", "ChatFunction")
    }


def test_the_sessions_table_is_recoverable_retained_and_optionally_under_a_customer_key() -> None:
    table = Deployed().resources["ConversationsTable"]
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"
    assert table["Properties"]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["Properties"]["SSESpecification"] == {"SSEEnabled": True}
    keyed = Deployed(SessionsTableKmsKeyArn=TABLE_KEY).resources["ConversationsTable"]
    assert keyed["Properties"]["SSESpecification"] == {
        "SSEEnabled": True,
        "SSEType": "KMS",
        "KMSMasterKeyId": TABLE_KEY,
    }


@pytest.mark.parametrize(
    "parameters", [{}, {"CatalogKey": "duocthu/formulary-2018"}], ids=["default", "nested"]
)
def test_the_catalogue_the_functions_are_given_is_one_they_may_read(parameters: dict[str, str]) -> None:
    stack = Deployed(CatalogBucket="duocthu-artifacts", **parameters)
    for function in ("UnderstandFunction", "RetrieveFunction", "ChatFunction"):
        uri = stack.resources[function]["Properties"]["Environment"]["Variables"]["CATALOG_S3_URI"]
        # CATALOG_S3_URI is a prefix: each index version's catalogue is <prefix>/<version>/catalog.json
        key = uri.removeprefix("s3://").rstrip("/") + "/<version>/catalog.json"
        readable = [r for a, r, _ in stack.grants(f"{function}Role") if a == "s3:GetObject"]
        assert [r for r in readable if fnmatch(f"arn:aws:s3:::{key}", r)], (uri, readable)


def test_an_issuer_without_an_audience_is_refused_before_deploying() -> None:
    rule = Deployed().raw["Rules"]["JwtIssuerNeedsAnAudience"]
    assert rule["RuleCondition"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    assert rule["Assertions"][0]["Assert"] == {"Fn::Not": [{"Fn::Contains": [{"Ref": "JwtAudience"}, ""]}]}

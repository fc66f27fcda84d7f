"""The HTTP API as deployed (translated template): only the public routes, a JWT authorizer when
an issuer is configured, throttling, JSON access logs, CORS for another origin, and a log group
with retention for every function, the API and the state machine."""

from __future__ import annotations

import json

from duocthu import page

from tests.infrastructure.cloudformation import Deployed

ISSUER = "https://cognito-idp.ap-southeast-1.amazonaws.com/ap-southeast-1_Example"
PAGE = {f"GET {path}" for path in (*page.ASSETS, page.SIGN_IN)}  # the clinicians' page: static, no user data
PUBLIC = {"POST /v1/chat", "POST /v1/feedback", "GET /v1/drugs", "GET /health", *PAGE}
UNGUARDED = {"GET /health", *PAGE}  # the post-deploy check; a page a browser loads without a token


def routes(stack: Deployed) -> dict[str, dict[str, str]]:
    return {
        r["Properties"]["RouteKey"]: r["Properties"]
        for r in stack.of_type("AWS::ApiGatewayV2::Route").values()
    }


def test_only_the_chat_functions_routes_are_on_the_api() -> None:
    stack = Deployed()
    assert set(routes(stack)) == PUBLIC  # /v1/understand, /v1/retrieve: direct invoke only
    assert {r["Target"] for r in routes(stack).values()} == {"integrations/<ChatIntegration>"}
    integration = stack.resources["ChatIntegration"]["Properties"]
    assert (
        # the `live` alias: traffic follows the canary deployment
        integration["IntegrationUri"] == "<ChatFunctionAliaslive>"
        and integration["PayloadFormatVersion"] == "2.0"
    )
    # no SAM event made a second API or let API Gateway invoke another function
    assert list(stack.of_type("AWS::Lambda::Permission")) == ["ChatApiPermission"]
    assert list(stack.of_type("AWS::ApiGatewayV2::Api")) == ["HttpApi"]
    permission = stack.resources["ChatApiPermission"]["Properties"]
    assert permission["SourceArn"] == "arn:aws:execute-api:ap-southeast-1:123456789012:<HttpApi>/*/*"


def test_without_an_issuer_there_is_no_authorizer() -> None:
    stack = Deployed()
    assert not stack.of_type("AWS::ApiGatewayV2::Authorizer")
    assert {r["AuthorizationType"] for r in routes(stack).values()} == {"NONE"}


def test_an_issuer_puts_every_route_but_health_and_the_page_behind_the_jwt_authorizer() -> None:
    stack = Deployed(JwtIssuer=ISSUER, JwtAudience="client-a,client-b")
    authorizer = stack.resources["JwtAuthorizer"]["Properties"]
    assert authorizer["AuthorizerType"] == "JWT"
    assert authorizer["JwtConfiguration"] == {"Issuer": ISSUER, "Audience": ["client-a", "client-b"]}
    assert authorizer["IdentitySource"] == ["$request.header.Authorization"]
    for key, route in routes(stack).items():
        if key in UNGUARDED:
            assert route["AuthorizationType"] == "NONE" and "AuthorizerId" not in route
        else:
            assert route["AuthorizationType"] == "JWT" and route["AuthorizerId"] == "<JwtAuthorizer>", key


def test_the_stage_throttles_and_writes_json_access_logs() -> None:
    stage = Deployed(ThrottleRateLimit="7", ThrottleBurstLimit="9").resources["HttpApiStage"]["Properties"]
    assert stage["DefaultRouteSettings"] == {"ThrottlingRateLimit": "7", "ThrottlingBurstLimit": "9"}
    assert stage["AccessLogSettings"]["DestinationArn"] == "<ApiAccessLogGroup.Arn>"
    line = json.loads(stage["AccessLogSettings"]["Format"])
    assert {"requestId", "routeKey", "status", "integrationError", "authorizerError"} <= set(line)


def test_cors_only_for_a_configured_origin() -> None:
    assert "CorsConfiguration" not in Deployed().resources["HttpApi"]["Properties"]
    cors = Deployed(CorsAllowOrigin="https://app.example.vn").resources["HttpApi"]["Properties"][
        "CorsConfiguration"
    ]
    assert cors["AllowOrigins"] == ["https://app.example.vn"]
    assert set(cors["AllowMethods"]) == {"GET", "POST", "OPTIONS"}
    assert "authorization" in cors["AllowHeaders"]


def test_every_log_group_has_a_retention_and_every_writer_has_its_group() -> None:
    stack = Deployed(LogRetentionDays="90")
    groups = stack.of_type("AWS::Logs::LogGroup")
    assert {g["Properties"]["RetentionInDays"] for g in groups.values()} == {"90"}
    used = {
        *(
            f["Properties"]["LoggingConfig"]["LogGroup"]
            for f in stack.of_type("AWS::Lambda::Function").values()
        ),
        stack.resources["HttpApiStage"]["Properties"]["AccessLogSettings"]["DestinationArn"],
        *(
            d["CloudWatchLogsLogGroup"]["LogGroupArn"]
            for d in stack.resources["ChatTurnStateMachine"]["Properties"]["LoggingConfiguration"][
                "Destinations"
            ]
        ),
    }
    assert {u.strip("<>").removesuffix(".Arn") for u in used} == set(groups)

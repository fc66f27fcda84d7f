"""The template itself: what the code relies on must be declared there."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.infrastructure.template import read_sam_template


def test_three_functions_share_the_layer_on_arm64_python312() -> None:
    template = read_sam_template()
    assert template["Globals"]["Function"]["Runtime"] == "python3.12"
    assert template["Globals"]["Function"]["Architectures"] == ["arm64"]
    functions = {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function"}
    assert set(functions) == {"UnderstandFunction", "RetrieveFunction", "ChatFunction"}
    for name, fn in functions.items():
        code = ROOT / fn["Properties"]["CodeUri"]
        assert (code / "app.py").is_file() and (code / "Makefile").read_text().startswith(f"build-{name}:")
    layer = template["Resources"]["SharedLayer"]
    assert layer["Properties"]["ContentUri"] == "shared/"
    assert "build-SharedLayer:" in (ROOT / "shared" / "Makefile").read_text()


def test_sessions_expire_by_ttl_and_the_chat_function_may_use_the_table() -> None:
    template = read_sam_template()
    table = template["Resources"]["ConversationsTable"]["Properties"]
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert template["Globals"]["Function"]["Environment"]["Variables"]["CONVERSATION_TABLE"] == {
        "Ref": "ConversationsTable"
    }

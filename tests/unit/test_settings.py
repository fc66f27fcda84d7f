from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from duocthu.settings import Settings
from duocthu.store import open_store, qdrant_api_key
from duocthu.store.edge import EdgeStore
from duocthu.store.server import ServerStore
from moto import mock_aws
from pydantic import ValidationError


def test_defaults_are_embedded() -> None:
    settings = Settings.from_env({})
    assert settings.data_dir == Path(".duocthu") and settings.qdrant_url is None
    assert isinstance(open_store(settings), EdgeStore)


def test_qdrant_url_switches_to_the_server_store() -> None:
    settings = Settings.from_env({"QDRANT_URL": "http://127.0.0.1:6333", "QDRANT_COLLECTION": "x"})
    store = open_store(settings)
    assert isinstance(store, ServerStore) and store.alias == "x"
    store.close()


def test_bad_values_fail_at_start_up() -> None:
    with pytest.raises(ValidationError):
        Settings.from_env({"QDRANT_TIMEOUT_S": "-1"})


@mock_aws
def test_api_key_from_secrets_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    arn = boto3.client("secretsmanager").create_secret(Name="qdrant", SecretString="s3cr3t")["ARN"]
    settings = Settings.from_env({"QDRANT_URL": "http://127.0.0.1:6333", "QDRANT_API_KEY_SECRET_ARN": arn})
    assert qdrant_api_key(settings) == "s3cr3t"
    assert qdrant_api_key(settings.model_copy(update={"qdrant_api_key": "env"})) == "env"

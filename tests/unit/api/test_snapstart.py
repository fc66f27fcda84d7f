"""SnapStart's after-restore hook: AWS clients built before the snapshot are built again."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable

import pytest
from duocthu.api import snapstart
from duocthu.store import catalog


def test_the_hook_is_registered_only_where_lambda_ships_its_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # importing it fails, as off Lambda
    assert snapstart.register() is False
    registered: list[Callable[[], None]] = []
    library = types.ModuleType("snapshot_restore_py")
    library.register_after_restore = registered.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", library)
    assert snapstart.register() is True and registered == [snapstart.forget_clients]


def test_after_a_restore_each_client_is_built_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    before = catalog._s3_client()
    assert catalog._s3_client() is before  # one per process while nothing is restored
    snapstart.forget_clients()
    assert all(cached.cache_info().currsize == 0 for cached in snapstart._client_caches())  # type: ignore[attr-defined]
    assert catalog._s3_client() is not before

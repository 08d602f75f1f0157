"""The started server of the tests here that need one (HEAD answers, what the log holds): one
process for the test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_server import LiveServer


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    srv = LiveServer(tmp_path_factory.mktemp("serve") / "server.log")
    yield srv
    srv.stop()

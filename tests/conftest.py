from __future__ import annotations

import pytest

from patience_gym.games import VARIANTS


@pytest.fixture(params=[v.env_name for v in VARIANTS])
def env_name(request: pytest.FixtureRequest) -> str:
    return request.param

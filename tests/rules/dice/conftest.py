"""Shared helpers for the dice-core tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: seeded Monte Carlo (200,000+ rolls); a few seconds each"
    )

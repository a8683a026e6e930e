"""Schemathesis against the live app's own OpenAPI document: no 5xx, no schema violation.

Runs the schemathesis CLI (its coverage phase sends every boundary and wrong-typed value the
schema implies; the fuzzing phase random ones) against the app served by uvicorn on a free
loopback port, authenticated with a personal token. Bounded by ``FUZZ_EXAMPLES`` per operation
(a few minutes in all). Routes that would end the run's own login are left out: deleting a
token, logging out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import sign_up

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
EXCLUDED = r"/tokens/\{token_id\}$|/auth/logout$|/auth/sessions|/auth/password$"
CHECKS = ",".join(
    (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "unsupported_method",
    )
)
pytestmark = pytest.mark.slow  # a minute or more of fuzzing
REPORT = Path(__file__).resolve().parents[2] / "artifacts" / "schemathesis.txt"


def _token(app) -> str:  # type: ignore[no-untyped-def]
    with TestClient(app) as client:
        member = sign_up(client, name="Fuzz")
        r = member.client.post(
            "/api/v1/tokens", json={"name": "fuzz"}, headers={"X-CSRF-Token": member.csrf}
        )
        assert r.status_code == 201, r.text
        return str(r.json()["token"])


def test_schemathesis_finds_no_server_error_and_no_schema_violation(app, live_server: str) -> None:  # type: ignore[no-untyped-def]
    cli = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert cli, "schemathesis is a dev dependency: make test installs it"
    token = _token(app)
    command = [
        cli,
        "run",
        f"{live_server}/api/v1/openapi.json",
        "--header",
        f"Authorization: Bearer {token}",
        "--exclude-path-regex",
        EXCLUDED,
        "--checks",
        CHECKS,
        "--phases",
        "coverage,fuzzing",
        "--max-examples",
        str(FUZZ_EXAMPLES),
        "--workers",
        "2",
        "--request-timeout",
        "20",
        "--seed",
        "20261201",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(run.stdout + run.stderr)
    tail = (run.stdout + run.stderr)[-6000:]
    assert run.returncode == 0, f"schemathesis failed (full report in {REPORT}):\n{tail}"
    assert "No issues found" in run.stdout or " passed" in run.stdout, tail

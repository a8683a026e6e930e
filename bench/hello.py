"""A hello-world FastAPI app: the baseline for the attack endpoint's requests per second, and
``make load``'s yardstick of the machine's speed at the time of the run."""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI()


@app.post("/hello")
def hello(body: dict[str, object]) -> dict[str, str]:
    """Parse a JSON body and answer a constant (what every JSON endpoint does at least)."""
    return {"hello": "world"}


@app.get("/healthz")
def healthz() -> dict[str, str]:
    """What ``make load`` polls before it starts (as it does the app's)."""
    return {"status": "ok"}

"""A hello-world FastAPI app: the baseline for the attack endpoint's requests per second."""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI()


@app.post("/hello")
def hello(body: dict[str, object]) -> dict[str, str]:
    """Parse a JSON body and answer a constant (what every JSON endpoint does at least)."""
    return {"hello": "world"}

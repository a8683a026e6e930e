"""Turn the builder's HTML forms into the engine's JSON shapes.

Field names are the engine's dotted paths (``ammo.xsize``), so an engine error
names the very input to mark. Checkbox groups carry a ``<group>._present``
marker so that unticking every box still says "none".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.web.csrf import FIELD
from app.web.inputs import MAX_ID, parse_index

_IGNORED = {FIELD, "version", "base"}
# A conflict's choice per field ("resolve.size" = "mine" or "theirs"), not a field itself.
RESOLVE = "resolve."


def nested(form: Mapping[str, str]) -> dict[str, Any]:
    """``{"ammo.xsize": "2"}`` → ``{"ammo": {"xsize": "2"}}``; checkbox groups become lists."""
    out: dict[str, Any] = {}
    for key, value in form.items():
        if key in _IGNORED or key.startswith(RESOLVE):
            continue
        parts = key.split(".")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[parts[-1]] = value
    if isinstance(out.get("specialties"), dict):
        group = out["specialties"]
        out["specialties"] = [k for k, v in group.items() if k != "_present" and v]
    if "mind_die" in out and isinstance(out["mind_die"], str):
        die = parse_index(out["mind_die"], 100)
        out["mind_die"] = out["mind_die"] if die is None else die
    return out


def form_version(form: Mapping[str, str]) -> int | None:
    """The row version the page was rendered with (None when the form did not send one)."""
    value = form.get("version", "")
    return parse_index(value, MAX_ID)


def form_base(form: Mapping[str, str]) -> dict[str, Any] | None:
    """The record as the page was rendered (the base of a stale edit's merge), if sent."""
    try:
        base = json.loads(form.get("base", ""))
    except ValueError:
        return None
    return base if isinstance(base, dict) else None


def resolved(form: Mapping[str, str], data: dict[str, Any]) -> dict[str, Any]:
    """The submitted fields without those whose conflict was resolved as "keep theirs"."""
    theirs = {k[len(RESOLVE) :] for k, v in form.items() if k.startswith(RESOLVE) and v == "theirs"}
    return {k: v for k, v in data.items() if k not in theirs}


def house_rules(form: Mapping[str, str]) -> dict[str, Any]:
    """The house-rules form's options as sent (form text: the ruleset's option fields read
    it, an unticked box, left out of the form, as off)."""
    return {k: v for k, v in form.items() if k not in _IGNORED and not k.startswith(RESOLVE)}


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """The inverse of ``nested`` for pre-filling a form: ``{"ammo": {"xsize": 2}}`` →
    ``{"ammo.xsize": "2"}``."""
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif value is not None:
            out[name] = str(value)
    return out

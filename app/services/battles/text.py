"""A battle's log in words: the one-line summary of an attack, each entry as a forum block,
and the whole battle as plain text for a forum post. Reads the JSON that ``codec`` writes."""

from __future__ import annotations

from typing import Any

from app.services.battles.views import BattleView, LogEntry

OUTCOMES = ("miss", "no_effect", "something_bad", "size_damage", "destroyed")
OUTCOME_WORDS = {
    "miss": "miss",
    "no_effect": "hit, no effect",
    "something_bad": "Something Bad",
    "size_damage": "Size Damage",
    "destroyed": "destroyed",
}


def effect_words(effect: dict[str, Any]) -> str:
    """ "2\" of Size Damage, on Fire" for one effect."""
    outcome = effect["outcome"]
    if outcome == "size_damage":
        words = f'{effect["size_damage"]}" of Size Damage'
    else:
        words = OUTCOME_WORDS.get(outcome, outcome)
    if effect.get("on_fire"):
        words += ", on Fire"
    return words


def line_words(line: dict[str, Any], *, several_targets: bool) -> str:
    """One line's result in words."""
    if line["skipped"]:
        return f"{line['label']}: not fired ({line['skipped']})"
    parts = [
        (f"{e['name']} {effect_words(e)}" if several_targets else effect_words(e))
        for e in line["effects"]
    ]
    text = f"{line['label']}: {', '.join(parts) or 'no shot'}"
    if line["jammed"]:
        text += " (jammed: Inoperative until Reloaded)"
    return text


def attack_summary(attacker: str, target: str, lines: list[dict[str, Any]]) -> str:
    """The one-line summary of an attack."""
    several = any(len(line["effects"]) > 1 for line in lines)
    text = f"{attacker} attacks {target}: " + "; ".join(
        line_words(line, several_targets=several) for line in lines
    )
    return text[:500]


def die_text(die: dict[str, Any]) -> str:
    """ "d6 5" or "d6 5→3" when a modifier changed the value."""
    shown = f"d{die['sides']} {die['natural']}"
    if die["value"] != die["natural"]:
        shown += f"→{die['value']}"
    return shown


def _percent(p: float) -> str:
    return f"{100 * p:.1f}%"


def odds_words(odds: dict[str, Any]) -> list[str]:
    """The stored odds of an entry, a line of text per attack line and target."""
    out = []
    for line in odds.get("lines", []):
        for t in line["targets"]:
            parts = [f"{OUTCOME_WORDS[k]} {_percent(t[k])}" for k in OUTCOMES if t[k] > 0]
            if t["on_fire"]:
                parts.append(f"on Fire {_percent(t['on_fire'])}")
            if line["jam"]:
                parts.append(f"jam {_percent(line['jam'])}")
            out.append(f"{line['label']} on {t['name']}: " + ", ".join(parts))
    return out


def entry_text(entry: LogEntry) -> str:
    """One entry as a forum block: header, dice by line, result, odds."""
    row = entry.row
    who = f" ({entry.actor_name})" if entry.actor_name else ""
    seed = f", seed {row.seed}" if row.seed is not None else ""
    lines = [f"#{row.seq} {row.kind}{who}{seed}", row.summary]
    for line in entry.dice:
        if "dice" not in line:
            continue
        lines.append(f"  {line['label']}")
        for die in line["dice"]:
            lines.append(f"    {die['purpose']}: {die_text(die)}")
        if line.get("effects") or line.get("skipped"):
            lines.append(f"    = {line_words(line, several_targets=len(line['effects']) > 1)}")
    odds = entry.odds
    if odds:
        lines.append("  odds before rolling:")
        lines += [f"    {text}" for text in odds_words(odds)]
    return "\n".join(lines)


def export_text(view: BattleView) -> str:
    """The whole battle as plain text for a forum post."""
    out = [f"Battle: {view.battle.name}", ""]
    for side in view.sides:
        out.append(f"{side.name}:")
        for unit in side.units:
            out.append(f"  {unit.row.name} — {unit.status_text}")
        out.append("")
    out.append("Log:")
    for entry in view.entries:
        out.append("")
        out.append(entry_text(entry))
    out.append("")
    out.append("(BrikForge battle log: every die, seeded and replayable)")
    return "\n".join(out) + "\n"

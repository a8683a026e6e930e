"""A battle's log in words: the one-line summary of an attack, each entry as a forum block,
and the whole battle as plain text for a forum post. Reads the log's JSON (the ruleset's
``log_roll`` lines; their odds in words are the ruleset's ``odds_words``); an outcome this
module has no words for is shown by its key."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.rules.ruleset import Ruleset
from app.services.battles.views import BattleView, LogEntry

EffectWords = Callable[[Mapping[str, Any]], str]
"""A ruleset's ``effect_words``."""


def line_words(line: dict[str, Any], words: EffectWords, *, several_targets: bool) -> str:
    """One line's result in words."""
    if line["skipped"]:
        return f"{line['label']}: not fired ({line['skipped']})"
    parts = [(f"{e['name']} {words(e)}" if several_targets else words(e)) for e in line["effects"]]
    text = f"{line['label']}: {', '.join(parts) or 'no shot'}"
    if line["jammed"]:
        text += " (jammed: Inoperative until Reloaded)"
    return text


def attack_summary(
    attacker: str, target: str, lines: list[dict[str, Any]], words: EffectWords
) -> str:
    """The one-line summary of an attack."""
    several = any(len(line["effects"]) > 1 for line in lines)
    text = f"{attacker} attacks {target}: " + "; ".join(
        line_words(line, words, several_targets=several) for line in lines
    )
    return text[:500]


def die_text(die: dict[str, Any]) -> str:
    """ "d6 5" or "d6 5→3" when a modifier changed the value."""
    shown = f"d{die['sides']} {die['natural']}"
    if die["value"] != die["natural"]:
        shown += f"→{die['value']}"
    return shown


def entry_text(entry: LogEntry, rules: Ruleset) -> str:
    """One entry as a forum block: header, dice by line, result, odds."""
    row = entry.row
    who = f" ({entry.actor_name})" if entry.actor_name else ""
    seed = f", seed {row.seed}" if row.seed is not None else ""
    header = f"#{row.seq} {row.kind}{who}{seed}"
    if entry.undone_by is not None:
        # kept in the log, struck through (BBCode, as forums read it) and said in words (P20)
        header += f" (undone by #{entry.undone_by})"
    lines = [header, row.summary]
    for line in entry.dice:
        if "dice" not in line:
            continue
        lines.append(f"  {line['label']}")
        for die in line["dice"]:
            lines.append(f"    {die['purpose']}: {die_text(die)}")
        if line.get("effects") or line.get("skipped"):
            several = len(line["effects"]) > 1
            lines.append(f"    = {line_words(line, rules.effect_words, several_targets=several)}")
    odds = entry.odds
    if odds:
        lines.append("  odds before rolling:")
        lines += [f"    {text}" for text in rules.odds_words(odds)]
    if entry.undone_by is not None:
        body = "\n".join(lines[1:])
        return f"{header}\n[s]{body}[/s]"
    return "\n".join(lines)


def export_text(view: BattleView) -> str:
    """The whole battle as plain text for a forum post."""
    out = [f"Battle: {view.battle.name}"]
    turn = view.turn_side
    if turn is not None:
        out.append(f"Round {view.battle.round}, {turn.name}'s turn")
    out.append("")
    for side in view.sides:
        out.append(f"{side.name}:")
        for unit in side.units:
            out.append(f"  {unit.row.name} — {unit.status_text}")
        out.append("")
    out.append("Score:")
    for side in view.sides:
        out.append(
            f"  {side.name}: {side.units_left} left, {side.figures_out} out, "
            f"{side.destroyed_text} destroyed"
        )
    out.append("")
    out.append("Log:")
    for entry in view.entries:
        out.append("")
        out.append(entry_text(entry, view.ruleset))
    out.append("")
    out.append("(BrikForge battle log: every die, seeded and replayable)")
    return "\n".join(out) + "\n"

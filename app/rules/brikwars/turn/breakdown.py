"""The step-by-step breakdown of a line: its Action roll, modifiers and Damage against
Armour, in words and figures."""

from __future__ import annotations

from app.rules.brikwars.attacks import ActionRoll, Attack, Target
from app.rules.brikwars.figures import inches
from app.rules.brikwars.turn.results import Step
from app.rules.brikwars.turn.situation import TurnSituation
from app.rules.dice import Pool


def action_steps(action: ActionRoll | None, parts: list[tuple[str, int]]) -> list[Step]:
    """The Action roll: its die and Use, each modifier that applies, and what it needs."""
    if action is None:
        return [Step("Action roll", "automatic hit")]
    steps = [Step("Action roll", f"d{action.die} against Use {action.use}")]
    steps += [Step(label, f"{value:+d}") for label, value in parts if value]
    rest = action.modifier - sum(value for _, value in parts)
    if rest:  # what the attack adds itself: the Auto Penalty of Arc Fire and Bursts
        steps.append(Step("Auto Penalty" if rest < 0 else "other modifiers", f"{rest:+d}"))
    need = action.use - action.modifier
    if need <= 1:
        text = "hits on 2 or more (a natural 1 always fails)"
    elif need >= action.die:
        text = f"hits only on a natural {action.die} (Critical Success)"
    else:
        text = f"needs a natural {need}+ (1 always fails, {action.die} always hits)"
    steps.append(Step("to hit", text))
    return steps


def modifier_parts(
    situation: TurnSituation, target: Target | None, out_of_range: int
) -> list[tuple[str, int]]:
    """The named Action modifiers of the situation (zero ones are left out of the steps).

    Out of Range names how far beyond its Range the target stands, not the Range itself:
    'Out of Range: at 20", 8" beyond its Range' (a started inch counts, ruling A1).
    """
    at = "" if situation.distance is None else f"at {inches(situation.distance)}, "
    return [
        ("target size and visibility", 0 if target is None else target.size_modifier),
        (f"Out of Range: {at}{inches(out_of_range)} beyond its Range", -out_of_range),
        ("Firing Blind", -5 * situation.firing_blind),
        ("Outnumbered", -situation.outnumbered),
        ("Gunnery Support", situation.gunnery_support),
        ("Homing In", situation.homing_in),
    ]


def damage_steps(attack: Attack, target: Target) -> list[Step]:
    """The Damage roll against the target's Armour, and what each result does."""
    pool = attack.pool()
    armour = target.armour
    steps = [Step("Damage", pool_text(pool))]
    steps.append(Step("against Armour", str(armour)))
    if attack.situation.out_of_range and not attack.damage.explosion:
        steps.append(Step("Out of Range", f"-{attack.situation.out_of_range} on each damage die"))
    steps.append(
        Step(
            "outcome",
            "Damage > Armour destroys"
            + (' (1" of Size Damage on this Creation)' if target.takes_size_damage else "")
            + "; equal: Something Bad; less: no effect",
        )
    )
    return steps


def pool_text(pool: Pool) -> str:
    """A pool as it is written: ``2d6 + 1d10 (+1 per die) +2``."""
    parts = []
    for d in pool.dice:
        text = f"{d.count}d{d.sides}"
        if d.per_die:
            text += f" ({d.per_die:+d} per die)"
        parts.append(text)
    return " + ".join(parts) + (f" {pool.modifier:+d}" if pool.modifier else "")

"""Arc Fire and Bursts: Burnination, Your Mama and ShotGun Wedding with forced dice, and the
exact odds (jam rule included) against a brute-force walk over every Action face."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from app.rules.brikwars import Armour, weapon_stats
from app.rules.brikwars.attacks import ActionRoll, ArcFire, ArcTarget, Burst, Target
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.errors import InvalidInput, TooMuchWork
from tests.rules.brikwars.attack_support import Forced, G, damage_vs_armour

PEASANT = Target.minifig()


def burnination() -> ArcFire:
    flame = weapon_stats("flamethrower", size=3)
    assert (flame.use, flame.range_inches, str(flame.damage)) == (4, 8, "3d4 Fire")
    assert flame.damage is not None and flame.use is not None
    cottage = Target(Armour(dice=2, sides=10), kind="creation", reach=4, effective_size=6)
    return ArcFire(
        "flamethrower",
        ActionRoll(6, flame.use),
        flame.damage,
        arc=1,
        targets=(
            ArcTarget(cottage),
            ArcTarget(PEASANT),
            ArcTarget(PEASANT),
            ArcTarget(PEASANT, out_of_range=1),
        ),
    )


def test_burnination_four_targets_with_forced_dice() -> None:
    """Chapter 8, "Fire Example: Burnination"."""
    arc = burnination()
    shots = arc.shots()
    # The cottage: +2 Action and Damage for the 4" in the Arc, -1 Auto Penalty.
    assert shots[0].attack.action_roll() == ActionRoll(6, 4, 1)
    assert shots[0].attack.pool().modifier == 2
    # The far peasant: -1 Auto Penalty, -1 Out of Range, -1 on every damage die.
    assert shots[3].attack.action_roll() == ActionRoll(6, 4, -2)
    assert shots[3].attack.pool().dice[0].per_die == -1
    rng = Forced([1, 4, 5, 2, 1, 3, 6, 3, 1, 2, 2])
    r = arc.roll(rng)
    assert rng.done()
    assert [s.outcome for s in r.shots] == ["miss", "miss", "destroyed", "something_bad"]
    assert [s.on_fire for s in r.shots] == [False, False, True, True]
    last = [d for d in r.dice if d.target == 3]
    assert [(d.purpose, d.natural, d.value) for d in last] == [
        ("action", 6, 4),
        ("damage", 3, 2),
        ("damage", 1, 0),
        ("damage", 2, 1),
        ("damage (Over the Top)", 2, 1),
    ]
    assert r.shots[3].damage == 4 and not r.inoperative
    odds = arc.odds()
    assert odds.inoperative == pytest.approx(0.0, abs=1e-12)  # FlameThrowers do not jam
    assert odds.targets[3].on_fire == pytest.approx(odds.targets[3].damaged)
    assert odds.targets[3].on_fire > 0


def test_your_mama_three_attacks_at_plus_two_damage() -> None:
    """Chapter 8, "Arc Example: Your Mama": Arc 2, she spans both points, Size 4"."""
    flamegun = weapon_stats("flamegun")
    assert flamegun.damage is not None and flamegun.use is not None
    mama = Target(Armour(dice=2, sides=6), kind="hero", reach=4)
    arc = ArcFire(
        "flamethrower",
        ActionRoll(6, flamegun.use),
        flamegun.damage,
        arc=2,
        targets=(ArcTarget(mama, spans=2),),
    )
    shots = arc.shots()
    assert len(shots) == 3
    for shot in shots:
        assert shot.attack.action_roll().modifier == 0  # +2 Size cancels -2 Auto Penalty
        assert shot.attack.pool().modifier == flamegun.damage.modifier + 2
    rng = Forced([3, 3, 2, 3, 1, 5, 2, 1, 2])
    r = arc.roll(rng)
    assert rng.done()
    assert [s.damage for s in r.shots] == [3 + 1 + 2, None, 2 + 1 + 2]
    assert [s.outcome for s in r.shots] == ["destroyed", "miss", "destroyed"]
    assert odds_sum(arc) == pytest.approx(1.0, abs=1e-9)


def odds_sum(arc: ArcFire) -> float:
    t = arc.odds().targets[0]
    return t.miss + t.no_effect + t.something_bad + t.destroyed


def test_shotgun_wedding_every_damage_expression() -> None:
    """Chapter 8, "BlastGun Example: ShotGun Wedding": 1d8+1 − distance, size on damage."""
    shotgun = weapon_stats("shotgun")
    assert shotgun.damage is not None and shotgun.use is not None
    assert str(shotgun.damage) == "1d8+1 − distance"
    baby = {"small": "2x2"}
    guests = [
        ("Constance", Fraction(1, 2), {}, 1),  # 1d8+1
        ("her baby", Fraction(1, 2), baby, 0),  # 1d8
        ("Wooyang", 1, {}, 0),  # 1d8
        ("Virginia", 2, {"visible_sections": 2}, -2),  # 1d8-2
        ("her left baby", 2, baby, -2),  # 1d8-2
        ("Purity", 3, {"visible_sections": 1}, -4),  # 1d8-4
        ("her baby", 3, {"small": "1x1"}, -4),  # 1d8-4
        ("the parson", 4, {}, -3),  # 1d8-3
    ]
    arc = ArcFire(
        "blastgun",
        ActionRoll(6, shotgun.use),
        shotgun.damage,
        arc=1,
        targets=tuple(ArcTarget(Target(**kw), distance=d) for _, d, kw, _ in guests),
    )
    assert arc.auto_penalty == 0
    for shot, (_, _, _, modifier) in zip(arc.shots(), guests, strict=True):
        pool = shot.attack.pool()
        assert (pool.dice[0].count, pool.dice[0].sides, pool.modifier) == (1, 8, modifier)
    # Wooyang hit with a 7: 7 > 4 destroyed, and Knocked Back 1" (he took damage).
    odds = arc.odds()
    assert odds.targets[2].knockback == pytest.approx(odds.targets[2].damaged)
    assert odds.targets[0].destroyed > odds.targets[7].destroyed


def test_machinegun_jam_loses_the_remaining_shots() -> None:
    gun = ArcFire(
        "machinegun",
        ActionRoll(6, 3),
        DamageExpr(2, 6),
        arc=3,
        targets=(ArcTarget(PEASANT), ArcTarget(PEASANT), ArcTarget(PEASANT)),
    )
    # Natural 2 is below the Auto Penalty 3: the shot fires (and misses), the gun jams.
    r = gun.roll(Forced([6, 3, 4, 2, 2]))
    assert [(s.outcome, s.lost, s.jammed) for s in r.shots] == [
        ("destroyed", False, False),
        ("miss", False, True),
        ("miss", True, False),
    ]
    assert r.inoperative
    odds = gun.odds()
    assert odds.fired == pytest.approx((1.0, 4 / 6, (4 / 6) ** 2))
    assert odds.inoperative == pytest.approx(1 - (4 / 6) ** 3)
    assert odds.expected_lost == pytest.approx(2 / 6 + 1 - (4 / 6) ** 2)


def _shot_rows(die: int, use: int, mod: int, groups: list[G], modifier: int, armour: int):
    """Per natural face: (miss, none, sb, destroyed) from the face-by-face oracle."""
    plain = damage_vs_armour(groups, modifier, 0, {armour: 1.0}, 5)
    ott = damage_vs_armour([*groups, groups[0]], modifier, 0, {armour: 1.0}, 5)
    rows = []
    for face in range(1, die + 1):
        if face == 1 or (face != die and face + mod < use):
            rows.append((1.0, 0.0, 0.0, 0.0))
            continue
        t = ott if face == die else plain
        rows.append((0.0, t["less"] + t["critical_failure"], t["equal"], t["greater"]))
    return rows


def test_volley_odds_match_a_walk_over_every_action_face() -> None:
    """MachineGun Arc of 2 over two minifigs, the second spanning 1 point (3 shots)."""
    gun = ArcFire(
        "machinegun",
        ActionRoll(6, 3, 1),
        DamageExpr(1, 6, 1),
        arc=2,
        targets=(ArcTarget(PEASANT), ArcTarget(Target(reach=2), spans=1)),
    )
    odds = gun.odds()
    rows = [
        _shot_rows(6, 3, 1 - 2, [G(6)], 1, 4),
        _shot_rows(6, 3, 1 - 2 + 1, [G(6)], 2, 4),  # +1 Size on Action and Damage
        _shot_rows(6, 3, 1 - 2 + 1, [G(6)], 2, 4),
    ]
    targets = [0, 1, 1]
    worst = [[0.0] * 4 for _ in range(2)]
    hits = [[0.0] * 3 for _ in range(2)]
    inoperative = 0.0
    for faces in itertools.product(range(1, 7), repeat=3):
        p_faces = (1 / 6) ** 3
        fired, jammed = [], False
        for f in faces:
            fired.append(not jammed)
            jammed = jammed or f < 2  # a fired shot's natural 1 is below the Auto Penalty 2
        inoperative += p_faces * jammed
        # every outcome of the fired shots
        options = [
            list(enumerate(rows[i][f - 1])) if fired[i] else [(0, 1.0)] for i, f in enumerate(faces)
        ]
        for combo in itertools.product(*options):
            p = p_faces
            for _, q in combo:
                p *= q
            if p == 0:
                continue
            for t in (0, 1):
                levels = [lvl for (lvl, _), tt in zip(combo, targets, strict=True) if tt == t]
                worst[t][max(levels)] += p
                hits[t][sum(1 for lvl in levels if lvl == 3)] += p
    tol = 5e-4  # the oracle's chains stop at depth 5
    assert odds.inoperative == pytest.approx(inoperative, abs=1e-12)
    for t, target in enumerate(odds.targets):
        got = (target.miss, target.no_effect, target.something_bad, target.destroyed)
        assert got == pytest.approx(tuple(worst[t]), abs=tol)
        assert target.destroying_hits == pytest.approx(
            tuple(hits[t][: len(target.destroying_hits)]), abs=tol
        )


def test_burst_odds_and_jam() -> None:
    burst = Burst(ActionRoll(8, 2), DamageExpr(2, 6), 3, Target(Armour(dice=2, sides=6)))
    odds = burst.odds()
    assert odds.inoperative == pytest.approx(1 - (6 / 8) ** 3)  # naturals 1 and 2 jam
    t = odds.targets[0]
    assert t.shots == 3
    assert sum(t.destroying_hits) == pytest.approx(1.0, abs=1e-9)
    assert t.miss + t.no_effect + t.something_bad + t.destroyed == pytest.approx(1.0, abs=1e-9)
    r = burst.roll(Forced([8, 5, 3, 2, 3, 3, 2]))
    assert r.shots[0].outcome == "destroyed" and r.shots[0].damage == 10
    assert [s.jammed for s in r.shots] == [False, True, False]
    assert r.shots[2].lost and r.inoperative


def test_area_inputs() -> None:
    with pytest.raises(InvalidInput):
        ArcFire(
            "flamethrower", ActionRoll(6, 3), DamageExpr(1, 4), arc=0, targets=(ArcTarget(PEASANT),)
        )
    with pytest.raises(InvalidInput):
        ArcFire("gun", ActionRoll(6, 3), DamageExpr(1, 4), targets=(ArcTarget(PEASANT),))  # type: ignore[arg-type]
    with pytest.raises(TooMuchWork):
        Burst(ActionRoll(6, 3), DamageExpr(1, 6), 61)

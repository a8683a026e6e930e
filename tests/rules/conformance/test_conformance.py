"""What every rule system must do behind the ``Ruleset`` interface, checked the same way for
each registered ruleset and for a small fake one written against the interface alone.

A new rule system passes this suite unchanged: it is parametrised over the registry.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from dataclasses import replace

import pytest

from app.rules.errors import InvalidInput
from app.rules.fields import parse_field
from app.rules.registry import RULESETS
from app.rules.ruleset import Attack, Fighter, Ruleset, SampleAttack, TargetInput
from tests.rules.conformance.fake_ruleset import RULESET as FAKE

ALL: list[Ruleset] = [*RULESETS.values(), FAKE]
ROLLS = 20_000


@pytest.fixture(params=ALL, ids=lambda r: r.id)
def ruleset(request: pytest.FixtureRequest) -> Ruleset:
    return request.param  # type: ignore[no-any-return]


SUMMARY_NAMED = ("name", "kind", "weapons")  # named by the summary itself


def _attack(ruleset: Ruleset, sample: SampleAttack) -> Attack:
    options = ruleset.decode_options(None)
    targets = [TargetInput(ruleset.decode_unit(t)) for t in sample.targets]
    attacker = ruleset.decode_unit(sample.attacker)
    return ruleset.attack(attacker, sample.weapons, targets, sample.situation, options)


def test_it_is_a_ruleset_with_an_identity(ruleset: Ruleset) -> None:
    assert isinstance(ruleset, Ruleset)
    assert ruleset.id and ruleset.name and ruleset.summary and ruleset.rules_version
    assert len(ruleset.sample_attacks) >= 3


def test_units_round_trip(ruleset: Ruleset) -> None:
    for sample in ruleset.sample_attacks:
        for data in (sample.attacker, *sample.targets):
            unit = ruleset.decode_unit(data)
            encoded = ruleset.encode_unit(unit)
            assert ruleset.decode_unit(encoded) == unit
            assert ruleset.encode_unit(ruleset.decode_unit(encoded)) == encoded


def test_options_round_trip_with_every_option_changed(ruleset: Ruleset) -> None:
    default = ruleset.decode_options(None)
    assert ruleset.decode_options(ruleset.encode_options(default)) == default
    for field in ruleset.option_fields:
        assert parse_field(field, field.default) == field.default
        if field.kind == "flag":
            other: object = not field.default
        elif field.kind == "choice":
            other = next(v for v in field.choice_values if v != field.default)
        else:
            continue
        changed = ruleset.decode_options({field.name: other})
        assert changed != default
        assert ruleset.encode_options(changed)[field.name] == other
        assert ruleset.decode_options(ruleset.encode_options(changed)) == changed


@pytest.mark.parametrize(
    "bad",
    [
        {"weapons": "none"},
        {"name": "X", "no_such_field": 1},
    ],
)
def test_a_bad_unit_names_its_field(ruleset: Ruleset, bad: dict[str, object]) -> None:
    with pytest.raises(InvalidInput) as err:
        ruleset.decode_unit(bad)
    assert err.value.field and err.value.reason


def test_bad_options_and_bodies_name_their_field(ruleset: Ruleset) -> None:
    with pytest.raises(InvalidInput) as err:
        ruleset.decode_options({"no_such_option": True})
    assert err.value.field == "no_such_option"
    with pytest.raises(InvalidInput) as err:
        ruleset.attack_from_body({})
    assert err.value.field


def test_figures_fill_every_column(ruleset: Ruleset) -> None:
    options = ruleset.decode_options(None)
    for sample in ruleset.sample_attacks:
        unit = ruleset.decode_unit(sample.attacker)
        figures = ruleset.unit_figures(unit, options)
        assert {c.key for c in ruleset.unit_columns} <= set(figures.cells)
        for weapon in figures.weapons:
            assert {c.key for c in ruleset.weapon_columns} <= set(weapon.cells)
        assert figures.cost >= 0 and figures.cost_text
        lines = ruleset.unit_lines(unit, options)
        assert lines and all(isinstance(line, str) and line for line in lines)
        assert figures.name in lines[0]


def test_the_builders_members_agree_with_the_figures(ruleset: Ruleset) -> None:
    """Costs, a weapon's figures and the API's fields, asked one by one (change summaries,
    the preview), agree with the unit's figures, which the builder computes once."""
    options = ruleset.decode_options(None)
    for sample in ruleset.sample_attacks:
        unit = ruleset.decode_unit(sample.attacker)
        figures = ruleset.unit_figures(unit, options)
        assert ruleset.unit_cost(unit, options) == figures.cost
        assert ruleset.format_cost(figures.cost) == figures.cost_text
        json.dumps(ruleset.unit_json(figures))
        for i, weapon in enumerate(figures.weapons):
            alone = ruleset.weapon_figures(unit, i, options)
            assert (alone.name, alone.cells, alone.cost) == (weapon.name, weapon.cells, weapon.cost)
            assert ruleset.weapon_cost(unit, i, options) == weapon.cost
            assert ruleset.weapon_name(unit, i)
            own = [f for f in figures.findings + weapon.findings if f.weapon == i]
            assert list(alone.findings) == own
            json.dumps(ruleset.weapon_json(weapon))
        own = {k: v for k, v in ruleset.encode_unit(unit).items() if k not in SUMMARY_NAMED}
        words = ruleset.field_words(own)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in words.items())
        change = ruleset.format_cost_change(figures.cost)
        assert change.startswith("+") and ruleset.format_cost_change(-figures.cost) != change
        total = figures.cost + figures.cost
        assert ruleset.budget_findings(total, 0, options) == ruleset.army_findings(
            [unit, unit], 0, options
        )


def test_the_sample_army_is_ready_and_legal(ruleset: Ruleset) -> None:
    """ "Start from an example": every unit of the sample army decodes and round-trips, no
    unit, weapon or army finding is an error (the budget holds its units, counts counted),
    and the builder's calculator pair exists (a unit with a weapon and another unit)."""
    options = ruleset.decode_options(None)
    sample = ruleset.sample_army
    assert sample.name and sample.notes and sample.budget > 0 and len(sample.units) >= 2
    army: list[object] = []
    for data in sample.units:
        own = {k: v for k, v in data.items() if k not in ("count", "notes")}
        unit = ruleset.decode_unit(own)
        assert ruleset.decode_unit(ruleset.encode_unit(unit)) == unit
        figures = ruleset.unit_figures(unit, options)
        errors = [f.message for f in figures.findings if f.severity == "error"]
        errors += [f.message for w in figures.weapons for f in w.findings if f.severity == "error"]
        assert errors == [], (data["name"], errors)
        army += [unit] * int(data.get("count", 1))
    found = ruleset.army_findings(army, sample.budget, options)
    assert [f.message for f in found if f.severity == "error"] == []
    assert any(data.get("weapons") for data in sample.units)


def test_an_army_over_budget_is_found(ruleset: Ruleset) -> None:
    options = ruleset.decode_options(None)
    unit = ruleset.decode_unit(ruleset.sample_attacks[0].attacker)
    assert ruleset.army_findings([unit], None, options) == []
    found = ruleset.army_findings([unit, unit], 0, options)
    assert [f.severity for f in found] == ["error"]


def test_the_catalogue_has_unique_ids(ruleset: Ruleset) -> None:
    entries = ruleset.catalogue()
    assert entries and len({e.id for e in entries}) == len(entries)
    for entry in entries:
        for field in entry.fields:
            if field.default is not None:
                assert parse_field(field, field.default) == field.default


def test_odds_sum_to_one(ruleset: Ruleset) -> None:
    for sample in ruleset.sample_attacks:
        odds = _attack(ruleset, sample).odds()
        assert odds.lines and 0.0 <= odds.decisive <= 1.0
        for line in odds.lines:
            for target in line.targets:
                total = sum(o.probability for o in target.outcomes)
                assert total == pytest.approx(1.0, abs=line.truncation_bound + 1e-9)
                assert all(-1e-12 <= o.probability <= 1 + 1e-12 for o in target.outcomes)
            assert sum(p for _, p in line.damage) <= 1 + 1e-9


def test_the_same_seed_gives_the_same_roll(ruleset: Ruleset) -> None:
    for sample in ruleset.sample_attacks:
        attack = _attack(ruleset, sample)
        assert attack.roll(random.Random(7)) == attack.roll(random.Random(7))
        dice = {
            tuple(d.natural for line in attack.roll(random.Random(seed)).lines for d in line.dice)
            for seed in range(40)
        }
        assert len(dice) > 1


def test_seeded_rolls_agree_with_the_odds(ruleset: Ruleset) -> None:
    """20,000 rolls of each sample: every outcome's frequency within 4 standard errors."""
    for sample in ruleset.sample_attacks:
        attack = _attack(ruleset, sample)
        odds = attack.odds()
        counts: list[Counter[str]] = [Counter() for _ in odds.lines]
        for seed in range(ROLLS):
            roll = attack.roll(random.Random(seed))
            assert len(roll.lines) == len(odds.lines)
            for count, line in zip(counts, roll.lines, strict=True):
                (effect,) = [e for e in line.effects if e.target == 0]
                count[effect.outcome] += 1
        for count, line in zip(counts, odds.lines, strict=True):
            target = next(t for t in line.targets if t.target == 0)
            assert set(count) <= {o.key for o in target.outcomes}
            for outcome in target.outcomes:
                p = outcome.probability
                seen = count[outcome.key] / ROLLS
                error = math.sqrt(max(p * (1 - p), 1e-12) / ROLLS)
                assert abs(seen - p) <= 4 * error + 1e-9, (sample.name, outcome.key, seen, p)


# ------------------------------------------------------------------------ battles


def _fighters(ruleset: Ruleset, sample: SampleAttack) -> tuple[Fighter, list[Fighter]]:
    options = ruleset.decode_options(None)
    units = [ruleset.decode_unit(u) for u in (sample.attacker, *sample.targets)]
    fighters = [
        Fighter(key, f"unit {key}", unit, ruleset.initial_state(unit), options)
        for key, unit in enumerate(units, start=1)
    ]
    return fighters[0], fighters[1:]


def test_a_units_state_round_trips_and_stands(ruleset: Ruleset) -> None:
    attacker, targets = _fighters(ruleset, ruleset.sample_attacks[0])
    for fighter in (attacker, *targets):
        data = ruleset.encode_state(fighter.state)
        assert ruleset.decode_state(data) == fighter.state
        assert ruleset.decode_state({}) == ruleset.initial_state(fighter.unit)
        standing = ruleset.standing(fighter)
        assert not standing.out and standing.status
        assert set(standing.actions) <= {a.name for a in ruleset.unit_actions}
    assert {f.name for f in ruleset.battle_situation_fields} <= {
        f.name for f in ruleset.situation_fields
    }


def test_three_rolls_change_the_state_and_the_stored_befores_restore_it(ruleset: Ruleset) -> None:
    """A battle through the interface alone: three seeded rolls, each applied to the units'
    states and logged as JSON; undoing them in turn (the stored before states) gives back
    every state, and the same seeds give the same battle again."""
    sample = ruleset.sample_attacks[0]

    def play() -> tuple[list[dict[int, dict[str, object]]], list[object]]:
        attacker, targets = _fighters(ruleset, sample)
        units = {f.key: f for f in (attacker, *targets)}
        history: list[dict[int, dict[str, object]]] = []
        logs: list[object] = []
        for seed in range(3):
            a = units[attacker.key]
            ts = [(units[t.key], {}) for t in targets]
            if any(ruleset.standing(t).out for t, _ in ts):
                break
            made = ruleset.battle_attack(a, sample.weapons, ts, sample.situation)
            odds = made.attack.odds()
            roll = made.attack.roll(random.Random(seed))
            after = ruleset.after_attack(made, roll)
            assert len(after) == 1 + len(ts)
            logs.append((ruleset.log_odds(made, odds), ruleset.log_roll(made, roll)))
            assert ruleset.odds_words(ruleset.log_odds(made, odds))
            keys = [a.key, *(t.key for t, _ in ts)]
            history.append({k: ruleset.encode_state(units[k].state) for k in keys})
            for key, state in zip(keys, after, strict=True):
                units[key] = replace(
                    units[key], state=ruleset.decode_state(ruleset.encode_state(state))
                )
        history.append({k: ruleset.encode_state(f.state) for k, f in units.items()})
        return history, logs

    history, logs = play()
    assert len(logs) >= 1
    states = dict(history[-1])
    for before in reversed(history[:-1]):  # Undo, newest first
        states |= before
    attacker, targets = _fighters(ruleset, sample)
    assert states == {f.key: ruleset.encode_state(f.state) for f in (attacker, *targets)}
    assert play() == (history, logs)


def test_unit_actions_are_named_and_refused_by_field(ruleset: Ruleset) -> None:
    assert ruleset.unit_actions and len({a.name for a in ruleset.unit_actions}) == len(
        ruleset.unit_actions
    )
    attacker, _ = _fighters(ruleset, ruleset.sample_attacks[0])
    for action in ruleset.unit_actions:
        assert "{unit}" in action.label
        try:
            result = ruleset.apply_action(action.name, attacker, {}, random.Random(1))
        except InvalidInput as err:
            assert err.field and err.reason
        else:
            assert result.summary
            assert ruleset.decode_state(ruleset.encode_state(result.after)) == result.after


def test_turn_reset_is_a_unit_action_taken_without_fields(ruleset: Ruleset) -> None:
    """End turn takes the ``turn_reset`` action with no fields on each unit whose standing
    has it: it must be one of the unit actions, asking nothing, at a turn or a round."""
    reset = ruleset.turn_reset
    if reset is None:
        return
    assert reset.at in ("turn", "round")
    named = {a.name: a for a in ruleset.unit_actions}
    assert reset.action in named
    assert not named[reset.action].fields
    attacker, _ = _fighters(ruleset, ruleset.sample_attacks[0])
    if reset.action in ruleset.standing(attacker).actions:
        result = ruleset.apply_action(reset.action, attacker, {}, random.Random(1))
        assert ruleset.decode_state(ruleset.encode_state(result.after)) == result.after

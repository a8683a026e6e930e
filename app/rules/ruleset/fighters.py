"""A unit in a battle as a ruleset is given it and shows it, its named actions, and an attack
checked against the battle's state (the shared shapes of battles)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.rules.fields import InputField
from app.rules.ruleset.odds import Attack


@dataclass(frozen=True, slots=True)
class Fighter:
    """A unit in a battle as the ruleset is given it: ``key`` (the battle unit's id, which
    the state may keep to name another unit), its name, the unit as copied when the battle
    began (``decode_unit``), its state (``decode_state``) and its army's options; ``side``
    its side's name; ``others``: the battle's other units as they stand (given to a named
    action, which may reach them: an explosion catching figurines of either side)."""

    key: int
    name: str
    unit: Any
    state: Any
    options: Any
    side: str = ""
    others: tuple[Fighter, ...] = ()


@dataclass(frozen=True, slots=True)
class BattleWeapon:
    """A weapon of a unit in a battle as pages show it: cells by the ruleset's own keys;
    ``ready``: it may fire now (False: it needs an action first, a Reload say); ``fires``:
    it is a weapon to attack with at all (not armour or a shield)."""

    index: int
    name: str
    cells: Mapping[str, str]
    ready: bool = True
    fires: bool = True


@dataclass(frozen=True, slots=True)
class Standing:
    """A unit in a battle as it now stands.

    ``unit``: the ruleset's unit with its state applied (what attacks use); ``cells``: its
    figures as shown, by the ruleset's own keys; ``badges``: its state in words; ``out``: out
    of the fight (takes no action, is no target); ``status``: its line in the forum export;
    ``actions``: the names of the ``unit_actions`` it may take now; ``form``: attack-form
    values its state suggests; ``state_out``: its state as the API shows it; ``fate``: what
    the end of the battle made of it, in words (Degrees: "in Thinny custody"; empty: none),
    which the final summary counts units by.
    """

    unit: Any
    cells: Mapping[str, str]
    weapons: tuple[BattleWeapon, ...]
    badges: tuple[str, ...]
    out: bool
    status: str
    actions: tuple[str, ...] = ()
    form: Mapping[str, str] = field(default_factory=dict)
    state_out: Mapping[str, Any] = field(default_factory=dict)
    fate: str = ""


@dataclass(frozen=True, slots=True)
class UnitAction:
    """A named action a unit takes in a battle besides attacking (a Reload, say).

    ``name`` is its key (in URLs and the log's ``kind``); ``label`` its button, where
    ``{unit}`` stands for the unit's name; ``fields`` what it asks for; ``urgent``: shown as
    a plain (not secondary) button, something the player must not forget."""

    name: str
    label: str
    fields: tuple[InputField, ...] = ()
    urgent: bool = False


@dataclass(frozen=True, slots=True)
class TurnReset:
    """What the rules do at their own round boundary in a battle played by turns: the unit
    action ``action`` (one of ``unit_actions``, taken with no fields) is taken by each unit
    that may take it then (its ``Standing.actions`` has it). ``at="turn"``: the units of a
    side as its turn begins (D20: a figurine's new turn ends Shaken; BrikWars: the Burning
    Roll "at the beginning of his turn"); ``at="round"``: every side's units as a new round
    begins (Degrees: AP per round)."""

    action: str
    at: Literal["turn", "round"] = "turn"


@dataclass(frozen=True, slots=True)
class ActionResult:
    """What an action did: the unit's state after, the log's summary, and its dice (as
    the log keeps them: a list of lines like ``log_roll``'s, empty when nothing is rolled);
    ``others``: the state after of each other unit it changed, by its key (an explosion's
    figurines); ``odds``: the odds its roll had, as ``log_odds`` keeps them (None: none)."""

    after: Any
    summary: str
    dice: tuple[Mapping[str, Any], ...] = ()
    others: Mapping[int, Any] = field(default_factory=dict)
    odds: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class BattleAttack:
    """An attack in a battle, checked against the units' state: ``attack`` (made through
    ``Ruleset.attack``, with what the state adds) computes the odds and rolls; ``situation``
    is the situation as the log keeps it; ``shown`` what the state added, shown with the
    odds and in the API's preview (``{"homing_in": 1}``, say). Two equal attacks have equal
    odds (a ruleset whose attacks do not compare by value just has them computed again)."""

    attack: Attack
    attacker: Fighter
    targets: tuple[Fighter, ...]
    situation: Mapping[str, Any]
    shown: Mapping[str, Any] = field(default_factory=dict)

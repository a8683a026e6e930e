"""House rules of a Degrees army (RULINGS 2.3): over budget allowed, fighting in space, the
cost of any catalogue weapon replaced, the text's optional rule that blooms reduce energy
weapons' range, and the other reading wherever the text allows two (docs/rulings.md names
each: a classical ballistic's reveal once a round, a missed Flashback's attack AP only,
Nociception's AP at the hit, no gas-gun repair at the scenario's end)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from app.rules.degrees.catalogue import WEAPONS
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField, parse_fields

OPTION_FIELDS = (
    InputField("allow_over_budget", "Over budget is only a warning", "flag", False),
    InputField(
        "in_space",
        "The army fights in space",
        "flag",
        False,
        help="Ballistics in space are only ever 1° or 2°",
    ),
    InputField(
        "bloom_range",
        "Blooms reduce energy weapons' range",
        "flag",
        False,
        help="The text's optional rule: 1/2 at bloom 1, 1/3 at bloom 2, ...",
    ),
    InputField(
        "reveal_once",
        "A classical ballistic reveals its attacker once a round",
        "flag",
        False,
        help="Default: a step each shot",
    ),
    InputField(
        "flashback_attack_ap",
        "A missed Flashback gives back only its attack AP",
        "flag",
        False,
        help="Default: all the shot's AP (its extended degrees' too)",
    ),
    InputField(
        "nociception_at_hit",
        "A dampened Nociception's AP are lost at the hit",
        "flag",
        False,
        help="Default: at each new round while it is dampened",
    ),
    InputField(
        "no_gas_repair",
        "Damaged gas guns are not repaired when the scenario ends",
        "flag",
        False,
        help="No spare parts and tools: the reduced max stays",
    ),
    InputField(
        "costs",
        "Weapon costs replaced (DP)",
        "text",
        "",
        high=2000,
        help="Catalogue id = DP, comma-separated: 'gamma_gun = 7, pistol = 0'",
    ),
)
_COST = re.compile(r"\s*([a-z0-9_]+)\s*=\s*([0-9]{1,3})\s*")


@dataclass(frozen=True, slots=True)
class DegreesOptions:
    allow_over_budget: bool = False
    in_space: bool = False
    costs: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    bloom_range: bool = False
    reveal_once: bool = False
    flashback_attack_ap: bool = False
    nociception_at_hit: bool = False
    no_gas_repair: bool = False

    def _key(self) -> tuple[Any, ...]:
        return (
            self.allow_over_budget,
            self.in_space,
            tuple(sorted(self.costs.items())),
            self.bloom_range,
            self.reveal_once,
            self.flashback_attack_ap,
            self.nociception_at_hit,
            self.no_gas_repair,
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DegreesOptions) and self._key() == other._key()


def parse_costs(text: str) -> dict[str, int]:
    """``'gamma_gun = 7, pistol = 0'`` as a mapping; an unknown weapon is refused by name."""
    costs: dict[str, int] = {}
    for part in (p for p in text.split(",") if p.strip()):
        match = _COST.fullmatch(part)
        if match is None:
            raise InvalidInput("costs", f"{part.strip()!r} is not 'catalogue id = DP'")
        weapon, dp = match.group(1), int(match.group(2))
        if weapon not in WEAPONS:
            raise InvalidInput("costs", f"{weapon!r} is not a Degrees weapon")
        costs[weapon] = dp
    return costs


def options_from(
    allow_over_budget: FieldValue = False,
    in_space: FieldValue = False,
    costs: FieldValue = "",
    bloom_range: FieldValue = False,
    reveal_once: FieldValue = False,
    flashback_attack_ap: FieldValue = False,
    nociception_at_hit: FieldValue = False,
    no_gas_repair: FieldValue = False,
) -> DegreesOptions:
    """The house rules from their fields' values (``costs`` as its text)."""
    return DegreesOptions(
        bool(allow_over_budget),
        bool(in_space),
        MappingProxyType(parse_costs(str(costs or ""))),
        bool(bloom_range),
        bool(reveal_once),
        bool(flashback_attack_ap),
        bool(nociception_at_hit),
        bool(no_gas_repair),
    )


def decode_options(data: Mapping[str, Any] | None) -> DegreesOptions:
    """The house rules from their JSON, the first wrong option refused by name (the
    ruleset's own reader, ``RulesetBase.decode_options`` into ``options_from``, names every
    one)."""
    data = dict(data or {})
    known = {f.name for f in OPTION_FIELDS}
    for key in data:
        if key not in known:
            raise InvalidInput(str(key), "unknown rule option")
    values, errors = parse_fields(OPTION_FIELDS, data)
    if errors:
        name, reason = next(iter(errors.items()))
        raise InvalidInput(name, reason)
    return options_from(**values)


def encode_options(options: DegreesOptions) -> dict[str, Any]:
    return {
        "allow_over_budget": options.allow_over_budget,
        "in_space": options.in_space,
        "costs": ", ".join(f"{k} = {v}" for k, v in sorted(options.costs.items())),
        "bloom_range": options.bloom_range,
        "reveal_once": options.reveal_once,
        "flashback_attack_ap": options.flashback_attack_ap,
        "nociception_at_hit": options.nociception_at_hit,
        "no_gas_repair": options.no_gas_repair,
    }

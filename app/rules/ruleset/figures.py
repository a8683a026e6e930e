"""What the builder shows: findings, columns, glossary words, a unit's and a weapon's figures,
catalogue entries (the shared shapes of building)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.rules.fields import FormSplit, InputField

Severity = Literal["error", "warning"]
JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Finding:
    """A build rule's verdict: an ``error`` makes the army illegal, a ``warning`` does not.
    ``unit`` and ``weapon`` are positions (None: the army, or the whole unit)."""

    severity: Severity
    code: str
    message: str
    unit: int | None = None
    weapon: int | None = None


@dataclass(frozen=True, slots=True)
class Column:
    """A stat column of the builder's tables: its key in ``cells`` and its heading.
    ``numeric`` cells are right-aligned; ``heading`` is the builder table's heading where it
    says more than ``label`` (which prints and stat cards use)."""

    key: str
    label: str
    numeric: bool = False
    heading: str = ""


@dataclass(frozen=True, slots=True)
class GlossaryTerm:
    """A rules word the pages use, explained once: ``term`` as the pages write it (and its
    ``aliases``: 'Defl.', 'Armor'), a one-sentence ``explanation`` shown on hover and focus,
    and ``rule``, where the rules say it ('BrikWars 2010, 5.1 Making Attacks; Rulings 1.1')."""

    term: str
    explanation: str
    rule: str
    aliases: tuple[str, ...] = ()

    @property
    def anchor(self) -> str:
        """Its id on the glossary page, within its ruleset's ('something-bad')."""
        return re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


def glossary_term(glossary: Sequence[GlossaryTerm], word: str) -> GlossaryTerm | None:
    """The entry for a word as a page writes it (any case, or one of its aliases).

    >>> use = GlossaryTerm("Use", "What an Action Roll must reach to hit.", "5.1")
    >>> glossary_term((use,), "use") is use, glossary_term((use,), "Range")
    (True, None)
    """
    key = word.strip().casefold()
    for entry in glossary:
        if key == entry.term.casefold() or key in (a.casefold() for a in entry.aliases):
            return entry
    return None


@dataclass(frozen=True, slots=True)
class WeaponFigures:
    """One weapon's figures as shown: name, cells by column key, cost in points.

    ``cost`` is in the ruleset's own numbers (exact where its rules are: BrikWars gives a
    ``Fraction``), what ``format_cost`` writes and sums of costs take. ``type_name`` is the
    weapon type's name and ``label`` the user's own name for it (the editor's headings);
    ``note`` a line shown under the name (ammunition, say); ``fires``: it makes attacks of
    its own, so the calculator offers it as a weapon to fire (armour and other equipment do
    not). ``detail`` is the ruleset's own: what its templates (``templates/rulesets/<id>/``)
    and its ``weapon_json`` read."""

    name: str
    cells: Mapping[str, str]
    cost: Any
    cost_text: str
    findings: tuple[Finding, ...] = ()
    type_name: str = ""
    label: str = ""
    note: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    fires: bool = True


@dataclass(frozen=True, slots=True)
class UnitFigures:
    """One unit's figures as shown: cells by column key, its cost, its weapons' figures, and
    the findings of the unit and its weapons.

    ``cost`` is in the ruleset's own numbers (see ``WeaponFigures``). ``kind_text`` is the
    unit's kind as the builder's table shows it (empty: the stored kind, capitalised);
    ``flagged`` the keys of cells over a limit (the page marks them); ``detail`` the
    ruleset's own, for its templates and its ``unit_json``. ``profile`` is what the unit is
    built with beyond its columns and kind, as (label, value) pairs (BrikWars: propulsion,
    Structure Level, Mind, specialties), which the print sheet and the forum text show."""

    name: str
    cells: Mapping[str, str]
    cost: Any
    cost_text: str
    weapons: tuple[WeaponFigures, ...]
    findings: tuple[Finding, ...]
    kind_text: str = ""
    flagged: frozenset[str] = frozenset()
    detail: Mapping[str, Any] = field(default_factory=dict)
    profile: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SampleArmy:
    """A ready, legal army to start from ("Start from an example"), made of the texts' own
    worked examples: its name, budget (in ``cost_unit``), notes, and units as an export
    document writes them (``encode_unit``'s shape, a ``count`` and ``notes`` beside). The
    builder's calculator link pits the first unit with a weapon against the next other unit,
    so the units are listed with the text's attacker first and its target after it."""

    name: str
    budget: int
    notes: str
    units: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """A weapon or equipment type: what the pickers list and the catalogue API serves."""

    id: str
    name: str
    category: str
    summary: str
    fields: tuple[InputField, ...] = ()
    details: Mapping[str, str] = field(default_factory=dict)


def catalogue_split(
    entries: Sequence[CatalogueEntry], more: Mapping[str, frozenset[str]] | None = None
) -> FormSplit:
    """The weapon form's split read off the catalogue: a field applies to the types whose
    entry lists it (``more``: fields the entries do not list, such as a Cannon's Ammo)."""
    every = frozenset(e.id for e in entries)
    names = sorted({f.name for entry in entries for f in entry.fields})
    applies = {
        name: frozenset(e.id for e in entries if any(f.name == name for f in e.fields))
        for name in names
    }
    some = {name: ids for name, ids in applies.items() if ids != every}  # the rest: all
    return FormSplit("type", {**some, **(more or {})})

"""The D20 builder: catalogue, columns, figures, findings and points (RULINGS 3.1-3.2)."""

from __future__ import annotations


class D20Builder:
    """To be written: catalogue, unit_columns, weapon_columns, unit_figures, army_findings,
    budget_findings, weapon_figures, unit_cost, weapon_cost, weapon_name, format_cost,
    format_cost_change, unit_json, weapon_json, unit_lines, template_context."""

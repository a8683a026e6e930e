"""The Degrees builder: catalogue, columns, figures, findings and costs (RULINGS 2.3)."""

from __future__ import annotations


class DegreesBuilder:
    """To be written: catalogue, unit_columns, weapon_columns, unit_figures, army_findings,
    budget_findings, weapon_figures, unit_cost, weapon_cost, weapon_name, format_cost,
    format_cost_change, unit_json, weapon_json, unit_lines, template_context."""

"""The calculators (saved and open) and the rulesets' JSON API."""

"""The manifest of the rule texts' worked examples (one TOML file a ruleset) and its check."""

"""BrikWars: catalogue data and build rules (public API re-exported in a later step)."""

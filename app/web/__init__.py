"""HTTP layer: translates requests into service calls and renders the answers."""

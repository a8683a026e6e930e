"""The JSON twin of every page action, under /api/v1."""

"""Persistence: typed SQLAlchemy models, the engine and the per-request session."""

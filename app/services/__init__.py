"""Use cases: load, call the rules engine, persist, return view data. Never commit."""

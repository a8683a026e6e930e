"""The rules engine: pure Python, no web, database or template imports.

One package per ruleset (``brikwars`` so far) behind the small interface in
``registry``; the dice core lives in ``dice``.
"""

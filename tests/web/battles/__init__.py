"""Battles: the page, the log and its pickers."""

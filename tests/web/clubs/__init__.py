"""Clubs, sharing and deleting."""

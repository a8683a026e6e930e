"""Accounts, logins and sessions."""

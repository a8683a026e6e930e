"""Benchmarks behind `make bench`: each module's run() returns table rows."""

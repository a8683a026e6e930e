"""HTML page routes, one module per feature."""

"""The server as a whole: errors, hostile input, authorisation over every route, limits,
pools, headers, OpenAPI."""

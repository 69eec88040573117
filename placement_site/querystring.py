"""Query-string parsing shared by the list endpoints."""
from placement_site.api import validate


def last_values(query) -> dict:
    """A QueryDict as {key: its last value} (a repeated key keeps the last one)."""
    return {key: query.getlist(key)[-1] for key in query.keys()}


def validate_query(values: dict, schema: dict) -> dict:
    """400 "Invalid query string parameters: ..." unless ``values`` fit ``schema``."""
    return validate(values, schema, problem="Invalid query string parameters")

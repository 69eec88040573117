"""UUIDs as the API receives them: in paths, query strings and bodies."""
import re
import uuid as uuid_lib

# Every spelling of a uuid taken in a path or a query string: 32 hex digits
# in any case with dashes anywhere among them, braces around them and
# ``urn:`` / ``uuid:`` prefixes, as upstream's oslo is_uuid_like takes them
# (it also finds those prefixes in the middle of the digits, which no client
# writes). ``uuid.UUID`` alone reads more, each as some other uuid: a ``0x``
# prefix, spaces, ``_`` between digits, a ``+`` sign, non-ASCII digits.
# Python ``re`` syntax; the OpenAPI document uses it as it stands.
UUID_SPELLING = r"(?:urn:|uuid:)*[{}]*-*(?:[0-9a-fA-F]-*){32}[{}]*"
# What a body's (and GET /resource_providers' ``uuid`` and ``in_tree``)
# ``"format": "uuid"`` takes (placement_core.api._is_uuid_like): a leading
# ``urn:uuid:`` only, around which uuid.UUID and that check also let dashes by.
_DIGITS = "(?:[0-9a-fA-F]-*){32}"
UUID_FORMAT_SPELLING = (
    rf"(?:(?:urn:uuid:)?[{{}}]*-*{_DIGITS}[{{}}]*|-*urn:-*uuid:-*{_DIGITS}[{{}}]*)")

_SPELLING = re.compile(UUID_SPELLING)


def normalize_uuid(value):
    """The canonical (lower case, dashed) form of a uuid, or None if it is not one."""
    if not isinstance(value, str) or _SPELLING.fullmatch(value) is None:
        return None
    try:
        return str(uuid_lib.UUID(value))
    except (ValueError, AttributeError, TypeError):
        return None

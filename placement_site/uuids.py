"""UUIDs as the API receives them: in paths, query strings and bodies."""
import uuid as uuid_lib


def normalize_uuid(value):
    """The canonical (lower case, dashed) form of a uuid, or None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return str(uuid_lib.UUID(value))
    except (ValueError, AttributeError, TypeError):
        return None

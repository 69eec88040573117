"""The checks every planning query string goes through (the API, the console
and the commands read their input through the features' ``arguments``)."""
from placement_core import errors
from placement_core.querystring import reject_nul


def check_known(query, known) -> None:
    """400 for a NUL character anywhere in ``query`` or a key not in ``known``."""
    reject_nul(query)
    unknown = sorted(set(query.keys()) - set(known))
    if unknown:
        raise errors.BadRequest(
            f"Invalid query string parameters: unknown parameter(s) {', '.join(unknown)}; "
            f"expected {', '.join(sorted(known))}.")


def whole_number(key, text, low, high) -> int:
    """``text`` (the value of ``key``) as a whole number from ``low`` to
    ``high``: ASCII digits only, and no more of them than ``high`` has
    (Python will not read a number of thousands of digits); else 400."""
    digits = text.lstrip("0") or "0"
    if (not (text.isascii() and text.isdigit()) or len(digits) > len(str(high))
            or not low <= int(digits) <= high):
        raise errors.BadRequest(f"Invalid query string parameters: {key} must be a whole "
                                f"number from {low} to {high}.")
    return int(digits)

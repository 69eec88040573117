"""The check every planning query string starts with (the API, the console
and the commands read their input through the features' ``arguments``)."""
from placement_site import errors
from placement_site.querystring import reject_nul


def check_known(query, known) -> None:
    """400 for a NUL character anywhere in ``query`` or a key not in ``known``."""
    reject_nul(query)
    unknown = sorted(set(query.keys()) - set(known))
    if unknown:
        raise errors.BadRequest(
            f"Invalid query string parameters: unknown parameter(s) {', '.join(unknown)}; "
            f"expected {', '.join(sorted(known))}.")

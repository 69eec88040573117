"""Small HTTP helpers shared by the edge and the views."""


def accept_types(accept):
    """Media types of an Accept header whose quality is not zero."""
    types = []
    for part in accept.split(","):
        bits = [b.strip() for b in part.split(";")]
        media = bits[0].lower()
        if not media:
            continue
        quality = 1.0
        for param in bits[1:]:
            if param.startswith("q="):
                try:
                    quality = float(param[2:])
                except ValueError:
                    quality = 0.0
        if quality > 0:
            types.append(media)
    return types


def accepts_json(accept):
    """True when an Accept header admits application/json (or it is absent)."""
    if not accept or not accept.strip():
        return True
    return any(t in ("application/json", "application/*", "*/*") for t in accept_types(accept))


def media_type(content_type):
    """The bare media type of a Content-Type header ('' when absent)."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()

"""The "why no candidates?" form's lenient ``resources`` reader.

The provider list's filters are ``providers.filters.ResourceProviderFilterSet``
(the same FilterSet as ``GET /resource_providers``).
"""


def parse_resources(text):
    """``VCPU:2,MEMORY_MB:512`` -> {"VCPU": 2, "MEMORY_MB": 512}; ValueError if malformed."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, amount = part.partition(":")
        if not sep or not name.strip() or not amount.strip().isdigit() or int(amount) < 1:
            raise ValueError(f"bad resources entry {part!r}: expected CLASS:AMOUNT, amount >= 1")
        out[name.strip().upper()] = int(amount)
    return out

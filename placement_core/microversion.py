"""Microversions: `OpenStack-API-Version: placement X.Y` parsing and comparison.

A request's version is available to views as ``request.placement_mv`` (a
:class:`Version`).  No header means the minimum version, 1.0.
"""
import re

SERVICE_TYPE = "placement"
HEADER = "OpenStack-API-Version"
# Django's META key for the header above.
META_KEY = "HTTP_OPENSTACK_API_VERSION"

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")


class Version(tuple):
    """An immutable (major, minor) pair that compares like a tuple.

    ``request.placement_mv >= "1.15"`` is allowed: strings are parsed.
    """

    def __new__(cls, major, minor):
        return super().__new__(cls, (int(major), int(minor)))

    @property
    def major(self):
        return self[0]

    @property
    def minor(self):
        return self[1]

    @classmethod
    def parse(cls, text):
        match = _VERSION_RE.match(text.strip())
        if not match:
            raise InvalidVersion(text)
        return cls(match.group(1), match.group(2))

    @staticmethod
    def _coerce(other):
        if isinstance(other, str):
            return Version.parse(other)
        return tuple(other)

    def __lt__(self, other):
        return tuple(self) < self._coerce(other)

    def __le__(self, other):
        return tuple(self) <= self._coerce(other)

    def __gt__(self, other):
        return tuple(self) > self._coerce(other)

    def __ge__(self, other):
        return tuple(self) >= self._coerce(other)

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = Version.parse(other)
            except InvalidVersion:
                return False
        return tuple(self) == tuple(other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(tuple(self))

    def __str__(self):
        return f"{self[0]}.{self[1]}"

    def __repr__(self):
        return f"Version({self[0]}, {self[1]})"


class InvalidVersion(ValueError):
    """The header named a version that is not of the form X.Y."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


class UnsupportedVersion(ValueError):
    """The header named a well-formed version outside [MIN, MAX]."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


MIN_VERSION = Version(1, 0)
MAX_VERSION = Version(1, 39)


def _placement_value(header_value):
    """Return the version text given for placement, or None.

    The header may carry several services: ``placement 1.2, compute 2.1``;
    when placement is named twice the last one counts (as upstream).
    """
    for part in reversed(header_value.split(",")):
        words = part.strip().split(None, 1)
        if len(words) == 2 and words[0].lower() == SERVICE_TYPE:
            return words[1].strip()
    return None


def negotiate(header_value):
    """Turn the raw header value (or None) into a Version.

    Raises InvalidVersion or UnsupportedVersion.
    """
    if not header_value:
        return MIN_VERSION
    text = _placement_value(header_value)
    if text is None:
        return MIN_VERSION
    # Read as upstream reads it: only lowercase ``latest``; then two integers
    # around the first dot, or 400; a pair that names no version, such as
    # 1.40 or 1.-1, is 406.
    if text == "latest":
        return MAX_VERSION
    parts = text.split(".", 1)
    if len(parts) != 2:
        raise InvalidVersion(text)
    try:
        major, minor = int(parts[0]), int(parts[1])
    except ValueError:
        raise InvalidVersion(text) from None
    if not (MIN_VERSION <= (major, minor) <= MAX_VERSION):
        raise UnsupportedVersion(text)
    return Version(major, minor)

"""Behind a reverse proxy: ``[oslo_middleware] enable_proxy_headers_parsing``.

With the option on (``PLACEMENT_ENABLE_PROXY_HEADERS_PARSING``), the
request is rewritten, before Django sees it, to what the client asked of
the proxy:

* ``Forwarded`` (RFC 7239): ``proto`` -> the scheme and ``host`` -> the
  Host from its first element, the one the first proxy wrote; ``for`` ->
  the client's address from its last element;
* without it, ``X-Forwarded-Proto``, ``X-Forwarded-Host`` the same way, and
  the last address of ``X-Forwarded-For``;

The client's address is the last one listed because that is the one the
proxy in front of this service appended: the entries before it arrived
from the client, which can write anything there, and the address feeds
the console's log-in throttle.
* ``X-Forwarded-Prefix`` (either way) is put in front of the script name,
  so the links the API writes (``links``, ``Location``) and the console's
  links and redirects carry the path the proxy serves the service under.

Only turn it on when every request comes through a proxy that sets (or
strips) these headers: otherwise a client could choose them.  A WSGI
middleware rather than a Django one, because Django fixes the script
prefix before any of its middleware runs.
"""
import re

from django.conf import settings

_SCHEMES = ("http", "https")
# A Host value: a name or IPv4 address, or a bracketed IPv6 one, and a port.
_HOST = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?$")
_TOKEN_PAIR = re.compile(r'\s*([A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,"\s]*)\s*')


def parse_forwarded(value):
    """The elements of a ``Forwarded`` header, as dicts (lower-case keys)."""
    elements = []
    for element in value.split(","):
        pairs = {}
        for part in element.split(";"):
            match = _TOKEN_PAIR.fullmatch(part)
            if match:
                text = match.group(2)
                if text.startswith('"'):
                    text = re.sub(r"\\(.)", r"\1", text[1:-1])
                pairs[match.group(1).lower()] = text
        if pairs:
            elements.append(pairs)
    return elements


def _address(value):
    """A ``for=`` / X-Forwarded-For address without port or brackets."""
    value = value.strip()
    if value.startswith("["):
        return value[1:].split("]")[0]
    if value.count(":") == 1:
        return value.split(":")[0]
    return value


def apply(environ):
    """Rewrite ``environ`` in place from the proxy's headers."""
    forwarded = environ.get("HTTP_FORWARDED")
    if forwarded:
        elements = parse_forwarded(forwarded) or [{}]
        proto, host = elements[0].get("proto"), elements[0].get("host")
        client = elements[-1].get("for")
    else:
        proto = environ.get("HTTP_X_FORWARDED_PROTO")
        host = environ.get("HTTP_X_FORWARDED_HOST")
        client = (environ.get("HTTP_X_FORWARDED_FOR") or "").split(",")[-1]
    if proto and proto.strip().lower() in _SCHEMES:
        environ["wsgi.url_scheme"] = proto.strip().lower()
    if host:
        host = host.split(",")[0].strip()
        if _HOST.match(host):
            environ["HTTP_HOST"] = host
    if client and _address(client) and not client.strip().startswith("_"):
        # "unknown" and obfuscated ("_x") identifiers say nothing usable.
        if client.strip().lower() != "unknown":
            environ["REMOTE_ADDR"] = _address(client)
    prefix = (environ.get("HTTP_X_FORWARDED_PREFIX") or "").strip()
    if prefix.startswith("/") and "//" not in prefix:
        environ["SCRIPT_NAME"] = prefix.rstrip("/") + environ.get("SCRIPT_NAME", "")


class ProxyHeaders:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        apply(environ)
        return self.app(environ, start_response)


def wrap(app):
    """``app`` behind the rewrite when the option is on, else ``app`` itself."""
    if settings.PLACEMENT_ENABLE_PROXY_HEADERS_PARSING:
        return ProxyHeaders(app)
    return app

"""The API client the tests speak Placement with (token, microversion, JSON)."""
import json

from django.db import connection
from django.test import Client


class PlacementClient:
    """Thin wrapper over Django's test client.

    ``client.get('/resource_providers', mv='1.20')`` sends the admin token
    and the microversion header; ``json=`` sends a JSON body.
    """

    def __init__(self, token="admin", mv=None, roles=None):
        self._client = Client()
        self.token = token
        self.mv = mv
        # Sent as X-Roles on every request when given (noauth2: exactly these roles).
        self.roles = roles

    def request(self, method, path, *, json=None, mv=None, token=..., headers=None, data=None,
                content_type=None):
        extra = {}
        token = self.token if token is ... else token
        if token is not None:
            extra["HTTP_X_AUTH_TOKEN"] = token
        if self.roles is not None:
            extra["HTTP_X_ROLES"] = self.roles
        version = mv or self.mv
        if version:
            extra["HTTP_OPENSTACK_API_VERSION"] = f"placement {version}"
        for name, value in (headers or {}).items():
            extra["HTTP_" + name.upper().replace("-", "_")] = value
        if json is not None:
            body, ctype = _dumps(json), content_type or "application/json"
        else:
            body, ctype = data or b"", content_type if content_type is not None else ""
        if "?" in path:
            path, _, query = path.partition("?")
            extra["QUERY_STRING"] = query
        return self._client.generic(method, path, data=body, content_type=ctype, **extra)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)


def _dumps(value):
    return json.dumps(value)


def is_postgres():
    return connection.vendor == "postgresql"


def assert_limited_is_head(full, part, limit):
    """A ``limit=N`` candidates answer is the first N allocation requests of
    the unlimited one, with the summaries of exactly the trees they use."""
    head = full["allocation_requests"][:limit]
    assert part["allocation_requests"] == head
    named = {u for ar in head for u in ar["allocations"]}
    roots = {full["provider_summaries"][u]["root_provider_uuid"] for u in named}
    assert part["provider_summaries"] == {
        u: s for u, s in full["provider_summaries"].items() if s["root_provider_uuid"] in roots}

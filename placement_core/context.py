"""Who is asking: the request context set by the auth strategy."""
from dataclasses import dataclass, field


@dataclass
class RequestContext:
    user_id: str | None = None
    project_id: str | None = None
    roles: list[str] = field(default_factory=list)
    system_scope: str | None = None
    request_id: str | None = None
    # The caller's X-OpenStack-Request-ID, when it is a valid global id.
    global_request_id: str | None = None

    @property
    def is_admin(self):
        return "admin" in self.roles

    def policy_credentials(self):
        """The credential dict policy check strings are evaluated against."""
        return {
            "user_id": self.user_id,
            "project_id": self.project_id,
            "roles": list(self.roles),
            "system_scope": self.system_scope,
            "is_admin": self.is_admin,
        }

"""Recorded scheduling failures (planning.failures writes them) and the
flavors an operator stored for headroom (moved here from ``allocations``,
the table kept its name)."""
from django.db import models


class SchedulingFailure(models.Model):
    """One answer without candidates, or one claim refused for capacity.

    ``reason`` is one of a fixed set (planning.failures.REASONS); ``query``
    is the query string (candidates) or the method, path and body (claims),
    cut to ``PLACEMENT_FAILURE_QUERY_MAX_CHARS``; ``explanation`` is the
    explain service's answer as JSON (candidates, when the rate limit let it
    be computed) or the refusal's numbers (claims).
    """

    KINDS = [("candidates", "no allocation candidates"), ("claim", "claim refused")]

    created_at = models.DateTimeField(db_index=True)
    kind = models.CharField(max_length=16, choices=KINDS)
    reason = models.CharField(max_length=32, db_index=True)
    summary = models.CharField(max_length=512, blank=True, default="")
    query = models.TextField(blank=True, default="")
    query_truncated = models.BooleanField(default=False)
    microversion = models.CharField(max_length=8, blank=True, default="")
    project_id = models.CharField(max_length=255, blank=True, default="")
    user_id = models.CharField(max_length=255, blank=True, default="")
    request_id = models.CharField(max_length=64, blank=True, default="")
    global_request_id = models.CharField(max_length=64, blank=True, default="", db_index=True)
    explanation = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "scheduling_failures"
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.kind} {self.reason} at {self.created_at:%Y-%m-%d %H:%M:%S}"


class Flavor(models.Model):
    """A named request shape an operator stored for headroom (the console's
    Flavors page or the admin), beside the ``PLACEMENT_FLAVORS`` setting.

    ``resources`` is the unsuffixed group as the setting writes it
    (``VCPU:4,MEMORY_MB:8192,DISK_GB:80``), checked on the way in by
    ``planning.flavor_services.flavor_parse``; a name the setting also defines is
    the setting's (``planning.headroom.flavor_list``).
    """

    name = models.CharField(max_length=255, unique=True)
    resources = models.CharField(max_length=1024)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "flavors"
        ordering = ["name"]

    def __str__(self):
        return self.name

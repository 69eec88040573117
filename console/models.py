"""What the console keeps of its own: failed log-ins, for throttling."""
from django.db import models


class LoginFailure(models.Model):
    """Failed log-ins counted for one client address or one (address, user
    name) pair (``key``: "addr:<ip>" or "pair:<ip>|<folded name>") since
    ``since``."""

    key = models.CharField(max_length=300, unique=True)
    failures = models.IntegerField(default=0)
    since = models.DateTimeField()

    class Meta:
        db_table = "console_login_failures"

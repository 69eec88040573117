"""Failed log-ins are limited per user name and per client address.

Counted in the database, so every worker process and server sees the same
count. After ``PLACEMENT_LOGIN_FAILURE_LIMIT`` failures within
``PLACEMENT_LOGIN_LOCKOUT_SECONDS``, that user name (from any address) and
that address (for any user name) are refused, even with the right password,
until the window has passed. A successful log-in clears the user name's count.
Both the console's and the Django admin's log-in forms go through here.
"""
from datetime import timedelta

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from console.models import LoginFailure


def _keys(request, username):
    keys = [f"user:{(username or '').strip().lower()}"[:300]]
    address = request.META.get("REMOTE_ADDR") if request is not None else None
    if address:
        keys.append(f"addr:{address}"[:300])
    return keys


def _window():
    return timedelta(seconds=settings.PLACEMENT_LOGIN_LOCKOUT_SECONDS)


def locked_out(request, username) -> bool:
    cutoff = timezone.now() - _window()
    return LoginFailure.objects.filter(
        key__in=_keys(request, username), since__gte=cutoff,
        failures__gte=settings.PLACEMENT_LOGIN_FAILURE_LIMIT,
    ).exists()


def record_failure(request, username) -> None:
    now = timezone.now()
    with transaction.atomic():
        for key in _keys(request, username):
            row, created = LoginFailure.objects.select_for_update().get_or_create(
                key=key, defaults={"failures": 1, "since": now})
            if created:
                continue
            if row.since < now - _window():
                LoginFailure.objects.filter(pk=row.pk).update(failures=1, since=now)
            else:
                LoginFailure.objects.filter(pk=row.pk).update(failures=F("failures") + 1)


def record_success(request, username) -> None:
    LoginFailure.objects.filter(key=_keys(request, username)[0]).delete()


class _Throttled:
    def clean(self):
        username = self.data.get("username")
        if locked_out(self.request, username):
            minutes = max(1, settings.PLACEMENT_LOGIN_LOCKOUT_SECONDS // 60)
            raise ValidationError(
                f"Too many failed log-ins for this user or from this address; "
                f"try again in {minutes} minutes.",
                code="throttled",
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            record_failure(self.request, username)
            raise
        record_success(self.request, username)
        return cleaned


class ThrottledAuthenticationForm(_Throttled, AuthenticationForm):
    """The console's log-in form."""


class ThrottledAdminAuthenticationForm(_Throttled, AdminAuthenticationForm):
    """The Django admin's log-in form."""

"""Failed log-ins are limited per (user name, client address) and per address.

Counted in the database, so every worker process and server sees the same
count. After ``PLACEMENT_LOGIN_FAILURE_LIMIT`` failures for one user name
from one address within ``PLACEMENT_LOGIN_LOCKOUT_SECONDS``, that name is
refused from that address, even with the right password, until the window
has passed; after ``PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT`` failures from
one address (whatever the names), that address is refused for every name.
A name is never locked from everywhere: failures typed elsewhere cannot
lock an operator out. A successful log-in clears its (name, address)
count. Both the console's and the Django admin's log-in forms go through
here; ``manage.py login_unlock`` lifts a lock (``matching``).

The name is counted as Django authenticates it: folded to NFKC by the form's
user name field (so a full-width spelling is the same account), then
case-folded. The address is the connection's, or, when
``PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER`` names the header a trusted proxy
sets, the last address in that header (the one the proxy itself added).
"""
import ipaddress
import unicodedata
from datetime import timedelta

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from console.models import LoginFailure

KEY_LENGTH = 300


def fold(username: str) -> str:
    """The spelling a user name is counted under."""
    return unicodedata.normalize("NFKC", username).casefold()


def client_address(request) -> str:
    header = settings.PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER
    if header:
        forwarded = request.META.get("HTTP_" + header.upper().replace("-", "_"), "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            pass  # no header, or not an address: the connection's, below
    return request.META.get("REMOTE_ADDR") or "unknown"


def address_key(address: str) -> str:
    return f"addr:{address}"[:KEY_LENGTH]


def pair_key(username: str, address: str) -> str:
    # "|" is in no address and in no name Django's user name rule allows.
    return f"pair:{address}|{fold(username)}"[:KEY_LENGTH]


def _window():
    return timedelta(seconds=settings.PLACEMENT_LOGIN_LOCKOUT_SECONDS)


def locked_out(address: str, username: str | None) -> bool:
    cutoff = timezone.now() - _window()
    recent = LoginFailure.objects.filter(since__gte=cutoff)
    if recent.filter(key=address_key(address),
                     failures__gte=settings.PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT).exists():
        return True
    return username is not None and recent.filter(
        key=pair_key(username, address),
        failures__gte=settings.PLACEMENT_LOGIN_FAILURE_LIMIT).exists()


def record_failure(address: str, username: str | None) -> None:
    """One more failure for the address, and for the (name, address) pair
    when the name was one the form could read."""
    now = timezone.now()
    keys = [address_key(address)]
    if username is not None:
        keys.append(pair_key(username, address))
    with transaction.atomic():
        for key in sorted(keys):
            row, created = LoginFailure.objects.select_for_update().get_or_create(
                key=key, defaults={"failures": 1, "since": now})
            if created:
                continue
            if row.since < now - _window():
                LoginFailure.objects.filter(pk=row.pk).update(failures=1, since=now)
            else:
                LoginFailure.objects.filter(pk=row.pk).update(failures=F("failures") + 1)


def record_success(address: str, username: str) -> None:
    LoginFailure.objects.filter(key=pair_key(username, address)).delete()


def matching(*, username: str | None = None, address: str | None = None):
    """The counts that lock a name (from every address), an address (and
    every name's count from it), or one (name, address) pair: what
    ``manage.py login_unlock`` removes."""
    rows = LoginFailure.objects.all()
    if username is not None and address is not None:
        return rows.filter(key=pair_key(username, address))
    if username is not None:
        return rows.filter(key__startswith="pair:", key__endswith="|" + fold(username))
    if address is not None:
        return rows.filter(key=address_key(address)) | rows.filter(
            key__startswith=f"pair:{address}|")
    return rows.none()


class _Throttled:
    def clean(self):
        address = client_address(self.request)
        # The field's own cleaning (NFKC, length, no NUL) ran first: a name
        # it refused is not a name any account has, so only the address counts.
        username = self.cleaned_data.get("username")
        if locked_out(address, username):
            minutes = max(1, settings.PLACEMENT_LOGIN_LOCKOUT_SECONDS // 60)
            raise ValidationError(
                f"Too many failed log-ins for this user or from this address; "
                f"try again in {minutes} minutes.",
                code="throttled",
            )
        if username is None:
            record_failure(address, None)
            return self.cleaned_data
        try:
            cleaned = super().clean()
        except ValidationError:
            record_failure(address, username)
            raise
        record_success(address, username)
        return cleaned


class ThrottledAuthenticationForm(_Throttled, AuthenticationForm):
    """The console's log-in form."""


class ThrottledAdminAuthenticationForm(_Throttled, AdminAuthenticationForm):
    """The Django admin's log-in form."""

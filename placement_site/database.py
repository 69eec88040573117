"""The one place a database URL becomes Django's DATABASES entry.

Both spellings an operator may hold are read here: Django-style URLs
(``DATABASE_URL``: ``sqlite:///path``, ``postgres://...``) and the
SQLAlchemy URLs of upstream's ``[placement_database] connection``
(``postgresql+psycopg2://...``), whose driver suffix names a Python driver
this service does not use, so it is dropped.
"""
import re

import dj_database_url

_DRIVER_SUFFIX = re.compile(r"^(?P<scheme>[a-z0-9]+)\+[a-z0-9_]+://")


def database_settings(url: str, *, conn_max_age: int = 60) -> dict:
    """``url`` -> one entry of Django's ``DATABASES``; ValueError if unusable."""
    url = _DRIVER_SUFFIX.sub(lambda m: f"{m.group('scheme')}://", url.strip(), count=1)
    try:
        db = dj_database_url.parse(url, conn_max_age=conn_max_age)
    except Exception as exc:  # dj_database_url raises several kinds
        raise ValueError(f"cannot use database URL {url!r}: {exc}") from None
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # Writers queue on the database lock instead of failing half-way
        # (DESIGN.md section 4).
        db.setdefault("OPTIONS", {})
        db["OPTIONS"].update({"transaction_mode": "IMMEDIATE", "timeout": 30})
        db["CONN_MAX_AGE"] = 0
    return db

"""Database errors that a fresh attempt may not meet again are retried;
others are not. One classifier (placement_core.errors.database_trouble)
serves the retry loop and the views' 503/409 answers alike. On Galera,
1213 is also the certification failure of a write set that lost to another
node's."""
import sqlite3

import django.db
import pymysql
import pytest

from placement_core import errors
from providers import locking


def _wrapped(code, cls=django.db.OperationalError):
    try:
        try:
            raise pymysql.err.OperationalError(code, "x")
        except pymysql.err.OperationalError as exc:
            raise cls(*exc.args) from exc
    except cls as exc:
        return exc


@pytest.mark.parametrize("code, trouble", [
    (1213, errors.DB_LOST_RACE), (1205, errors.DB_LOST_RACE), (1047, errors.DB_NOT_READY),
    (2013, errors.DB_UNAVAILABLE), (2003, errors.DB_UNAVAILABLE), (1064, None), (1146, None),
])
def test_mysql_errors_are_classified_once(code, trouble):
    assert errors.database_trouble(_wrapped(code)) == trouble


def test_a_busy_sqlite_database_is_a_lost_race_and_a_409():
    try:
        try:
            raise sqlite3.OperationalError("database is locked")
        except sqlite3.OperationalError as exc:
            raise django.db.OperationalError(*exc.args) from exc
    except django.db.OperationalError as exc:
        wrapped = exc
    assert errors.database_trouble(wrapped) == errors.DB_LOST_RACE
    assert errors.for_database_error(wrapped).status == 409


@pytest.mark.parametrize("code", [1064, 1146, 2013])
def test_other_errors_are_not_retried(monkeypatch, code):
    monkeypatch.setattr(locking.transaction, "atomic", _NoAtomic)
    calls = []

    def work():
        calls.append(1)
        raise _wrapped(code)

    with pytest.raises(django.db.OperationalError):
        locking.run_with_retries(work, "the test write")
    assert len(calls) == 1


@pytest.mark.parametrize("code", [1213, 1205, 1047])
def test_certification_failure_is_retried_then_succeeds(monkeypatch, code):
    monkeypatch.setattr(locking.transaction, "atomic", _NoAtomic)
    calls = []

    def work():
        calls.append(1)
        if len(calls) < 3:
            raise _wrapped(code)
        return "stored"

    assert locking.run_with_retries(work, "the test write") == "stored"
    assert len(calls) == 3


class _NoAtomic:
    def __init__(self, **options):
        self.options = options

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

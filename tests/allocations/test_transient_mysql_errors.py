"""MariaDB/MySQL errors that a fresh attempt may not meet again count as
lost races (retried); others do not. On Galera, 1213 is also the
certification failure of a write set that lost to another node's."""
import django.db
import pymysql
import pytest

from allocations import services


def _wrapped(code, cls=django.db.OperationalError):
    try:
        try:
            raise pymysql.err.OperationalError(code, "x")
        except pymysql.err.OperationalError as exc:
            raise cls(*exc.args) from exc
    except cls as exc:
        return exc


@pytest.fixture
def on_mysql(monkeypatch):
    monkeypatch.setattr(services.connection, "vendor", "mysql")


@pytest.mark.parametrize("code", [1213, 1205, 1047])
def test_lost_races_are_transient(on_mysql, code):
    assert services._is_transient(_wrapped(code))


@pytest.mark.parametrize("code", [1064, 1146, 2013])
def test_other_errors_are_not(on_mysql, code):
    assert not services._is_transient(_wrapped(code))


def test_certification_failure_is_retried_then_succeeds(on_mysql, monkeypatch):
    monkeypatch.setattr(services.transaction, "atomic", _NoAtomic)
    calls = []

    def work():
        calls.append(1)
        if len(calls) < 3:
            raise _wrapped(1213)
        return "stored"

    assert services.run_with_retries(work, "the test write") == "stored"
    assert len(calls) == 3


class _NoAtomic:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

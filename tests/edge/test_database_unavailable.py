"""A database that cannot be reached (a Galera node killed, a server
restarting) answers 503 in Placement's format with Retry-After, and a lost
lock or certification race that escaped every retry answers 409, never 500."""
import django.db
import pymysql
import pytest

from providers import selectors


def _raise_wrapped(driver_error, django_class=django.db.OperationalError):
    def boom(*args, **kwargs):
        try:
            raise driver_error
        except Exception as exc:
            raise django_class(*exc.args) from exc
    return boom


@pytest.mark.django_db
@pytest.mark.parametrize("code", [2003, 2013, 1047])
def test_unreachable_database_is_a_503(api, monkeypatch, code):
    monkeypatch.setattr(selectors, "provider_list_rows",
                        _raise_wrapped(pymysql.err.OperationalError(code, "gone")))
    response = api.get("/resource_providers", mv="1.23")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    error = response.json()["errors"][0]
    assert error["code"] == "placement.database_unavailable"
    assert error["title"] == "Service Unavailable"


@pytest.mark.django_db
def test_closed_connection_is_a_503(api, monkeypatch):
    monkeypatch.setattr(selectors, "provider_list_rows", _raise_wrapped(
        pymysql.err.InterfaceError(0, ""), django.db.InterfaceError))
    assert api.get("/resource_providers").status_code == 503


@pytest.mark.django_db
def test_certification_conflict_outside_a_retry_loop_is_a_409(api, monkeypatch):
    monkeypatch.setattr(selectors, "provider_list_rows", _raise_wrapped(
        pymysql.err.OperationalError(1213, "WSREP detected deadlock/conflict")))
    response = api.get("/resource_providers", mv="1.23")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "placement.concurrent_update"


@pytest.mark.django_db
def test_other_database_errors_stay_500(api, monkeypatch):
    monkeypatch.setattr(selectors, "provider_list_rows", _raise_wrapped(
        pymysql.err.ProgrammingError(1064, "syntax"), django.db.ProgrammingError))
    assert api.get("/resource_providers").status_code == 500


@pytest.mark.postgres_only
@pytest.mark.django_db
def test_statement_timeout_on_postgresql_is_a_503(api, monkeypatch):
    """A statement the server stopped at statement_timeout (57014) is a
    database too slow to answer now: 503, not 500."""
    from django.db import connection

    def slow(*args, **kwargs):
        with connection.cursor() as cursor:
            # LOCAL: undone with the test's transaction.
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(2)")

    monkeypatch.setattr(selectors, "provider_list_rows", slow)
    response = api.get("/resource_providers", mv="1.23")
    assert response.status_code == 503, response.content
    assert response.json()["errors"][0]["code"] == "placement.database_unavailable"

"""PostgreSQL sessions run with JIT compilation off: the candidate and
summary statements are short but look costly to the planner, which then
spent about 24 ms compiling a 3,000-provider summary query it runs once.
An operator's own ``options`` in the URL are kept."""
import pytest
from django.db import connection

from placement_core.database import database_settings


def test_postgres_sessions_turn_jit_off():
    db = database_settings("postgres://u@h/placement")
    assert db["OPTIONS"]["options"] == "-c jit=off"


def test_operator_options_are_kept():
    db = database_settings("postgres://u@h/placement?options=-c%20statement_timeout%3D5000")
    assert db["OPTIONS"]["options"] == "-c statement_timeout=5000 -c jit=off"


def test_other_databases_are_untouched():
    assert "options" not in database_settings("mysql://u@h/placement")["OPTIONS"]


@pytest.mark.django_db
def test_the_live_session_has_jit_off():
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL setting; this run is on " + connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"

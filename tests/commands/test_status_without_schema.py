"""placement_status on a database without its tables: one failed check
naming the fix, exit 2, no traceback."""
import pytest
from django.core.management import call_command
from django.db import connection


@pytest.mark.django_db(transaction=True)
def test_unmigrated_database_is_a_failed_check(capsys, monkeypatch):
    from django.db.migrations.executor import MigrationExecutor

    real = MigrationExecutor.migration_plan

    def pending(self, targets, clean_start=False):
        plan = real(self, targets, clean_start=True)  # as if nothing were applied
        return plan

    monkeypatch.setattr(MigrationExecutor, "migration_plan", pending)
    with pytest.raises(SystemExit) as exit_info:
        call_command("placement_status")
    assert exit_info.value.code == 2
    out = capsys.readouterr().out
    assert "[FAIL] Database schema is current" in out
    assert "migration(s) not applied; run `placement-manage db sync`" in out
    assert "Resource providers have a root provider id" not in out
    assert connection.is_usable()

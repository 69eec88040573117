"""allocations keeps claims and consumers: the history, snapshots and job
locks moved to ``operations``, the stored flavors to ``planning``.

State only: the tables stay where they are, with their rows, under the new
apps' models (``operations.0001_initial``, ``planning.0002_flavor``).
"""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("allocations", "0008_shared_schema"),
        ("operations", "0001_initial"),
        ("planning", "0002_flavor"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="AllocationChange"),
                migrations.DeleteModel(name="UsageSnapshot"),
                migrations.DeleteModel(name="Flavor"),
                migrations.DeleteModel(name="JobLock"),
            ],
            database_operations=[],
        ),
    ]

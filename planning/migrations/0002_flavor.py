"""The flavors stored for headroom, moved here from ``allocations`` (its
migration 0004 made the table).

State only: the table keeps its name and rows, ``migrate`` runs no DDL
(``allocations.0009_move_out`` forgets the model on the other side).
"""
from django.db import migrations, models

from placement_core.moved_models import relabel_content_types


class Migration(migrations.Migration):

    dependencies = [
        ("planning", "0001_scheduling_failures"),
        ("allocations", "0007_allocation_change_event"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Flavor",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                                   serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=255, unique=True)),
                        ("resources", models.CharField(max_length=1024)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={"db_table": "flavors", "ordering": ["name"]},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel_content_types("allocations", "planning", ["flavor"]),
                             migrations.RunPython.noop),
    ]

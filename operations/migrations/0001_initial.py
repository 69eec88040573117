"""The allocation history, usage snapshots and job locks, moved here from
``allocations`` (its migrations 0002, 0003, 0005-0007 made the tables).

State only: the tables keep their names and rows, ``migrate`` runs no DDL
(``allocations.0009_move_out`` forgets the models on the other side).
"""
from django.db import migrations, models

from placement_core.moved_models import relabel_content_types

MOVED = ["allocationchange", "usagesnapshot", "joblock"]


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("allocations", "0007_allocation_change_event"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AllocationChange",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                                   serialize=False, verbose_name="ID")),
                        ("consumer_uuid", models.CharField(max_length=36)),
                        ("provider_uuid", models.CharField(max_length=36)),
                        ("resource_class", models.CharField(max_length=255)),
                        ("amount_before", models.IntegerField()),
                        ("amount_after", models.IntegerField()),
                        ("consumer_generation", models.IntegerField(null=True)),
                        ("request_id", models.CharField(blank=True, default="", max_length=64)),
                        ("global_request_id",
                         models.CharField(blank=True, default="", max_length=64)),
                        ("user_id", models.CharField(blank=True, default="", max_length=255)),
                        ("project_id", models.CharField(blank=True, default="", max_length=255)),
                        ("microversion", models.CharField(blank=True, default="", max_length=16)),
                        ("source", models.CharField(default="api", max_length=64)),
                        ("owner_change", models.TextField(blank=True, default="")),
                        ("event", models.CharField(blank=True, db_default="", default="",
                                                   max_length=32)),
                        ("created_at", models.DateTimeField(db_index=True)),
                    ],
                    options={
                        "db_table": "allocation_changes",
                        "ordering": ["id"],
                        "indexes": [
                            models.Index(fields=["consumer_uuid", "id"],
                                         name="allocation__consume_800ca7_idx"),
                            models.Index(fields=["provider_uuid", "id"],
                                         name="allocation__provide_f4002f_idx"),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="UsageSnapshot",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                                   serialize=False, verbose_name="ID")),
                        ("taken_at", models.DateTimeField(db_index=True)),
                        ("resource_class", models.CharField(max_length=255)),
                        ("aggregate_uuid", models.CharField(blank=True, default="", max_length=36)),
                        ("capacity", models.BigIntegerField()),
                        ("used", models.BigIntegerField()),
                    ],
                    options={
                        "db_table": "usage_snapshots",
                        "ordering": ["taken_at", "id"],
                        "indexes": [
                            models.Index(fields=["aggregate_uuid", "resource_class", "taken_at"],
                                         name="usage_snaps_aggrega_7cecbf_idx"),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="JobLock",
                    fields=[
                        ("name", models.CharField(max_length=64, primary_key=True,
                                                  serialize=False)),
                        ("taken_at", models.DateTimeField(null=True)),
                    ],
                    options={"db_table": "job_locks"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel_content_types("allocations", "operations", MOVED),
                             migrations.RunPython.noop),
    ]

"""The shared tables take upstream's schema (placement_core.shared_schema).

The database side moves all twelve tables at once (placement_core.schema_move):
on a database this service made, every row is copied onto upstream's tables;
on one upstream made (adopted by ``db sync``) nothing is touched.  One way:
there is no going back to the old layout.
"""

import django.db.models.deletion
import placement_core.shared_schema
from django.db import migrations, models

from placement_core import schema_move


def _move(apps, schema_editor):
    schema_move.move_to_shared_schema(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('allocations', '0007_allocation_change_event'),
        ('providers', '0003_shared_schema'),
        ('resource_classes', '0003_shared_schema'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.RemoveConstraint(
                model_name='allocation',
                name='uniq_allocation_consumer_rp_rc',
            ),
            migrations.RemoveIndex(
                model_name='allocation',
                name='allocations_resourc_3a5e60_idx',
            ),
            migrations.RemoveIndex(
                model_name='consumer',
                name='consumers_project_21da79_idx',
            ),
            migrations.AddField(
                model_name='consumertype',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AddField(
                model_name='project',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AddField(
                model_name='user',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='consumer',
                field=models.ForeignKey(db_column='consumer_id', db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='allocations', to='allocations.consumer', to_field='uuid'),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='resource_class',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='allocations', to='resource_classes.resourceclass'),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='resource_provider',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='allocations', to='providers.resourceprovider'),
            ),
            migrations.AlterField(
                model_name='allocation',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='consumer',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='consumer',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='consumer',
                name='project',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='consumers', to='allocations.project'),
            ),
            migrations.AlterField(
                model_name='consumer',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='consumer',
                name='user',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='consumers', to='allocations.user'),
            ),
            migrations.AlterField(
                model_name='consumertype',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='consumertype',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='project',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='project',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='user',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='user',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            ],
            database_operations=[migrations.RunPython(_move, elidable=False)],
        ),
    ]

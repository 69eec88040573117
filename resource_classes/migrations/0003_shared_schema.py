"""The shared tables take upstream's schema (placement_core.shared_schema).

Django's state only: the database side is done by allocations.0008_shared_schema, for all twelve tables at once.
"""

import placement_core.shared_schema
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('resource_classes', '0002_alter_resourceclass_options'),
        # After every migration that made the old layout, so that none of
        # them sees this state (their foreign keys would take its key types).
        ('providers', '0002_alter_inventory_options'),
        ('allocations', '0007_allocation_change_event'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.AlterField(
                model_name='resourceclass',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='resourceclass',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='resourceclass',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='trait',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='trait',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='trait',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            ],
            database_operations=[],
        ),
    ]

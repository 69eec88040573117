"""The shared tables take upstream's schema (placement_core.shared_schema).

Django's state only: the database side is done by allocations.0008_shared_schema, for all twelve tables at once.
"""

import django.db.models.deletion
import placement_core.shared_schema
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('providers', '0002_alter_inventory_options'),
        ('resource_classes', '0003_shared_schema'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.RemoveConstraint(
                model_name='inventory',
                name='uniq_inventory_rp_rc',
            ),
            migrations.RemoveConstraint(
                model_name='provideraggregate',
                name='uniq_rp_aggregate',
            ),
            migrations.RemoveConstraint(
                model_name='providertrait',
                name='uniq_rp_trait',
            ),
            migrations.RemoveIndex(
                model_name='inventory',
                name='inventories_resourc_c7ab59_idx',
            ),
            migrations.RemoveIndex(
                model_name='provideraggregate',
                name='resource_pr_aggrega_96376e_idx',
            ),
            migrations.RemoveIndex(
                model_name='providertrait',
                name='resource_pr_trait_i_f9abea_idx',
            ),
            migrations.RemoveField(
                model_name='provideraggregate',
                name='id',
            ),
            migrations.RemoveField(
                model_name='providertrait',
                name='id',
            ),
            migrations.AddField(
                model_name='provideraggregate',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AddField(
                model_name='provideraggregate',
                name='pk',
                field=models.CompositePrimaryKey('resource_provider_id', 'aggregate_id', blank=True, editable=False, primary_key=True, serialize=False),
            ),
            migrations.AddField(
                model_name='provideraggregate',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AddField(
                model_name='providertrait',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AddField(
                model_name='providertrait',
                name='pk',
                field=models.CompositePrimaryKey('trait_id', 'resource_provider_id', blank=True, editable=False, primary_key=True, serialize=False),
            ),
            migrations.AddField(
                model_name='providertrait',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='aggregate',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='aggregate',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='aggregate',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='inventory',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='inventory',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='inventory',
                name='resource_class',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='inventories', to='resource_classes.resourceclass'),
            ),
            migrations.AlterField(
                model_name='inventory',
                name='resource_provider',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='inventories', to='providers.resourceprovider'),
            ),
            migrations.AlterField(
                model_name='inventory',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AlterField(
                model_name='provideraggregate',
                name='aggregate',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, to='providers.aggregate'),
            ),
            migrations.AlterField(
                model_name='provideraggregate',
                name='resource_provider',
                field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, to='providers.resourceprovider'),
            ),
            migrations.AlterField(
                model_name='resourceprovider',
                name='created_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now_add=True, null=True),
            ),
            migrations.AlterField(
                model_name='resourceprovider',
                name='id',
                field=models.AutoField(primary_key=True, serialize=False),
            ),
            migrations.AlterField(
                model_name='resourceprovider',
                name='parent',
                field=models.ForeignKey(blank=True, db_column='parent_provider_id', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='children', to='providers.resourceprovider'),
            ),
            migrations.AlterField(
                model_name='resourceprovider',
                name='root',
                field=models.ForeignKey(blank=True, db_column='root_provider_id', null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='tree_members', to='providers.resourceprovider'),
            ),
            migrations.AlterField(
                model_name='resourceprovider',
                name='updated_at',
                field=placement_core.shared_schema.UTCDateTimeField(auto_now=True, null=True),
            ),
            migrations.AddConstraint(
                model_name='inventory',
                constraint=models.UniqueConstraint(fields=('resource_provider', 'resource_class'), name='uniq_inventories0resource_provider_resource_class'),
            ),
            ],
            database_operations=[],
        ),
    ]

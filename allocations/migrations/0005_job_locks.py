from django.db import migrations, models


def add_rows(apps, schema_editor):
    apps.get_model("allocations", "JobLock").objects.get_or_create(name="usage_snapshot")


class Migration(migrations.Migration):

    dependencies = [
        ('allocations', '0004_flavors'),
    ]

    operations = [
        migrations.CreateModel(
            name='JobLock',
            fields=[
                ('name', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('taken_at', models.DateTimeField(null=True)),
            ],
            options={
                'db_table': 'job_locks',
            },
        ),
        migrations.RunPython(add_rows, migrations.RunPython.noop),
    ]

"""The admin names Placement's users apart from Django's accounts.

Options only (verbose names): no statement runs, upstream's ``users`` table
is untouched.
"""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("allocations", "0009_move_out"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="user",
            options={"verbose_name": "Placement user",
                     "verbose_name_plural": "Placement users (consumers' owners, not logins)"},
        ),
    ]

"""Moving a model from one app to another without touching its table.

The table keeps its name (``db_table``), so a move is state only: the old
app's migration forgets the model, the new app's migration declares it, and
``migrate`` on an existing database changes no table and no row.  The one
thing in the database that names the app is the content type (what admin
permissions and log entries point at); :func:`relabel_content_types` moves
those rows too, so permissions given for the model stay given.
"""


def relabel_content_types(old_app, new_app, models):
    """A ``RunPython`` function: the content types of ``models`` (lower-case
    model names) move from ``old_app`` to ``new_app``; one already made under
    the new app (a database that ran ``migrate`` part way) wins."""

    def forwards(apps, schema_editor):
        content_type = apps.get_model("contenttypes", "ContentType")
        db = schema_editor.connection.alias
        for model in models:
            if content_type.objects.using(db).filter(app_label=new_app, model=model).exists():
                continue
            content_type.objects.using(db).filter(app_label=old_app, model=model).update(
                app_label=new_app)

    return forwards

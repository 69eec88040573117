from django.apps import AppConfig
from django.core.management.base import CommandError
from django.db import connections
from django.db.models.signals import post_migrate, pre_migrate


def _refuse_other_upstream_revision(sender, using="default", **kwargs):
    """Before any migration writes: a database upstream made must be at the
    revision this service speaks (placement_core.schema_move.check_revision)."""
    from placement_core import schema_move

    try:
        schema_move.check_revision(connections[using])
    except schema_move.WrongUpstreamRevision as exc:
        raise CommandError(str(exc)) from None


def _sync_catalog(sender, using="default", **kwargs):
    from resource_classes.services import catalog_sync

    catalog_sync()


class ResourceClassesConfig(AppConfig):
    name = "resource_classes"
    verbose_name = "Resource classes and traits"

    def ready(self):
        pre_migrate.connect(_refuse_other_upstream_revision, sender=self,
                            dispatch_uid="placement-upstream-revision")
        post_migrate.connect(_sync_catalog, sender=self, dispatch_uid="placement-catalog-sync")

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_catalog(sender, using="default", **kwargs):
    from resource_classes.services import catalog_sync

    catalog_sync()


class ResourceClassesConfig(AppConfig):
    name = "resource_classes"
    verbose_name = "Resource classes and traits"

    def ready(self):
        post_migrate.connect(_sync_catalog, sender=self, dispatch_uid="placement-catalog-sync")

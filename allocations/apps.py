from django.apps import AppConfig


class AllocationsConfig(AppConfig):
    name = "allocations"
    verbose_name = "Allocations and consumers"

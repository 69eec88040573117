from django.apps import AppConfig


class PlanningConfig(AppConfig):
    name = "planning"
    verbose_name = "Capacity planning"

    def ready(self):
        from placement_site import metrics
        from planning.metrics import PlanningCollector

        metrics.register_collector(PlanningCollector())

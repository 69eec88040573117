from django.apps import AppConfig


class PlanningConfig(AppConfig):
    name = "planning"
    verbose_name = "Capacity planning"

    def ready(self):
        from django.core.signals import request_finished

        from allocations.signals import claim_refused
        from candidates.signals import no_candidates
        from placement_core import metrics
        from planning import failures
        from planning.metrics import PlanningCollector

        metrics.register_collector(PlanningCollector())
        no_candidates.connect(failures.on_no_candidates, dispatch_uid="planning-no-candidates")
        request_finished.connect(failures.run_after_response,
                                 dispatch_uid="planning-after-response")
        claim_refused.connect(failures.on_claim_refused, dispatch_uid="planning-claim-refused")

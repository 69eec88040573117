"""manage.py capacity_forecast [--aggregate A] [--window-days N] [--threshold-percent P] [--json]."""
import json

from django.http import QueryDict

from maintenance.base import EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from planning import forecast
from providers.references import aggregate_by_ref


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "When will we be full? Per resource class, whole cloud and per aggregate: the trend "
        "of usage (a least-squares line over the last PLACEMENT_FORECAST_WINDOW_DAYS days of "
        "usage snapshots, see take_usage_snapshot) and the days until it reaches capacity and "
        "PLACEMENT_FORECAST_THRESHOLD_PERCENT of it; then the stranded capacity: free capacity "
        "no known flavor can use on its host. Amounts in each class's unit, aggregates by "
        "their members' names. Exit codes: 0 nothing reaches the threshold within "
        "the window's length, 1 something does (or is there already), 2 bad input."
    )

    def add_arguments(self, parser):
        parser.add_argument("--aggregate", metavar="UUID_OR_PROVIDER",
                            help="only this aggregate: its uuid or a provider in it (by name or "
                                 "uuid); '' for the cloud")
        parser.add_argument("--window-days", type=int, help="days of snapshots to fit")
        parser.add_argument("--threshold-percent", type=int, help="percent of capacity")
        parser.add_argument("--show", type=int, default=forecast.SHOW_PROVIDERS,
                            help="stranded providers listed per class")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="print the forecast and stranded capacity as JSON")

    def run(self, *, aggregate, window_days, threshold_percent, show, as_json=False, **options):
        if aggregate:
            aggregate = aggregate_by_ref(aggregate)
        query = QueryDict(mutable=True)
        for key, value in (("aggregate", aggregate), ("window_days", window_days),
                           ("threshold_percent", threshold_percent), ("show", show)):
            if value is not None:
                query[key] = str(value)
        result = forecast.report(**forecast.arguments(query))
        if as_json:
            self.stdout.write(json.dumps(result, indent=2))
        else:
            self.stdout.write(forecast.as_text(result), ending="")
        window = result["forecast"]["window_days"]
        soon = any(row["days_to_threshold"] is not None and row["days_to_threshold"] <= window
                   for row in result["forecast"]["rows"])
        return EXIT_PROBLEMS if soon else EXIT_OK

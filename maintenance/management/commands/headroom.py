"""manage.py headroom: how many more of each flavor fit, cloud-wide and per aggregate."""
from maintenance.base import EXIT_OK, MaintenanceCommand
from placement_core.querystring import parse_flavors
from placement_core.texttable import table
from placement_core.units import resources_text
from planning.headroom import flavor_list, headroom
from providers.references import aggregate_members, aggregate_name


class Command(MaintenanceCommand):
    help = (
        "Print how many more instances of each flavor fit (the figures of the console's "
        "Flavors page and /metrics): the flavors of PLACEMENT_FLAVORS and the stored ones, "
        "or only those named with --flavor, or an ad-hoc shape given with --resources. "
        "Exit codes: 0 done, 2 error (unknown flavor, bad resources)."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--flavor", action="append", default=[], metavar="NAME",
                            help="Only this flavor (repeatable).")
        parser.add_argument("--resources", metavar="CLASS:N,...",
                            help="An ad-hoc shape instead of the flavors, e.g. "
                                 "VCPU:2,MEMORY_MB:4096.")
        parser.add_argument("--aggregates", action="store_true",
                            help="Also the figure per aggregate (named by its members).")

    def run(self, *, flavor=(), resources=None, aggregates=False, **options):
        if resources is not None:
            if flavor:
                raise ValueError("give --flavor or --resources, not both")
            flavors = parse_flavors(f"ad-hoc={resources}")
        else:
            flavors = flavor_list()
            if flavor:
                known = {f.name: f for f in flavors}
                unknown = [name for name in flavor if name not in known]
                if unknown:
                    raise ValueError(f"no flavor named {', '.join(map(repr, unknown))} "
                                     "(PLACEMENT_FLAVORS or stored: placement-manage flavors "
                                     "list)")
                flavors = [known[name] for name in flavor]
        figures = headroom(flavors)
        self.report = {"headroom": [
            {"flavor": f.name, "resources": dict(f.resources), "cloud": figures[f.name]["cloud"],
             "aggregates": figures[f.name]["aggregates"]} for f in flavors]}
        if not flavors:
            self.stdout.write("no flavors: set PLACEMENT_FLAVORS or store one "
                              "(placement-manage flavors add NAME CLASS:N,...)")
        members = aggregate_members(
            {agg for f in flavors for agg in figures[f.name]["aggregates"]}) if aggregates else {}
        rows = []
        for f in flavors:
            rows.append([f.name, resources_text(dict(f.resources)), "cloud",
                         figures[f.name]["cloud"]])
            if aggregates:
                rows += [["", "", aggregate_name(agg, members), count] for agg, count in sorted(
                    figures[f.name]["aggregates"].items(),
                    key=lambda item: aggregate_name(item[0], members))]
        if rows:
            for line in table(["flavor", "resources", "where", "fit"], rows, right=(3,)):
                self.stdout.write(line)
        return EXIT_OK

"""manage.py flavors: list, store and delete the flavors headroom counts."""
from django.conf import settings

from maintenance.base import EXIT_OK, MaintenanceCommand
from placement_core.texttable import table
from placement_core.units import resources_text
from planning import flavor_services as services
from planning.models import Flavor


class Command(MaintenanceCommand):
    help = (
        "The flavors the console's headroom counts. 'list' prints PLACEMENT_FLAVORS and the "
        "stored ones; 'add NAME CLASS:N,...' stores one (the rules of the console's Flavors "
        "page: known classes, a name the setting does not define); 'delete NAME' removes a "
        "stored one. Exit codes: 0 done, 2 error (bad name or resources, no such flavor)."
    )

    dry_run_help = "With add or delete: check and say what would change, change nothing."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("action", choices=("list", "add", "delete"))
        parser.add_argument("name", nargs="?", help="add, delete: the flavor's name")
        parser.add_argument("resources", nargs="?",
                            help="add: e.g. VCPU:4,MEMORY_MB:8192,DISK_GB:80")

    def run(self, *, action, name=None, resources=None, dry_run=False, **options):
        wanted = {"list": 0, "add": 2, "delete": 1}[action]
        given = len([a for a in (name, resources) if a is not None])
        if given != wanted:
            usage = {"list": "flavors list", "add": "flavors add NAME CLASS:N,...",
                     "delete": "flavors delete NAME"}[action]
            raise ValueError(f"usage: {usage}")
        if any("\x00" in text for text in (name or "", resources or "")):
            # No flavor holds one, and PostgreSQL cannot be asked about it.
            raise ValueError("a flavor's name and resources hold no NUL character")
        if dry_run and action == "add":
            spec = services.flavor_parse(name=name, resources=resources)
            text = services.flavor_text(spec)
            if Flavor.objects.filter(name=spec.name).exists():
                raise ValueError(f"Flavor {spec.name!r} already exists.")
            self.report = {"would_add": {"name": spec.name, "resources": text}, "dry_run": True}
            self.stdout.write(f"would store flavor {spec.name}: {_in_units(text)} (dry run)")
        elif dry_run and action == "delete":
            if not Flavor.objects.filter(name=name).exists():
                raise ValueError(f"No stored flavor {name!r}.")
            self.report = {"would_delete": name, "dry_run": True}
            self.stdout.write(f"would delete flavor {name} (dry run)")
        elif action == "add":
            flavor = services.flavor_create(name=name, resources=resources)
            self.report = {"added": {"name": flavor.name, "resources": flavor.resources}}
            self.stdout.write(f"stored flavor {flavor.name}: {_in_units(flavor.resources)}")
        elif action == "delete":
            services.flavor_delete(name=name)
            self.report = {"deleted": name}
            self.stdout.write(f"deleted flavor {name}")
        else:
            rows = [{"name": f.name, "resources": ",".join(f"{rc}:{n}" for rc, n in
                                                             f.resources.items()),
                     "source": "PLACEMENT_FLAVORS"} for f in settings.PLACEMENT_FLAVORS]
            configured = {row["name"] for row in rows}
            for stored in Flavor.objects.order_by("name"):
                rows.append({"name": stored.name, "resources": stored.resources,
                             "source": "overridden" if stored.name in configured else "stored"})
            self.report = {"flavors": rows}
            if not rows:
                self.stdout.write("no flavors: set PLACEMENT_FLAVORS or store one "
                                  "(flavors add NAME CLASS:N,...)")
                return EXIT_OK
            for line in table(["flavor", "resources", "source"],
                              [[row["name"], _in_units(row["resources"]), row["source"]]
                               for row in rows], max_cell=80):
                self.stdout.write(line)
        return EXIT_OK


def _in_units(text: str) -> str:
    """"VCPU:2,MEMORY_MB:4096" (as stored and as the setting spells it) as
    "VCPU 2, MEMORY_MB 4 GiB"."""
    try:
        return resources_text({rc.strip(): int(n) for rc, n in (
            item.split(":", 1) for item in text.split(","))})
    except ValueError:  # not that shape: shown as it is
        return text

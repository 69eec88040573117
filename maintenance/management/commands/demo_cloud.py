"""manage.py demo_cloud: a small realistic cloud and a console login (make demo)."""
import secrets

from django.contrib.auth import get_user_model

from maintenance.base import EXIT_OK, MaintenanceCommand
from maintenance.demo import demo_cloud
from providers.models import ResourceProvider


class Command(MaintenanceCommand):
    help = (
        "Load a small realistic cloud (compute nodes with NUMA cells and SR-IOV NICs, a shared "
        "storage pool in an aggregate, traits, instances, a migration in flight, a disabled "
        "host) through the services, grown over a simulated fortnight ending now (usage "
        "snapshots every six hours, the history of each boot, resize, deletion, change of "
        "owner and move), with a few scheduling failures and audit findings, and create a console login 'demo' with a printed password. For an "
        "empty database; exit 2 when providers exist already."
    )
    dry_run_help = "Build the cloud inside a transaction that is rolled back; report counts."

    def run(self, *, dry_run=False, **options):
        if ResourceProvider.objects.exists():
            raise ValueError("the database already holds providers; demo_cloud wants an "
                             "empty one (e.g. DATABASE_URL=sqlite:///demo.sqlite3)")
        counts = demo_cloud(dry_run=dry_run, progress=None if dry_run else self.progress)
        if dry_run:
            self.report = {**counts, "dry_run": True}
            self.stdout.write(f"would load {counts['providers']} providers and "
                              f"{counts['consumers']} consumers in {counts['writes']} "
                              f"allocation writes, and take {counts['snapshots']} usage "
                              f"snapshots")
            return EXIT_OK
        password = secrets.token_urlsafe(9)
        user, _ = get_user_model().objects.get_or_create(username="demo")
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.report = {**counts, "login": {"user": "demo", "password": password}}
        self.stdout.write(f"loaded {counts['providers']} providers and "
                          f"{counts['consumers']} consumers, {counts['snapshots']} usage "
                          f"snapshots and {counts['history']} history records")
        self.stdout.write(f"seeded {counts['failures']} scheduling failures and "
                          f"{counts['findings']} audit findings (scheduling_failures, "
                          "audit_allocations)")
        self.stdout.write(f"console login: demo / {password}")
        return EXIT_OK

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
        "host) through the services, a made-up 14-day usage history, and create a console login 'demo' with a printed "
        "password. For an empty database; exit 2 when providers exist already."
    )

    def run(self, **options):
        if ResourceProvider.objects.exists():
            raise ValueError("the database already holds providers; demo_cloud wants an "
                             "empty one (e.g. DATABASE_URL=sqlite:///demo.sqlite3)")
        counts = demo_cloud()
        password = secrets.token_urlsafe(9)
        user, _ = get_user_model().objects.get_or_create(username="demo")
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.report = {**counts, "login": {"user": "demo", "password": password}}
        self.stdout.write(f"loaded {counts['providers']} providers and "
                          f"{counts['consumers']} consumers; {counts['snapshots']} usage "
                          f"snapshot rows over the last 14 days (made up)")
        self.stdout.write(f"console login: demo / {password}")
        return EXIT_OK

"""manage.py login_unlock: lift log-in locks (console/throttle.py)."""
from django.core.management.base import BaseCommand, CommandError

from console import throttle
from console.models import LoginFailure


class Command(BaseCommand):
    help = (
        "Lift log-in locks of the console and the admin. --user NAME: that name's counts from "
        "every address; --address ADDR: the address's count and every name's count from it; "
        "both: that one pair; --all: every count. --list prints the counts instead. "
        "Exit codes: 0 done, 2 bad options."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", help="A user name (counted as it authenticates: NFKC, "
                                           "case-folded).")
        parser.add_argument("--address", help="A client address, as the throttle reads it.")
        parser.add_argument("--all", action="store_true", help="Every count.")
        parser.add_argument("--list", action="store_true", help="Print the counts; change nothing.")

    def handle(self, *args, user=None, address=None, all=False, list=False, **options):
        for name, value in (("--user", user), ("--address", address)):
            if value is not None and (not value.strip() or "\x00" in value):
                raise CommandError(f"{name} needs a value without NUL characters", returncode=2)
        if list:
            for row in LoginFailure.objects.order_by("key"):
                self.stdout.write(f"{row.key}\t{row.failures} since {row.since.isoformat()}")
            return
        if all == (user is not None or address is not None):
            raise CommandError("give --user and/or --address, or --all", returncode=2)
        removed = (LoginFailure.objects.all().delete()[0] if all
                   else throttle.unlock(username=user, address=address))
        self.stdout.write(f"removed {removed} failure count(s)")

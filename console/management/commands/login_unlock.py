"""manage.py login_unlock: lift log-in locks (console/throttle.py)."""
import json

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
        parser.add_argument("--dry-run", action="store_true",
                            help="Say how many counts would be removed; remove none.")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="Print the result as one JSON document.")

    def handle(self, *args, user=None, address=None, all=False, list=False, dry_run=False,
               as_json=False, **options):
        for name, value in (("--user", user), ("--address", address)):
            # Bytes that are not UTF-8 come in as lone surrogates ("\udcff"):
            # no text column can be asked about them.
            if value is not None and (not value.strip() or "\x00" in value
                                      or not _is_utf8(value)):
                raise CommandError(f"{name} needs a value of UTF-8 text without NUL characters",
                                   returncode=2)
        if list:
            rows = [{"key": row.key, "failures": row.failures, "since": row.since.isoformat()}
                    for row in LoginFailure.objects.order_by("key")]
            self._say(as_json, {"counts": rows},
                      [f"{r['key']}\t{r['failures']} since {r['since']}" for r in rows])
            return
        if all == (user is not None or address is not None):
            raise CommandError("give --user and/or --address, or --all", returncode=2)
        rows = (LoginFailure.objects.all() if all
                else throttle.matching(username=user, address=address))
        removed = rows.count() if dry_run else rows.delete()[0]
        verb = "would remove" if dry_run else "removed"
        self._say(as_json, {"removed": removed, "dry_run": dry_run},
                  [f"{verb} {removed} failure count(s)"])

    def _say(self, as_json, report, lines):
        if as_json:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for line in lines:
                self.stdout.write(line)


def _is_utf8(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

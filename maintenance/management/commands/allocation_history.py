"""manage.py allocation_history: the recorded allocation changes of a consumer or provider."""
import json

from allocations.changes import CONSUMER_DELETED
from maintenance.base import EXIT_OK, MaintenanceCommand
from operations import history
from placement_core.uuids import normalize_uuid


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "List the recorded allocation changes (oldest first) of one consumer or one "
        "provider: class, amount before and after, request ids, caller. Exit codes: 0 done, "
        "2 error."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--consumer", help="Consumer uuid.")
        which.add_argument("--provider", help="Resource provider uuid.")
        parser.add_argument("--since", help="Only changes at or after this ISO 8601 time.")
        parser.add_argument("--json", action="store_true", help="One JSON document.")

    def run(self, *, consumer=None, provider=None, since=None, json=False, **options):
        raw = consumer or provider
        value = normalize_uuid(raw)
        if value is None:
            raise ValueError(f"{'--consumer' if consumer else '--provider'} {raw!r}: not a uuid")
        since_at = history.parse_since(since) if since else None
        changes = history.changes_for(
            consumer=value if consumer else None, provider=value if provider else None,
            since=since_at,
        )
        records = [history.as_dict(change) for change in changes]
        if json:
            self.stdout.write(_json_dump({"changes": records}))
            return EXIT_OK
        for r in records:
            if r["event"] == CONSUMER_DELETED:
                self.stdout.write(
                    f"{r['created_at']} consumer {r['consumer_uuid']} deleted (it held no "
                    f"allocations) gen {r['consumer_generation']} {r['request_id']} "
                    f"user {r['user_id'] or '-'} ({r['source']})")
                continue
            self.stdout.write(
                f"{r['created_at']} consumer {r['consumer_uuid']} provider {r['provider_uuid']} "
                f"{r['resource_class']} {r['amount_before']} -> {r['amount_after']} "
                f"gen {r['consumer_generation']} {r['request_id']} "
                f"global {r['global_request_id'] or '-'} user {r['user_id'] or '-'} "
                f"project {r['project_id'] or '-'} mv {r['microversion'] or '-'} ({r['source']})"
                + (f" owner: {r['owner_change']}" if r["owner_change"] else "")
            )
        if not records:
            self.stdout.write("no recorded changes")
        return EXIT_OK


def _json_dump(data):
    return json.dumps(data, indent=2, sort_keys=True)

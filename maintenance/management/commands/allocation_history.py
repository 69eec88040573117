"""manage.py allocation_history: the recorded allocation changes of a consumer or provider."""
import json

from allocations.changes import CONSUMER_DELETED
from maintenance.base import EXIT_OK, MaintenanceCommand
from operations import history
from placement_core.texttable import short_uuid, table, when
from placement_core.units import human_amount
from placement_core.uuids import normalize_uuid
from providers.references import provider_by_ref, provider_names


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "List the recorded allocation changes (oldest first) of one consumer or one "
        "provider: class, amount before and after (in the class's unit), the request and "
        "the caller; --json adds the global request id, user, project and microversion. "
        "Exit codes: 0 done, 2 error."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--consumer", help="Consumer uuid.")
        which.add_argument("--provider", metavar="UUID_OR_NAME",
                           help="Resource provider, by uuid or name.")
        parser.add_argument("--since", help="Only changes at or after this ISO 8601 time.")
        parser.add_argument("--json", action="store_true", help="One JSON document.")

    def run(self, *, consumer=None, provider=None, since=None, json=False, **options):
        if consumer is not None:
            value = normalize_uuid(consumer)
            if value is None:
                raise ValueError(f"--consumer {consumer!r}: not a uuid (consumers have no name)")
        else:
            value = provider_by_ref(provider).uuid
        since_at = history.parse_since(since) if since else None
        changes = history.changes_for(
            consumer=value if consumer else None, provider=value if provider else None,
            since=since_at,
        )
        records = [history.as_dict(change) for change in changes]
        if json:
            self.stdout.write(_json_dump({"changes": records}))
            return EXIT_OK
        if not records:
            self.stdout.write("no recorded changes")
            return EXIT_OK
        names = provider_names(r["provider_uuid"] for r in records if r["provider_uuid"])
        lines = table(["time (UTC)", "consumer", "provider", "class", "before", "after",
                       "request", "caller"], [_row(r, names) for r in records], right=(4, 5))
        self.stdout.write(lines[0])
        for record, line in zip(records, lines[1:]):
            self.stdout.write(line)
            if record["owner_change"]:
                # Under its row, whole: project ids are long, and the table stays narrow.
                self.stdout.write(f"    owner: {record['owner_change']}")
        return EXIT_OK


def _row(r, names):
    if r["event"] == CONSUMER_DELETED:
        return [when(r["created_at"]), short_uuid(r["consumer_uuid"]), "-",
                "(consumer deleted)", "-", "-", _request(r["request_id"]), r["source"]]
    rc = r["resource_class"]
    provider = names.get(r["provider_uuid"]) or f"{short_uuid(r['provider_uuid'])} (gone)"
    return [when(r["created_at"]), short_uuid(r["consumer_uuid"]), provider, rc,
            human_amount(r["amount_before"], rc), human_amount(r["amount_after"], rc),
            _request(r["request_id"]), r["source"]]


def _request(request_id):
    """req-1a2b3c4d: enough to find the request's log lines."""
    return request_id[:12] if request_id else "-"


def _json_dump(data):
    return json.dumps(data, indent=2, sort_keys=True)

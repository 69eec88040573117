"""manage.py heal_consumers: give incomplete consumers a real project and user."""
from allocations.consumer_services import consumers_heal
from maintenance.base import EXIT_OK, MaintenanceCommand


class Command(MaintenanceCommand):
    help = (
        "Consumers written before microversion 1.8 (or imported without one) carry the "
        "incomplete project/user id (PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID / _USER_ID). "
        "Set them to the given ids and bump each consumer's generation. "
        "Exit codes: 0 done, 2 error."
    )
    dry_run_help = "Only count the consumers that would change."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--project-id", required=True, help="Project id to set.")
        parser.add_argument("--user-id", required=True, help="User id to set.")

    def run(self, *, project_id, user_id, dry_run=False, **options):
        if not project_id.strip() or not user_id.strip():
            raise ValueError("--project-id and --user-id must not be empty")
        n = consumers_heal(project_id=project_id, user_id=user_id, dry_run=dry_run)
        self.report = {"dry_run": dry_run, "consumers": n}
        self.stdout.write(f"{'would heal' if dry_run else 'healed'} {n} consumer(s)")
        return EXIT_OK

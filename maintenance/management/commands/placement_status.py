"""manage.py placement_status: upgrade-style health checks."""
from maintenance.base import EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from maintenance.checks import POLICY_CHECK, SCHEMA_CHECK, status_checks


class Command(MaintenanceCommand):
    help = (
        "Check the data before or after an upgrade: providers without a root provider id, "
        "consumers with the incomplete project/user id, standard resource classes and traits "
        "missing, an unreadable policy file. Exit codes: 0 all checks pass, 1 a check "
        "failed, 2 error."
    )

    def run(self, **options):
        failed = 0
        checks = status_checks()
        # "[FAIL]" is as wide as "result": the marks line up under the header.
        self.stdout.write("result check")
        for check in checks:
            mark = "OK  " if check.ok else "FAIL"
            style = self.style.SUCCESS if check.ok else self.style.ERROR
            self.stdout.write(style(f"[{mark}] {check.name}"))
            for line in check.details:
                self.stdout.write(f"       {line}")
            failed += not check.ok
        self.report = {"checks": [{"name": c.name, "ok": c.ok, "severity": c.severity,
                                   "details": c.details} for c in checks], "failed": failed}
        self.stdout.write(f"{failed} check(s) failed" if failed else "all checks passed")
        if any(not c.ok and c.name in (SCHEMA_CHECK, POLICY_CHECK) for c in checks):
            # The service cannot run like this: an error, not a finding.
            return EXIT_ERROR
        return EXIT_PROBLEMS if failed else EXIT_OK

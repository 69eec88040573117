"""Run a management command and get (exit code, stdout)."""
import io

from django.core.management import call_command
from django.core.management.base import CommandError


def run(*args, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = exc.code
    except CommandError as exc:
        code = exc.returncode
        err.write(str(exc))
    return code, out.getvalue() + err.getvalue()

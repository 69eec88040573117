"""Tests that run only when asked for: one table of marker -> the variable that
asks for them (set by their make target), read by the one skip hook in
tests/conftest.py."""
import os

# marker -> (the variable its make target sets to 1, the skip reason).  No
# variable: asked for by naming the marker in ``-m`` (the browser tests).
OPT_IN = {
    "keystone": ("PLACEMENT_KEYSTONE_TEST", "real Keystone test: run `make test-keystone`"),
    "clients": ("PLACEMENT_CLIENTS_TEST", "real OpenStack clients test: run `make test-clients`"),
    "fuzz": ("PLACEMENT_FUZZ_TEST", "schema fuzzing: run `make test-fuzz`"),
    "galera": ("PLACEMENT_GALERA_TEST", "Galera cluster test: run `make test-galera`"),
    "replica": ("PLACEMENT_REPLICA_TEST", "streaming replica test: run `make test-replica`"),
    "install": ("PLACEMENT_INSTALL_TEST", "pip install integration test: run `make test-install`"),
    "browser": (None, "browser test: run with `make test-browser` (pytest -m browser)"),
}


def asked_for(marker, variable, markexpr, environ=os.environ):
    if variable is None:
        return marker in (markexpr or "")
    return environ.get(variable) == "1"


def opt_in_skips(markers, markexpr, environ=os.environ):
    """The skip reason for a test carrying ``markers``, or None when it runs."""
    for marker, (variable, reason) in OPT_IN.items():
        if marker in markers and not asked_for(marker, variable, markexpr, environ):
            return reason
    return None

"""The one skip hook for the tests that run only when asked for."""
from tests.support.opt_in import OPT_IN, opt_in_skips


def test_a_marked_test_is_skipped_unless_its_variable_asks_for_it():
    assert opt_in_skips({"galera"}, "", environ={}) == OPT_IN["galera"][1]
    assert opt_in_skips({"galera"}, "", environ={"PLACEMENT_GALERA_TEST": "0"}) is not None
    assert opt_in_skips({"galera"}, "", environ={"PLACEMENT_GALERA_TEST": "1"}) is None
    # Another marker's variable does not ask for it.
    assert opt_in_skips({"galera"}, "", environ={"PLACEMENT_REPLICA_TEST": "1"}) is not None


def test_the_browser_tests_are_asked_for_with_their_marker():
    assert opt_in_skips({"browser"}, "", environ={}) == OPT_IN["browser"][1]
    assert opt_in_skips({"browser"}, "browser", environ={}) is None


def test_unmarked_tests_always_run():
    assert opt_in_skips({"django_db"}, "", environ={}) is None

"""From 1.36 the request groups are judged in upstream's order and words:
request-wide parameters first (root_required, same_subtree), then at least
one group with resources, then every resourceless group (the unsuffixed one
included) named in same_subtree, then every same_subtree suffix a real
group; conflicts per any-of set."""
import pytest
from django.http import QueryDict

from placement_core import errors
from placement_core.querystring import parse_candidate_request


def error(qs, mv=(1, 39)):
    with pytest.raises(errors.BadRequest) as exc:
        parse_candidate_request(QueryDict(qs), mv)
    return str(exc.value.detail), exc.value.code


def ok(qs, mv=(1, 39)):
    return parse_candidate_request(QueryDict(qs), mv)


@pytest.mark.parametrize("extra", [
    "required_b=CUSTOM_A", "member_of_b=7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01",
    "in_tree_b=7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01", "required_b=in:CUSTOM_A,CUSTOM_B",
    "required_b=!CUSTOM_A",
])
def test_a_resourceless_group_of_any_parameter_must_be_in_same_subtree(extra):
    detail, code = error(f"resources_a=VCPU:1&{extra}&group_policy=none")
    assert detail == ("Resourceless suffixed group request should be specified in "
                      "`same_subtree` query param: bad group(s) - ['_b'].")
    assert code == errors.QUERY_BAD_VALUE
    request = ok(f"resources_a=VCPU:1&{extra}&group_policy=none&same_subtree=_a,_b")
    assert [g.suffix for g in request.groups] == ["_a", "_b"]


def test_the_unsuffixed_group_without_resources_is_a_bad_group():
    detail, _ = error("required=CUSTOM_A&resources_a=VCPU:1")
    assert detail.endswith("bad group(s) - [''].")


def test_no_group_with_resources():
    detail, code = error("required_a=CUSTOM_A&same_subtree=_a")
    assert detail == "There must be at least one resources or resources[$S] parameter."
    assert code == errors.QUERY_MISSING_VALUE


def test_resourceless_check_comes_before_unknown_suffixes():
    detail, _ = error("resources_a=VCPU:1&required_b=CUSTOM_A&same_subtree=_a,_c"
                      "&group_policy=none")
    assert "bad group(s) - ['_b']" in detail


def test_unknown_same_subtree_suffix_lists_the_groups_in_query_order():
    detail, code = error("resources_z=VCPU:1&resources=DISK_GB:1&resources_a=VCPU:1"
                         "&same_subtree=_z,_q&group_policy=none")
    assert detail == ("Real suffixes should be specified in `same_subtree`: ['_q'] not "
                      "found in ['_z', '', '_a'].")
    assert code == errors.QUERY_BAD_VALUE


def test_same_subtree_empty_suffix_is_refused_before_groups_are_read():
    detail, _ = error("resources=VCPU:bad&same_subtree=,_a")
    assert detail.startswith("Empty string (unsuffixed group) can not be specified")


def test_root_required_is_read_before_groups():
    detail, _ = error("resources=VCPU:bad&root_required=CUSTOM_A,!CUSTOM_A")
    assert "Conflicting required and forbidden traits found in root_required" in detail


def test_conflicts_are_named_per_any_of_set_and_sorted():
    detail, _ = error("resources=VCPU:1&required=CUSTOM_B,CUSTOM_A,!CUSTOM_A,!CUSTOM_B")
    assert detail.endswith("following traits keys: required: (CUSTOM_A), required: (CUSTOM_B)")
    detail, _ = error("resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_B&required=!CUSTOM_A,"
                      "!CUSTOM_B")
    assert detail.endswith("following traits keys: required: (CUSTOM_A, CUSTOM_B)")
    # An any-of set with one allowed member is no conflict.
    ok("resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_B&required=!CUSTOM_A")


def test_before_1_36_orphans_are_named_as_before():
    detail, _ = error("resources1=VCPU:1&required2=CUSTOM_A&group_policy=none", mv=(1, 35))
    assert detail.startswith("All traits parameters must be associated with resources.")

"""The one request-group grammar: typed groups, upstream's words, strict and lenient."""
import pytest
from django.http import QueryDict

from placement_core import errors
from placement_core.querystring import parse_candidate_request, parse_member_of, parse_resources

AGG1 = "7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01"
AGG2 = "7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a02"


def parse(qs, mv=(1, 39), **kw):
    return parse_candidate_request(QueryDict(qs), mv, **kw)


def test_groups_are_typed_and_ordered_unsuffixed_first():
    req = parse(f"resources2=DISK_GB:10&resources=VCPU:1&required=!CUSTOM_X&required=in:A,B"
                f"&member_of2=in:{AGG1},{AGG2}&group_policy=none&limit=5")
    assert [g.suffix for g in req.groups] == ["", "2"]
    first, second = req.groups
    assert first.resources == {"VCPU": 1}
    assert first.required.forbidden == {"CUSTOM_X"}
    assert first.required.any_of == [frozenset({"A", "B"})]
    assert second.member_of.any_of == [{AGG1, AGG2}]
    assert second.use_same_provider and not first.use_same_provider
    assert (req.group_policy, req.limit) == ("none", 5)


def test_comma_list_without_in_prefix_is_refused_with_upstreams_words():
    with pytest.raises(errors.BadRequest) as exc:
        parse_member_of([f"{AGG1},{AGG2}"], (1, 39))
    assert str(exc.value) == (
        "Multiple values for 'member_of' must be prefixed with the 'in:' or "
        f"'!in:' keyword using the valid microversion. Got: {AGG1},{AGG2}"
    )


def test_strict_needs_group_policy_lenient_assumes_none():
    qs = "resources1=VCPU:1&resources2=DISK_GB:1"
    with pytest.raises(errors.BadRequest, match='"group_policy" parameter is required'):
        parse(qs)
    assert parse(qs, strict=False).group_policy == "none"


def test_lenient_reads_at_the_newest_microversion():
    # in: is a 1.39 form; strict at 1.38 refuses it, lenient reads it.
    qs = "resources=VCPU:1&required=in:A,B"
    with pytest.raises(errors.BadRequest, match="only supported since microversion 1.39"):
        parse(qs, (1, 38))
    assert parse(qs, (1, 10), strict=False).groups[0].required.any_of == [frozenset({"A", "B"})]


def test_duplicate_class_last_amount_counts():
    """As upstream: a class named twice asks for its last amount."""
    assert parse_resources("VCPU:1,DISK_GB:5,VCPU:2") == {"VCPU": 2, "DISK_GB": 5}


def test_same_subtree_names_only_known_suffixes():
    with pytest.raises(errors.BadRequest) as exc:
        parse("resources_a=VCPU:1&same_subtree=_a,_b&group_policy=none")
    assert exc.value.code == errors.QUERY_BAD_VALUE
    assert "['_b'] not found in ['_a']" in str(exc.value)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/resource_providers", "/allocation_candidates"])
def test_both_endpoints_refuse_a_bad_trait_list_alike(api, path):
    resp = api.get(f"{path}?resources=VCPU:1&required=A,,B", mv="1.39")
    assert resp.status_code == 400
    assert (
        "Invalid query string parameters: Expected 'required' parameter value of the form: "
        "HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: A,,B"
    ) in resp.json()["errors"][0]["detail"]

"""The trait, aggregate and tree filters refused in openstack-placement
16.0.0's exact words and order, for every group (suffixed or not), on
both endpoints: checked against the reference answers one query at a time."""
import pytest
from django.http import QueryDict

from placement_core import errors
from placement_core.querystring import parse_candidate_request

AGG = "7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01"
AGG2 = "7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a02"
BAD = "Invalid query string parameters: "


def error(qs, mv=(1, 39)):
    with pytest.raises(errors.BadRequest) as exc:
        parse_candidate_request(QueryDict(qs), mv)
    return str(exc.value.detail)


def ok(qs, mv=(1, 39)):
    return parse_candidate_request(QueryDict(qs), mv)


@pytest.mark.parametrize("qs, mv, detail", [
    # in: before 1.39, and in root_required (which never takes it)
    ("resources_a=VCPU:1&required_b=in:A,B&same_subtree=_a,_b&group_policy=none", (1, 38),
     BAD + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion "
     "1.39. Got: in:A,B"),
    ("resources=VCPU:1&root_required=in:A", (1, 39),
     BAD + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion "
     "1.39. Got: in:A"),
    # a forbidden trait inside an any-of list, before or after the spaces
    ("resources_a=VCPU:1&required_b=in:A,!B&same_subtree=_a,_b&group_policy=none", (1, 39),
     BAD + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden traits. "
     "Got: in:A,!B"),
    ("resources=VCPU:1&required=in: !A", (1, 39),
     BAD + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden traits. "
     "Got: in: !A"),
    # empty trait names
    ("resources_a=VCPU:1&required_b=in:A,,B&same_subtree=_a,_b&group_policy=none", (1, 39),
     BAD + "Expected 'required' parameter value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: in:A,,B"),
    ("resources=VCPU:1&required=A,,B", (1, 39),
     BAD + "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: A,,B"),
    ("resources=VCPU:1&required=!", (1, 39),
     BAD + "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: !"),
    ("resources=VCPU:1&required=!A,,B", (1, 21),
     BAD + "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: !A,,B"),
    ("resources=VCPU:1&root_required=A,,X", (1, 39),
     BAD + "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: A,,X"),
    # a forbidden trait before 1.22 (the empty-name check comes first)
    ("resources=VCPU:1&required=!A", (1, 21),
     BAD + "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got: !A"),
    # member_of: the bad uuid itself; the comma list with the value
    (f"resources=VCPU:1&member_of=in:{AGG},bad", (1, 39),
     BAD + "Expected 'member_of' parameter to contain valid UUID(s). Got: bad"),
    (f"resources=VCPU:1&member_of=!in:{AGG},bad", (1, 39),
     BAD + "Expected 'member_of' parameter to contain valid UUID(s). Got: bad"),
    ("resources=VCPU:1&member_of=!", (1, 39),
     BAD + "Expected 'member_of' parameter to contain valid UUID(s). Got: "),
    (f"resources=VCPU:1&member_of={AGG},{AGG2}", (1, 39),
     "Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword "
     f"using the valid microversion. Got: {AGG},{AGG2}"),
    # before 1.32: the uuid is judged first, and the key is named with its suffix
    ("resources=VCPU:1&member_of=!bad", (1, 31),
     BAD + "Expected 'member_of' parameter to contain valid UUID(s). Got: bad"),
    (f"resources=VCPU:1&resources1=VCPU:1&member_of1=!{AGG}&group_policy=none", (1, 31),
     "Forbidden member_of1 parameters are not supported in the specified microversion"),
    # in_tree: no full stop after the value
    ("resources=VCPU:1&in_tree=bad", (1, 39),
     BAD + "Expected 'in_tree' parameter to be a format of uuid. Got: bad"),
    # orphans named in query order
    ("resources=VCPU:1&required2=A&required1=A&group_policy=none", (1, 25),
     "All traits parameters must be associated with resources.  Found the following "
     "orphaned traits keys: required2, required1"),
    (f"resources=VCPU:1&member_of2={AGG}&member_of1={AGG}&group_policy=none", (1, 25),
     "All member_of parameters must be associated with resources. Found the following "
     "orphaned member_of keys: member_of2, member_of1"),
])
def test_refused_in_upstreams_words(qs, mv, detail):
    assert error(qs, mv) == detail


def test_repeated_bangs_forbid_the_trait():
    # Upstream strips every leading "!" (a known quirk it keeps).
    assert ok("resources=VCPU:1&required=!!A").groups[0].required.forbidden == {"A"}
    assert ok("resources=VCPU:1&root_required=!!A").root_forbidden == {"A"}


def test_in_tree_around_spaces_is_taken():
    request = ok(f"resources_a=VCPU:1&in_tree_b= {AGG} &same_subtree=_a,_b&group_policy=none")
    assert request.groups[1].in_tree == AGG

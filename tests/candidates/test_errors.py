"""400s for bad queries, with Placement's messages, per microversion."""
import pytest

URL = "/allocation_candidates"


@pytest.mark.parametrize(
    "query, mv, message",
    [
        ("", "1.10", "'resources' is a required property"),
        ("?resources=", "1.10", "Got: empty string."),
        ("?resources=VCPU", "1.10", "Badly formed resources parameter"),
        ("?resources=VCPU:0", "1.10", "requires amount >= 1"),
        ("?resources=VCPU:x", "1.10", "expected positive integer amount"),
        ("?resources=MCPU:99", "1.10", "Invalid resource class in resources parameter"),
        ("?resources=VCPU:1&limit=5", "1.15", "'limit' was unexpected"),
        ("?resources=VCPU:1&limit=0", "1.16", "Failed validating 'pattern'"),
        ("?resources=VCPU:1&required=NOPE_TRAIT", "1.17", "No such trait(s): NOPE_TRAIT"),
        ("?resources=VCPU:1&required=!HW_CPU_X86_SSE", "1.17",
         "value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC."),
        ("?resources=VCPU:1&required=", "1.22", "HW_CPU_X86_VMX,!CUSTOM_MAGIC."),
        ("?resources=VCPU:1&member_of=not-a-uuid", "1.21", "to contain valid UUID(s)."),
        ("?resources=VCPU:1&member_of=!00000000-0000-0000-0000-000000000001", "1.31",
         "Forbidden member_of parameters are not supported"),
        ("?resources=VCPU:1&resources1=VCPU:1", "1.24", "'resources1' was unexpected"),
        ("?resources=VCPU:1&group_policy=bogus", "1.25", "'bogus' is not one of"),
        ("?required=HW_CPU_X86_SSE&required1=HW_CPU_X86_SSE", "1.25",
         "orphaned traits keys: required, required1"),
        ("?group_policy=isolate", "1.25", "At least one request group"),
        ("?resources=VCPU:1&in_tree=bad", "1.31", "Expected 'in_tree' parameter to be a format"),
        ("?resources=VCPU:1&root_required=HW_CPU_X86_SSE&root_required=HW_CPU_X86_SSE", "1.35",
         "may be specified only once"),
        ("?resources1=VCPU:1&required2=HW_CPU_X86_SSE&group_policy=none", "1.36",
         "Resourceless suffixed group request should be specified in `same_subtree`"),
        ("?resources_A=VCPU:1&same_subtree=_B", "1.36",
         "Real suffixes should be specified in `same_subtree`"),
        ("?resources=VCPU:1&required=in:HW_CPU_X86_SSE,HW_CPU_X86_SSE2", "1.38",
         "only supported since microversion 1.39"),
    ],
)
def test_bad_query(api, query, mv, message):
    resp = api.get(URL + query, mv=mv)
    assert resp.status_code == 400, resp.content
    assert message in resp.json()["errors"][0]["detail"]


def test_error_code_from_1_23(api):
    resp = api.get(URL + "?resources=VCPU:1&root_required=A,!A", mv="1.35")
    assert resp.status_code == 400
    assert resp.json()["errors"][0]["code"] == "placement.query.bad_value"

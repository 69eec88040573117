"""The candidates body is encoded with orjson for speed, yet byte for byte
as json.dumps writes it (upstream's spacing), at every microversion shape;
a number orjson cannot hold falls back to json.dumps."""
import json

import pytest

from candidates.api.render import encode

URL = "/allocation_candidates"
FLAT = "?resources=VCPU:1,DISK_GB:10"
GRANULAR = "?resources=DISK_GB:10&resources1=VCPU:1&resources2=FPGA:1&group_policy=none"
SUBTREE = ("?resources=DISK_GB:10&resources_C=VCPU:1&resources_F=FPGA:1&group_policy=none"
           "&same_subtree=_C,_F&required_C=HW_CPU_X86_AVX2")
CASES = [("1.10", FLAT), ("1.12", FLAT), ("1.17", FLAT), ("1.29", FLAT), ("1.29", GRANULAR),
         ("1.34", GRANULAR), ("1.36", SUBTREE), ("1.39", SUBTREE)]


@pytest.fixture
def tree(world):
    cn = world.provider("cn", inventory={"DISK_GB": 100}, traits=["COMPUTE_VOLUME_MULTI_ATTACH"])
    n0 = world.provider("numa0", parent=cn, inventory={"VCPU": 4},
                        traits=["HW_NUMA_ROOT", "HW_CPU_X86_AVX2"])
    world.provider("fpga0", parent=n0, inventory={"FPGA": 1})
    world.provider("flat", inventory={"VCPU": 8, "DISK_GB": 50}, traits=["HW_CPU_X86_AVX2"])
    return cn


@pytest.mark.parametrize("mv,query", CASES)
def test_body_bytes_are_what_json_dumps_writes(api, tree, query, mv):
    response = api.get(URL + query, mv=mv)
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body["allocation_requests"]  # something to compare
    assert response.content == json.dumps(body).encode()


def test_integers_beyond_64_bits_fall_back():
    body = {"provider_summaries": {"u": {"resources": {"VCPU": {"capacity": 2**70, "used": 0}}}}}
    assert encode(body) == json.dumps(body).encode()

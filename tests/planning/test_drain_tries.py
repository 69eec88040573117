"""The drain what-if's work: a shape that fits nowhere costs one look at
each target tree, however many consumers have that shape (their reason is
the same until something is placed), on nested trees with a sharing pool."""
import pytest

from planning import drain

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(world):
    """A source host whose NUMA cell holds three 20-VCPU instances and a
    2-VCPU one, each with disk on a pool every tree reaches; four target
    hosts whose cells take at most 16 VCPU at once (max_unit)."""
    agg = world.aggregate()
    pool = world.provider("pool", inventory={"DISK_GB": 1000},
                          traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[agg])
    src = world.provider("src", aggs=[agg])
    cell = world.provider("src-numa", parent=src, inventory={"VCPU": 64})
    for i in range(4):
        host = world.provider(f"t{i}", aggs=[agg])
        world.provider(f"t{i}-numa", parent=host,
                       inventory={"VCPU": {"total": 16, "max_unit": 16}})
    big = [world.consumer({cell: {"VCPU": 20}, pool: {"DISK_GB": 10}}) for _ in range(3)]
    small = world.consumer({cell: {"VCPU": 2}, pool: {"DISK_GB": 10}})
    return big, small


def test_a_shape_that_fits_nowhere_is_tried_once_per_tree(cloud, monkeypatch):
    big, small = cloud
    tries = []
    real = drain._try

    def counting(cloud_, need, root, drained):
        tries.append((need.consumer, root))
        return real(cloud_, need, root, drained)

    monkeypatch.setattr(drain, "_try", counting)
    result = drain.drain(providers=["src"])

    assert sorted(m.consumer for m in result.not_placed) == sorted(c.uuid for c in big)
    assert [m.consumer for m in result.placed] == [small.uuid]
    for move in result.not_placed:
        assert move.reason["kind"] == "max_unit" and move.reason["resource_class"] == "VCPU"
        assert move.reason["trees"] == move.reason["targets"] == 4
    # The four targets once for the 20-VCPU shape (the scan, its misses
    # the diagnosis), then the first target takes the 2 VCPU.
    assert len(tries) == 4 + 1

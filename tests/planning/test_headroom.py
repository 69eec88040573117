"""Headroom: instances of a flavor that still fit, checked against
hand-computed cases (reserved, allocation ratio, usage, max_unit, step_size,
nested trees, sharing pools counted once, per aggregate)."""
import pytest

from placement_core.querystring import Flavor, parse_flavors
from planning.headroom import headroom
from tests.support.world import World

pytestmark = pytest.mark.django_db

LARGE = Flavor("m1.large", {"VCPU": 4, "MEMORY_MB": 8192})


def test_flat_host_with_reserved_ratio_and_usage(db):
    w = World()
    # VCPU: (16 - 0) * 4.0 = 64, 10 used -> 54 free -> 13 of 4;
    # MEMORY: (65536 - 4096) * 1.0 = 61440, 8192 used -> 53248 -> 6 of 8192.
    cn = w.provider("cn", inventory={"VCPU": {"total": 16, "allocation_ratio": 4.0},
                                     "MEMORY_MB": {"total": 65536, "reserved": 4096}})
    w.allocate(cn, "VCPU", 10)
    w.allocate(cn, "MEMORY_MB", 8192)
    assert headroom([LARGE])["m1.large"]["cloud"] == 6


def test_max_unit_and_step_size_exclude_a_provider(db):
    w = World()
    w.provider("small-max", inventory={"VCPU": {"total": 64, "max_unit": 2},
                                       "MEMORY_MB": 65536})
    w.provider("odd-step", inventory={"VCPU": {"total": 64, "step_size": 3},
                                      "MEMORY_MB": 65536})
    w.provider("fine", inventory={"VCPU": 8, "MEMORY_MB": 65536})
    assert headroom([LARGE])["m1.large"]["cloud"] == 2  # only "fine": 8 // 4


def test_nested_tree_adds_its_cells_per_class(db):
    w = World()
    cn = w.provider("cn", inventory={"MEMORY_MB": 32768})
    w.provider("numa0", parent=cn, inventory={"VCPU": 6})  # 1 of 4
    w.provider("numa1", parent=cn, inventory={"VCPU": 10})  # 2 of 4
    assert headroom([LARGE])["m1.large"]["cloud"] == 3  # min(1 + 2, 32768 // 8192 = 4)


def test_a_sharing_pool_is_drawn_down_once_and_counted_per_aggregate(db):
    w = World()
    agg_a, agg_b = w.aggregate(), w.aggregate()
    disk = Flavor("d", {"VCPU": 1, "DISK_GB": 100})
    w.provider("cn1", inventory={"VCPU": 8}, aggs=[agg_a])
    w.provider("cn2", inventory={"VCPU": 8}, aggs=[agg_a])
    w.provider("cn3", inventory={"VCPU": 8}, aggs=[agg_b])
    w.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg_a],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    result = headroom([disk])["d"]
    assert result["cloud"] == 10  # the pool's 10 disks, shared by cn1 and cn2; cn3 has none
    assert result["aggregates"] == {str(agg_a.uuid): 10, str(agg_b.uuid): 0}


def test_flavor_parsing_and_errors():
    assert parse_flavors("a=VCPU:1; b=resources=VCPU:2,MEMORY_MB:512") == [
        Flavor("a", {"VCPU": 1}), Flavor("b", {"VCPU": 2, "MEMORY_MB": 512})]
    for bad in ("a", "a=", "a=VCPU:0", "a=VCPU:1;a=VCPU:2"):
        with pytest.raises(ValueError):
            parse_flavors(bad)


def test_console_overview_and_metric_show_it(settings):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from planning import capacity_metrics

    settings.PLACEMENT_FLAVORS = [LARGE]
    w = World()
    w.provider("cn", inventory={"VCPU": 16, "MEMORY_MB": 32768})
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    html = client.get("/console/").content.decode()
    row = html.split('id="headroom"')[1].split("</table>")[0]
    assert "m1.large" in row and '<td class="num">4</td>' in row
    capacity_metrics.clear_cache()
    body = Client().get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    assert 'placement_headroom_instances{aggregate="",flavor="m1.large"} 4.0' in body


def test_disabled_hosts_count_for_nothing(db):
    w = World()
    w.provider("on", inventory={"VCPU": 8, "MEMORY_MB": 65536})
    w.provider("off", inventory={"VCPU": 8, "MEMORY_MB": 65536},
               traits=["COMPUTE_STATUS_DISABLED"])
    assert headroom([LARGE])["m1.large"]["cloud"] == 2


def test_a_tree_in_two_aggregates_counts_per_aggregate_only_that_aggregates_pools(db):
    w = World()
    agg_a, agg_b = w.aggregate(), w.aggregate()
    disk = Flavor("d", {"VCPU": 1, "DISK_GB": 100})
    w.provider("cn", inventory={"VCPU": 8}, aggs=[agg_a, agg_b])
    w.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg_b],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    result = headroom([disk])["d"]
    assert result["cloud"] == 8
    assert result["aggregates"] == {str(agg_a.uuid): 0, str(agg_b.uuid): 8}


def test_a_child_in_an_aggregate_brings_only_itself_as_usage_snapshots_count_it(db):
    # The aggregate rule of usage snapshots: a provider counts in an
    # aggregate when it or its root is a member. Only the NUMA cell is a
    # member here, so the aggregate has the cell's VCPU and not the root's
    # memory: no m1.large fits in it, though two fit in the cloud.
    w = World()
    agg = w.aggregate()
    cn = w.provider("cn", inventory={"MEMORY_MB": 32768})
    w.provider("numa0", parent=cn, inventory={"VCPU": 8}, aggs=[agg])
    result = headroom([LARGE])["m1.large"]
    assert result["cloud"] == 2
    assert result["aggregates"] == {str(agg.uuid): 0}
    from operations.snapshots import compute

    assert {rc for scope, rc in compute() if scope == str(agg.uuid)} == {"VCPU"}


def test_a_root_in_an_aggregate_brings_its_whole_tree(db):
    w = World()
    agg = w.aggregate()
    cn = w.provider("cn", inventory={"MEMORY_MB": 32768}, aggs=[agg])
    w.provider("numa0", parent=cn, inventory={"VCPU": 8})
    w.provider("numa1", parent=cn, inventory={"VCPU": 4})
    assert headroom([LARGE])["m1.large"]["aggregates"] == {str(agg.uuid): 3}


def test_a_member_child_reaches_the_aggregates_pool(db):
    # The cell's aggregate holds a sharing disk pool: the cell's VCPU and the
    # pool's disk are both in the aggregate, and the engine lets the tree
    # draw on the pool through its cell.
    w = World()
    agg = w.aggregate()
    disk = Flavor("d", {"VCPU": 1, "DISK_GB": 100})
    cn = w.provider("cn", inventory={"MEMORY_MB": 32768})
    w.provider("numa0", parent=cn, inventory={"VCPU": 8}, aggs=[agg])
    w.provider("pool", inventory={"DISK_GB": 500}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    result = headroom([disk])["d"]
    assert result == {"cloud": 5, "aggregates": {str(agg.uuid): 5}}

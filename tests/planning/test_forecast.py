"""The forecast and stranded capacity (planning.forecast), its API, command,
console section and gauges."""
import json
import statistics

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from operations.models import UsageSnapshot
from placement_core import errors
from planning import forecast, metrics as planning_metrics
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db
NOW = timezone.now().replace(microsecond=0)


def _snapshots(points, rc="VCPU", aggregate="", capacity=1000):
    """points: [(days ago, used)]."""
    UsageSnapshot.objects.bulk_create([
        UsageSnapshot(taken_at=NOW - timezone.timedelta(days=ago), aggregate_uuid=aggregate,
                      resource_class=rc, capacity=capacity, used=used)
        for ago, used in points])


def test_fit_line_matches_the_statistics_module():
    points = [(0, 3.0), (1, 5.5), (2, 6.5), (4, 11.0), (7, 15.5)]
    slope, intercept, r2 = forecast.fit_line(points)
    expected = statistics.linear_regression([x for x, _ in points], [y for _, y in points])
    assert slope == pytest.approx(expected.slope)
    assert intercept == pytest.approx(expected.intercept)
    assert r2 == pytest.approx(statistics.correlation(
        [x for x, _ in points], [y for _, y in points]) ** 2)
    assert forecast.fit_line([(1, 2)]) is None
    assert forecast.fit_line([(1, 2), (1, 3)]) is None


def test_days_to_capacity_and_threshold_on_a_steady_rise():
    # 10 a day for 10 days, now at 500 of 1000: full in 50 days, 85 % in 35.
    _snapshots([(10 - d, 400 + 10 * d) for d in range(11)])
    (row,) = forecast.forecast(now=NOW, window_days=14, threshold_percent=85)["rows"]
    assert row["aggregate"] == "" and row["resource_class"] == "VCPU"
    assert row["samples"] == 11 and row["used"] == 500 and row["capacity"] == 1000
    assert row["trend_per_day"] == pytest.approx(10)
    assert row["r_squared"] == pytest.approx(1)
    assert row["days_to_capacity"] == pytest.approx(50)
    assert row["days_to_threshold"] == pytest.approx(35)


def test_window_leaves_older_snapshots_out():
    # Flat long ago, rising in the last week.
    _snapshots([(30, 900), (25, 100), (20, 900)] + [(7 - d, 100 + 20 * d) for d in range(8)])
    (row,) = forecast.forecast(now=NOW, window_days=7)["rows"]
    assert row["samples"] == 8 and row["trend_per_day"] == pytest.approx(20)


def test_not_growing_and_already_past():
    _snapshots([(2, 600), (1, 500), (0, 400)], rc="MEMORY_MB")
    _snapshots([(2, 950), (1, 960), (0, 990)], rc="DISK_GB")
    _snapshots([(0, 10)], rc="PCPU")
    rows = {r["resource_class"]: r for r in forecast.forecast(now=NOW)["rows"]}
    assert rows["MEMORY_MB"]["trend_per_day"] < 0
    assert rows["MEMORY_MB"]["days_to_capacity"] is None
    assert rows["MEMORY_MB"]["days_to_threshold"] is None
    assert rows["DISK_GB"]["days_to_threshold"] == 0  # 990 >= 850 already
    assert rows["DISK_GB"]["days_to_capacity"] == pytest.approx((1000 - 985) / 20, abs=0.6)
    assert rows["PCPU"]["trend_per_day"] is None and rows["PCPU"]["samples"] == 1


def test_per_aggregate_rows_and_filter():
    agg = "2b7cbd33-6e2f-4c4b-9d1b-1d9b6bde3a11"
    _snapshots([(1, 100), (0, 200)])
    _snapshots([(1, 10), (0, 30)], aggregate=agg, capacity=100)
    rows = forecast.forecast(now=NOW)["rows"]
    assert [(r["aggregate"], r["trend_per_day"]) for r in rows] == [("", 100), (agg, 20)]
    (only,) = forecast.forecast(now=NOW, aggregate=agg)["rows"]
    assert only["days_to_capacity"] == pytest.approx(3.5)


# Stranded capacity itself: tests/planning/test_stranded.py.


@pytest.mark.parametrize("query", [
    "?window_days=0", "?window_days=x", "?threshold_percent=101", "?aggregate=nope",
    "?bogus=1", "?show=-1", "?window_days=%C2%B2",
])
def test_api_bad_query(query):
    r = Client().get(f"/planning/forecast{query}", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 400
    assert json.loads(r.content)["errors"][0]["detail"]


def test_api(world):
    _snapshots([(10 - d, 400 + 10 * d) for d in range(11)])
    a = world.provider("a", inventory={"VCPU": 4, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 4}})
    client = Client()
    assert client.get("/planning/forecast").status_code == 401
    assert client.get("/planning/forecast", HTTP_X_AUTH_TOKEN="alice").status_code == 403
    r = client.get("/planning/forecast?threshold_percent=50&aggregate=",
                   HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 200
    body = json.loads(r.content)
    (row,) = body["forecast"]["rows"]
    assert body["forecast"]["threshold_percent"] == 50
    assert row["days_to_threshold"] == pytest.approx(0)  # 500 of 1000 is 50 % already
    assert body["stranded"]["MEMORY_MB"]["amount"] == 4096


def test_command(world):
    code, out = run("capacity_forecast")
    assert code == 0 and "no usage snapshots in the window" in out and "  none" in out
    _snapshots([(10 - d, 700 + 10 * d) for d in range(11)])
    code, out = run("capacity_forecast", "--json")
    assert code == 1  # 85 % (850) in 5 days, within the 14-day window
    body = json.loads(out)
    assert body["forecast"]["rows"][0]["days_to_threshold"] == pytest.approx(5)
    code, out = run("capacity_forecast", "--window-days", "0")
    assert code == 2 and "--window-days must be a whole number from 1 to 3650" in out
    code, out = run("capacity_forecast")
    header, row = out.splitlines()[1:3]
    assert header.split() == ["scope", "class", "used", "use", "trend", "fit", "r2", "85%",
                              "in", "full", "in"]
    assert row.split() == ["cloud", "VCPU", "800", "of", "1,000", "80%", "+10/day", "1.00",
                           "5", "d", "20", "d"]


def test_usage_page_shows_forecast_and_stranded(world):
    _snapshots([(10 - d, 400 + 10 * d) for d in range(11)])
    a = world.provider("a", inventory={"VCPU": 4, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 4}})
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    page = client.get("/console/usage/").content.decode()
    assert 'id="forecast"' in page and ">35.0</td>" in page and ">50.0</td>" in page
    # No flavor known: the default shapes; "a" has memory left and no VCPU or PCPU.
    assert 'id="stranded"' in page and ">a</a>" in page and "short of PCPU, VCPU" in page


def test_gauges(world, settings):
    settings.PLACEMENT_METRICS_CACHE_SECONDS = 0
    planning_metrics.clear_cache()
    _snapshots([(10 - d, 400 + 10 * d) for d in range(11)])
    _snapshots([(2, 600), (1, 500), (0, 400)], rc="MEMORY_MB")
    a = world.provider("a", inventory={"VCPU": 4, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 4}})
    body = Client().get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    assert 'placement_usage_trend_per_day{aggregate="",resource_class="VCPU"} 10.0' in body
    assert 'placement_usage_days_to_capacity{aggregate="",resource_class="VCPU"} 50.0' in body
    assert 'placement_usage_days_to_threshold{aggregate="",resource_class="VCPU"} 35.0' in body
    # Falling memory: a trend, no days.
    assert 'placement_usage_trend_per_day{aggregate="",resource_class="MEMORY_MB"} -100.0' in body
    assert 'placement_usage_days_to_capacity{aggregate="",resource_class="MEMORY_MB"}' not in body
    assert 'placement_stranded_capacity{resource_class="MEMORY_MB"} 4096.0' in body
    assert 'placement_stranded_providers{resource_class="MEMORY_MB"} 1.0' in body


def test_bad_arguments_raise_bad_request():
    from django.http import QueryDict

    with pytest.raises(errors.BadRequest):
        forecast.arguments(QueryDict("threshold_percent=0"))

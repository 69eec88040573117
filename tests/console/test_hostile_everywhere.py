"""Every console page, planning API, /explain, /history and admin list
given hostile values in every parameter it reads (and some it does not):
empty, blanks, 100 KB, NUL and other control characters, bytes that are
not UTF-8, lone surrogates, digits that are not ASCII, numbers past any
machine integer, repeated and array-style parameters, odd path segments.

Each test sends a whole family of values and reports every one that got a
5xx, raised, or showed a traceback, so one run shows all that is wrong.
It runs on every backend (``DATABASE_URL``): NUL characters fail only on
PostgreSQL, lengths and collations only on MariaDB."""
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from planning.models import Flavor
from tests.console.populate import populate, record_failures
from tests.support.api import PlacementClient

pytestmark = pytest.mark.django_db

NOWHERE = str(uuid.uuid4())
# Percent-encoded as sent on the wire (some are not UTF-8 on purpose).
VALUES = [
    "", "+", "%20%20", "%09", "%0a", "%0d%0a", "%00", "a%00b", "%01", "%1b%5B31m", "%7f",
    "%c2%85", "%e2%80%ae", "%ff", "%fe%ff", "%ed%a0%80", "%c0%80", "%c3", "%f0%9f%98%80",
    "x" * 100_000, "%C2%B2", "%D9%A3", "%EF%BC%91", "%E2%85%A0",
    "-1", "0", "1", "1e309", "-1e309", "1" + "0" * 30, "9" * 5000, "nan", "NaN", "inf",
    "-inf", "1.5", "0x10", "1_000", "%2B1", "2147483648", "9223372036854775808",
    "%27", "%22", "%3Cscript%3E", "%25", "%25zz", "%", "%zz", "[]", "{}", ",", ",,", "a,,b",
    "!", "in:", "in:,", "!!", "!in:", "null", "true",
    NOWHERE, NOWHERE.upper(), NOWHERE.replace("-", ""), "{" + NOWHERE + "}", "1234",
    "..%2F..%2Fetc%2Fpasswd", "CUSTOM_" + "A" * 300, "VCPU:1", "VCPU:-1",
    "VCPU:99999999999999999999", "VCPU%3A1%2CVCPU%3A2", "csv", "json",
]
# Numbers, uuids and repeated names are what these pages were found to misread.
SHORT = ["", "%00", "%ff", "%ed%a0%80", "x" * 100_000, "%C2%B2", "9" * 5000, "1e309", "-1",
         NOWHERE, "!", "%2C"]


def _problems(response):
    """What is wrong with an answer: a 5xx or a traceback in it."""
    if hasattr(response, "streaming_content"):
        body = b"".join(response.streaming_content)
    else:
        body = response.content
    if response.status_code >= 500:
        return f"{response.status_code}: {body[:300]!r}"
    if b"Traceback (most recent call last)" in body:
        return "traceback in the body"
    return None


def _probe(send, urls):
    failures = []
    for url in urls:
        try:
            problem = _problems(send(url))
        except Exception as exc:  # the test client re-raises what became a 500
            problem = f"raised {type(exc).__name__}: {str(exc)[:200]}"
        if problem:
            failures.append(f"{url[:160]} -> {problem}")
    return failures


def _queries(param, values=VALUES):
    for value in values:
        yield f"{param}={value}"
    yield f"{param}=a&{param}=b"
    yield f"{param}[]=a&{param}[]=b"
    yield f"{param}[0]=a"
    yield f"{param}"
    yield f"{param}=%00&{param}="


@pytest.fixture
def world(db):
    cloud = populate(n_nodes=3)
    failure_pk, request_id = record_failures(count=2)
    flavor = Flavor.objects.create(name="probe.small", resources="VCPU:1,MEMORY_MB:512")
    return {"provider": cloud["roots"][0].uuid, "consumer": cloud["consumers"][0].uuid,
            "aggregate": cloud["aggregates"][0].uuid, "failure": failure_pk,
            "request_id": request_id, "flavor": flavor.pk}


@pytest.fixture
def staff(db):
    client = Client()
    client.force_login(get_user_model().objects.create_user(
        "op", password="pw", is_staff=True, is_superuser=True))
    return client


def console_pages(world):
    """Each console GET page and the parameters it reads (and one it does not)."""
    return {
        "/console/": ["format", "table", "nothing"],
        "/console/providers/": ["name", "uuid", "member_of", "in_tree", "required", "resources",
                                "roots_only", "sort", "class", "full", "page", "format",
                                "q", "nothing"],
        "/console/forest/": ["q", "format", "nothing"],
        "/console/full/": ["class", "above", "sort", "page", "format", "nothing"],
        f"/console/providers/{world['provider']}/": ["format", "table", "nothing"],
        "/console/consumers/": ["q", "type", "table", "format", "page", "nothing"],
        f"/console/consumers/{world['consumer']}/": ["format", "table", "nothing"],
        "/console/why/": ["q", "nothing"],
        "/console/usage/": ["aggregate", "days", "format", "nothing"],
        "/console/drain/": ["provider", "tree", "aggregate", "target_aggregate", "required",
                            "fullest", "nothing"],
        "/console/failures/": ["global_request_id", "request_id", "kind", "reason", "hours",
                               "limit", "nothing"],
        f"/console/failures/{world['failure']}/": ["nothing"],
        "/console/audit/": ["migration_age_hours", "confirm", "done", "fixed", "failed",
                            "nothing"],
        "/console/flavors/": ["format", "nothing"],
        "/console/login/": ["next", "nothing"],
    }


def test_every_console_page_with_every_hostile_parameter(staff, world):
    failures = []
    for page, names in console_pages(world).items():
        for name in names:
            failures += _probe(staff.get, (f"{page}?{q}" for q in _queries(name)))
    assert not failures, "\n".join(failures)


def test_console_downloads_with_hostile_tables_and_filters(staff, world):
    """The CSV of each page, its filters hostile (a stream fails late)."""
    failures = []
    for page, names in console_pages(world).items():
        for name in names:
            if name in ("format", "page"):
                continue
            failures += _probe(staff.get, (f"{page}?format=csv&table=history&{q}"
                                           for q in _queries(name, SHORT)))
            failures += _probe(staff.get, (f"{page}?format=csv&{q}"
                                           for q in _queries(name, SHORT)))
    for table in ("totals", "headroom", "fullest", "consumers", "history", "projects",
                  "allocations"):
        for page in console_pages(world):
            failures += _probe(staff.get, [f"{page}?format=csv&table={table}"])
    assert not failures, "\n".join(failures)


SEGMENTS = [
    "%00", "a%00", "%ff", "%ed%a0%80", "%C2%B2", "%D9%A3", "x" * 10_000, "%20", "..", "%2e%2e",
    "%25", "%2F", "9" * 400, "-1", "0", NOWHERE, NOWHERE.upper(), NOWHERE.replace("-", ""),
    "{" + NOWHERE + "}", "%3Cscript%3E", "%1b", "%E2%80%AE",
]


def test_console_paths_with_odd_segments(staff, world):
    failures = []
    for segment in SEGMENTS:
        failures += _probe(staff.get, [
            f"/console/providers/{segment}/", f"/console/consumers/{segment}/",
            f"/console/failures/{segment}/", f"/console/assets/{segment}",
            f"/console/{segment}/", f"/console/providers/{segment}/?format=csv&table=history",
            f"/console/consumers/{segment}/?format=csv&table=history",
        ])
        failures += _probe(staff.post, [f"/console/flavors/{segment}/delete/"])
    assert not failures, "\n".join(failures)


def test_the_console_forms_with_hostile_fields(staff, world):
    fields = {
        "/console/flavors/": ["name", "resources", "nothing"],
        f"/console/flavors/{world['flavor']}/delete/": ["nothing"],
        "/console/audit/": ["fix", "consumer", "nothing"],
        "/console/login/": ["username", "password", "next", "nothing"],
        "/console/logout/": ["nothing"],
    }
    failures = []
    for page, names in fields.items():
        for name in names:
            for body in _queries(name):
                other = {"/console/flavors/": "name=probe.x&resources=VCPU%3A1",
                         "/console/audit/": "fix=consumers_without_allocations",
                         "/console/login/": "username=op&password=pw"}.get(page, "")

                def send(data, page=page):
                    return staff.post(page, data=data,
                                      content_type="application/x-www-form-urlencoded")

                failures += _probe(send, [f"{other}&{body}" if other else body])
    for huge in ("9" * 30, "9" * 5000):
        failures += _probe(staff.post, [f"/console/flavors/{huge}/delete/"])
        failures += _probe(staff.get, [f"/console/failures/{huge}/"])
    assert not failures, "\n".join(failures)


API = {
    "/planning/drain": ["provider", "tree", "aggregate", "target_aggregate", "required",
                        "fullest", "nothing"],
    "/planning/forecast": ["aggregate", "window_days", "threshold_percent", "show", "nothing"],
    "/planning/failures": ["global_request_id", "request_id", "kind", "reason", "hours",
                           "limit", "nothing"],
    "/explain": ["resources", "required", "member_of", "in_tree", "limit", "group_policy",
                 "root_required", "same_subtree", "resources1", "required_x", "nothing"],
}


@pytest.mark.parametrize("mv", [None, "1.39", "latest"])
def test_the_planning_api_explain_and_history_with_hostile_parameters(world, mv):
    api = PlacementClient(mv=mv)
    failures = []
    for path, names in API.items():
        for name in names:
            failures += _probe(api.get, (f"{path}?{q}" for q in _queries(name)))
    for kind, known in (("consumers", world["consumer"]), ("providers", world["provider"])):
        failures += _probe(api.get, (f"/history/{kind}/{known}?{q}" for q in _queries("since")))
        failures += _probe(api.get, (f"/history/{kind}/{segment}" for segment in SEGMENTS))
    assert not failures, "\n".join(failures)


def test_the_planning_api_without_credentials_or_with_odd_ones(world):
    failures = []
    for token in (None, "", "%00", "x" * 10_000, "\x1b"):
        api = PlacementClient(token=token)
        failures += _probe(api.get, ["/planning/drain?provider=x", "/planning/forecast",
                                     "/planning/failures", "/explain?resources=VCPU:1",
                                     f"/history/consumers/{NOWHERE}", "/metrics",
                                     "/healthcheck"])
    assert not failures, "\n".join(failures)


def test_the_admin_changelists_with_hostile_search_order_and_page(staff, world):
    from django.contrib import admin

    failures = []
    for model, model_admin in admin.site._registry.items():
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for name in ("q", "o", "p", "all", "e", "_popup", "_to_field", "id__exact",
                     "nothing__exact"):
            failures += _probe(staff.get, (f"{url}?{q}" for q in _queries(name, SHORT)))
        for filter_name in getattr(model_admin, "list_filter", ()):
            if isinstance(filter_name, str):
                failures += _probe(staff.get, (f"{url}?{filter_name}__exact={v}" for v in SHORT))
                failures += _probe(staff.get, (f"{url}?{filter_name}={v}" for v in SHORT))
        failures += _probe(staff.get, (f"{url}{segment}/change/" for segment in SEGMENTS))
    assert not failures, "\n".join(failures)


ADMIN_FORMS = {
    "/admin/planning/flavor/add/": ["name", "resources"],
    "/admin/providers/resourceprovider/add/": ["name", "uuid", "parent", "seen_generation"],
    "/admin/resource_classes/resourceclass/add/": ["name"],
    "/admin/resource_classes/trait/add/": ["name"],
    "/admin/auth/user/add/": ["username", "password1", "password2"],
}


def test_the_admin_forms_actions_and_lookups_with_hostile_values(staff, world):
    failures = []
    form = {"name": "probe-x", "resources": "VCPU:1", "uuid": "", "username": "probe",
            "password1": "Long-enough-1", "password2": "Long-enough-1",
            "inventories-TOTAL_FORMS": "0", "inventories-INITIAL_FORMS": "0",
            "providertrait_set-TOTAL_FORMS": "0", "providertrait_set-INITIAL_FORMS": "0",
            "provideraggregate_set-TOTAL_FORMS": "0", "provideraggregate_set-INITIAL_FORMS": "0"}
    for url, names in ADMIN_FORMS.items():
        for name in names + ["inventories-TOTAL_FORMS", "_save"]:
            def send(body, url=url):
                return staff.post(url, data=body,
                                  content_type="application/x-www-form-urlencoded")
            base = "&".join(f"{k}={v}" for k, v in form.items() if k != name)
            failures += _probe(send, (f"{base}&{q}" for q in _queries(name, SHORT)))
    for model in ("planning/flavor", "providers/resourceprovider", "allocations/consumer",
                  "auth/user", "resource_classes/trait"):
        def send(body, model=model):
            return staff.post(f"/admin/{model}/", data=body,
                              content_type="application/x-www-form-urlencoded")
        failures += _probe(send, (f"action=delete_selected&_selected_action={v}&index=0"
                                  for v in SHORT))
        failures += _probe(send, (f"action={v}&_selected_action=1&index=0" for v in SHORT))
        failures += _probe(send, (f"action=delete_selected&_selected_action=1&index={v}"
                                  for v in SHORT))
    failures += _probe(staff.get, (
        f"/admin/autocomplete/?app_label=providers&model_name=resourceprovider"
        f"&field_name=parent&{q}" for q in _queries("term", SHORT)))
    failures += _probe(staff.get, (
        f"/admin/autocomplete/?app_label={v}&model_name={v}&field_name={v}&term=a"
        for v in SHORT))
    failures += _probe(staff.get, (f"/admin/{segment}/" for segment in SEGMENTS))
    failures += _probe(staff.get, (f"/admin/providers/resourceprovider/{segment}/history/"
                                   for segment in SEGMENTS))
    failures += _probe(staff.get, (f"/admin/providers/resourceprovider/{segment}/delete/"
                                   for segment in SEGMENTS))
    failures += _probe(staff.get, (f"/admin/r/{segment}/{segment}/" for segment in SEGMENTS))
    assert not failures, "\n".join(failures)


PLACEMENT = {
    "/resource_providers": ["name", "uuid", "member_of", "in_tree", "required", "resources",
                            "nothing"],
    "/allocation_candidates": ["resources", "required", "member_of", "in_tree", "limit",
                               "group_policy", "root_required", "same_subtree", "resources1",
                               "required1", "member_of1", "in_tree1", "nothing"],
    "/usages": ["project_id", "user_id", "consumer_type", "nothing"],
    "/traits": ["name", "associated", "nothing"],
    "/resource_classes": ["nothing"],
}


@pytest.mark.parametrize("mv", ["1.0", "1.39", "latest"])
def test_the_placement_api_reads_with_hostile_parameters_and_paths(world, mv):
    api = PlacementClient(mv=mv)
    failures = []
    for path, names in PLACEMENT.items():
        for name in names:
            failures += _probe(api.get, (f"{path}?{q}" for q in _queries(name, SHORT)))
    for segment in SEGMENTS:
        failures += _probe(api.get, [
            f"/resource_providers/{segment}", f"/resource_providers/{segment}/inventories",
            f"/resource_providers/{segment}/inventories/{segment}",
            f"/resource_providers/{world['provider']}/inventories/{segment}",
            f"/resource_providers/{segment}/usages", f"/resource_providers/{segment}/traits",
            f"/resource_providers/{segment}/aggregates",
            f"/resource_providers/{segment}/allocations", f"/allocations/{segment}",
            f"/traits/{segment}", f"/resource_classes/{segment}"])
        failures += _probe(api.delete, [f"/allocations/{segment}", f"/traits/{segment}",
                                        f"/resource_classes/{segment}",
                                        f"/resource_providers/{segment}"])
        failures += _probe(api.put, [f"/traits/{segment}", f"/resource_classes/{segment}"])
    assert not failures, "\n".join(failures)

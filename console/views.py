"""The operator console: pages for staff users, and what every console view
shares (the staff check, the 400 page, the CSV download). They read, every
read through ``console.selectors``; what they write: the flavors headroom
counts (the Flavors page), through ``planning.flavor_services``. The
planning pages are in ``console.planning_views``, the Audit page and its
fixes in ``console.audit_views``."""
import csv
import itertools
import time
from functools import wraps
from pathlib import Path
from urllib.parse import unquote

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import user_passes_test
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseServerError, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template import loader
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.views.static import serve

from console import charts, params, paste, selectors
from console.throttle import ThrottledAuthenticationForm
from placement_core import errors
from placement_core.gcpause import collector_paused
from planning import flavor_services
from planning.forms import FlavorForm

PAGE_SIZE = 50
ASSETS = Path(__file__).resolve().parent / "static" / "console"

_staff_only = user_passes_test(lambda u: u.is_active and u.is_staff, login_url="console:login")


def bad_request(request, problem):
    """The console's 400: the message on a page that keeps the navigation."""
    return render(request, "console/bad_request.html", {"problem": problem}, status=400)


def not_found(request, exception=None):
    """The console's 404, its navigation kept (the site's URL map sends the
    console's paths here; elsewhere the site's own page answers)."""
    return render(request, "console/not_found.html", status=404)


def server_error(request):
    """The console's 500: rendered with no context at all (no user, no
    session), so it shows even with the database gone."""
    return HttpResponseServerError(loader.get_template("console/server_error.html").render())


def staff_required(view):
    """Staff only; then any NUL character is refused with a 400 page. The
    page is built with the cyclic garbage collector held off, as an API
    answer is (``placement_core.gcpause``): the forest and the explanations
    build tens of thousands of short-lived objects, and the collections
    they set off walked every live object again, a third of the time of
    those pages at 3,000 providers."""
    @wraps(view)
    def checked(request, *args, **kwargs):
        problem = params.nul_problem(request, kwargs)
        if problem:
            return bad_request(request, problem)
        with collector_paused():
            return view(request, *args, **kwargs)
    return _staff_only(checked)


class LoginView(auth_views.LoginView):
    template_name = "console/login.html"
    form_class = ThrottledAuthenticationForm


def asset(request, path):
    """The console's CSS/SVG, served by the app itself (no CDN, no collectstatic needed)."""
    try:
        return serve(request, path, document_root=str(ASSETS))
    except OSError:  # a name the file system refuses (too long): no such asset
        raise Http404("no such asset")


class _Echo:
    def write(self, value):
        return value


def _csv(filename, header, rows):
    """The whole filtered list (not one page) as CSV, streamed row by row."""
    writer = csv.writer(_Echo())
    lines = (writer.writerow(row) for row in itertools.chain([header], rows))
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _provider_rows(qs, batch=1000):
    """One row per provider and class: the providers in one pass (a sorted
    list is sorted once, not again per batch), capacities a batch at a time."""
    providers = qs.values_list("pk", "uuid", "name", "parent__uuid", "generation").iterator(
        chunk_size=batch)
    while chunk := list(itertools.islice(providers, batch)):
        caps = selectors.capacities(pk for pk, *_ in chunk)
        for pk, uuid, name, parent, generation in chunk:
            for cap in caps.get(pk, []) or [None]:
                yield [uuid, name, parent or "", generation,
                       cap.resource_class if cap else "", cap.capacity if cap else "",
                       cap.used if cap else ""]


def _page(request, queryset):
    paginator = Paginator(queryset, PAGE_SIZE)
    return paginator.get_page(request.GET.get("page"))


def _query_without_page(request):
    return _query_without(request, "page")


def _wants_csv(request):
    return request.GET.get("format") == "csv"


def _overview_csv(table):
    """One of the overview's tables as CSV (each table of a page names
    itself with ``table=``; only that table is read)."""
    if table == "totals":
        return _csv("capacity-by-class.csv",
                    ["resource_class", "total", "reserved", "allocation_ratio_min",
                     "allocation_ratio_max", "capacity", "used", "free"],
                    ([r.resource_class, r.total, r.reserved, r.ratio_min, r.ratio_max,
                      r.capacity, r.used, r.free] for r in selectors.class_totals()))
    if table == "headroom":
        flavors, counts = selectors.headroom_table()
        return _csv("headroom.csv", ["flavor", "resources", "aggregate", "instances"],
                    ([flavor.name, flavor_services.flavor_text(flavor), agg, n]
                     for flavor in flavors
                     for agg, n in [("", counts[flavor.name]["cloud"]),
                                    *counts[flavor.name]["aggregates"].items()]))
    if table == "fullest":
        return _csv("fullest-providers.csv",
                    ["uuid", "name", "resource_class", "used", "capacity", "percent"],
                    ([rp.uuid, rp.name, cap.resource_class, cap.used, cap.capacity, cap.percent]
                     for rp, cap in selectors.fullest_providers(10)))
    raise Http404(f"no table {table!r} on this page")


@staff_required
def overview(request):
    if _wants_csv(request):
        return _overview_csv(request.GET.get("table", ""))
    started = time.perf_counter()
    totals = selectors.class_totals()
    context = {
        "totals": totals,
        "chart": selectors.usage_by_class_chart(totals),
        "fullest": selectors.fullest_providers(10),
        "counts": selectors.counts(),
        "disabled_hosts": selectors.disabled_hosts(),
        "disabled_trait": selectors.DISABLED_TRAIT,
    }
    context["flavors"], context["headroom"] = selectors.headroom_table()
    context["aggregate_members"] = selectors.aggregate_members(
        {agg for counts in context["headroom"].values() for agg in counts["aggregates"]})
    context["configured"] = {f.name for f in settings.PLACEMENT_FLAVORS}
    context["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return render(request, "console/overview.html", context)


@staff_required
def flavors(request):
    """The flavors headroom counts: those of ``PLACEMENT_FLAVORS`` (read-only
    here) and those operators stored, which this page adds (POST, the shared
    ``FlavorForm``) and deletes."""
    form = FlavorForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            flavor_services.flavor_create(name=form.cleaned_data["name"],
                                   resources=form.cleaned_data["resources"])
        except errors.PlacementError as exc:  # e.g. the name was taken meanwhile
            form.add_error(None, exc.detail)
        else:
            return redirect("console:flavors")
    configured = list(settings.PLACEMENT_FLAVORS)
    taken = {f.name for f in configured}
    stored = [(f, f.name in taken) for f in selectors.stored_flavors()]
    if _wants_csv(request):
        return _csv("flavors.csv", ["name", "resources", "defined_in", "counted"], [
            *([f.name, flavor_services.flavor_text(f), "settings", "yes"] for f in configured),
            *([f.name, f.resources, "console", "no" if shadowed else "yes"]
              for f, shadowed in stored)])
    return render(request, "console/flavors.html", {
        "form": form, "configured": configured, "stored": stored})


@staff_required
@require_POST
def flavor_delete(request, pk):
    flavor = selectors.stored_flavor(pk)
    if flavor is None:
        raise Http404("no such flavor")
    try:
        flavor_services.flavor_delete(name=flavor.name)
    except errors.NotFound:
        pass  # deleted meanwhile: what was asked for
    return redirect("console:flavors")


@staff_required
def provider_list(request):
    # The API's FilterSet, at the newest microversion, blanks ignored and
    # errors shown on the page instead of raised.
    fs = selectors.provider_filter(request.GET or None)
    sort, resource_class, threshold, classes, problems = params.fullness_options(
        request, threshold_param="full")
    qs = selectors.with_fullness(fs.qs, resource_class)
    if threshold is not None:
        qs = selectors.full_at_least(qs, threshold / 100, resource_class)
    if sort != "name":
        qs = selectors.sort_by_fullness(qs, descending=sort == "full")
    if _wants_csv(request):
        return _csv("providers.csv", ["uuid", "name", "parent_uuid", "generation",
                                      "resource_class", "capacity", "used"],
                    _provider_rows(qs))
    page = _page(request, qs.select_related("parent"))
    caps = selectors.capacities(rp.pk for rp in page)
    disabled = selectors.disabled_among(rp.pk for rp in page)
    rows = [(rp, caps.get(rp.pk, []), rp.pk in disabled) for rp in page]
    return render(request, "console/provider_list.html", {
        "filter": fs, "page": page, "rows": rows, "query": _query_without_page(request),
        "problems": fs.problems + problems, "more_filters": _more_filters(request, fs),
        "sort": sort, "sorts": params.SORTS, "resource_class": resource_class,
        "classes": classes,
        "full": request.GET.get("full", "").strip() if threshold is not None else "",
        "sort_query": _query_without(request, "page", "sort"),
    })


FULL_HOSTS_THRESHOLD = 90.0


@staff_required
def full_hosts(request):
    """Every provider with a class (or the class asked for) used to the
    threshold or beyond, fullest first; its classes over the line shown."""
    _, resource_class, threshold, classes, problems = params.fullness_options(
        request, threshold_param="above", default_threshold=FULL_HOSTS_THRESHOLD)
    fraction = threshold / 100
    qs = selectors.full_providers(fraction, resource_class)

    def over(caps):
        return [c for c in caps if c.total and (not resource_class or c.resource_class == resource_class)
                and c.fraction >= fraction]

    if _wants_csv(request):
        return _csv("full-hosts.csv", ["uuid", "name", "root_name", "disabled", "resource_class",
                                       "used", "capacity", "percent"],
                    ([rp.uuid, rp.name, root.name if root else "", "yes" if off else "",
                      cap.resource_class, cap.used, cap.capacity, cap.percent]
                     for rp, root, caps, off in selectors.full_rows(qs, over)
                     for cap in caps))
    page = _page(request, qs)
    return render(request, "console/full_hosts.html", {
        "page": page, "rows": list(selectors.full_rows(page, over, batch=None)),
        "query": _query_without_page(request), "problems": problems,
        "above": f"{threshold:g}", "resource_class": resource_class, "classes": classes,
    })


def _query_without(request, *names):
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()




# The API's parameters the FilterSet applies but the form has no field of its
# own for: shown (and kept on the next submit) only when the URL has them.
MORE_FILTERS = ("name", "uuid", "in_tree", "member_of", "required", "roots_only")


def _more_filters(request, fs):
    return [(name, fs.filters[name].label, value)
            for name in MORE_FILTERS for value in request.GET.getlist(name) if value.strip()]


def _history_csv(filename, **which):
    """Every recorded change of a consumer or provider (not the page's latest 50)."""
    columns = ["created_at", "consumer_uuid", "provider_uuid", "resource_class",
               "amount_before", "amount_after", "consumer_generation", "request_id",
               "global_request_id", "user_id", "project_id", "microversion", "source",
               "owner_change", "event"]
    return _csv(filename, columns, ([moment.isoformat(), *rest]
                                    for moment, *rest in selectors.change_rows(columns, **which)))


def _provider_csv(rp, table):
    if table == "consumers":
        return _csv(f"provider-{rp.uuid}-consumers.csv",
                    ["consumer_uuid", "project_id", "user_id", "consumer_type",
                     "resource_class", "used"],
                    selectors.provider_consumer_rows(rp))
    if table == "history":
        return _history_csv(f"provider-{rp.uuid}-history.csv", provider=rp.uuid)
    raise Http404(f"no table {table!r} on this page")


@staff_required
def provider_detail(request, uuid):
    rp = selectors.provider(uuid)
    if rp is None:
        raise Http404("no such resource provider")
    if _wants_csv(request):
        return _provider_csv(rp, request.GET.get("table", ""))
    aggregates = selectors.provider_aggregates(rp)
    consumers, truncated = selectors.provider_consumers(rp)
    tree = selectors.provider_tree(rp)
    traits = selectors.provider_trait_names(rp)
    tree_aggregates = selectors.tree_aggregate_ids([node.pk for _, node in tree])
    parent_of = {node.pk: node.parent_id for _, node in tree}
    ancestors, up = set(), rp.parent_id
    while up is not None and up not in ancestors:
        ancestors.add(up)
        up = parent_of.get(up)
    return render(request, "console/provider_detail.html", {
        "rp": rp,
        "tree": tree,
        "ancestors": ancestors,
        "aggregate_members": selectors.aggregate_members(a.uuid for a in aggregates),
        # A root with children: what the whole tree holds (NUMA cells, NICs).
        "tree_totals": selectors.tree_totals([node.pk for _, node in tree])
        if len(tree) > 1 and rp.parent_id is None else {},
        "trees_served": selectors.trees_served(rp, traits, [a.pk for a in aggregates]),
        "capacities": selectors.capacities([rp.pk]).get(rp.pk, []),
        "traits": traits,
        # The tree's root carries the trait (a root's traits are at hand).
        "disabled": selectors.DISABLED_TRAIT in traits if rp.parent_id is None
        else bool(selectors.disabled_among([rp.pk])),
        "disabled_trait": selectors.DISABLED_TRAIT,
        "aggregates": aggregates,
        "sharing": selectors.sharing_providers(rp, tree_aggregates),
        "consumers": consumers, "consumers_truncated": truncated,
        **_history(provider=rp.uuid),
    })


@staff_required
def forest(request):
    """Every provider tree at once, each node with inventory, usage and
    consumers; a search keeps the trees holding a matching provider."""
    q = request.GET.get("q", "").strip()
    if _wants_csv(request):
        trees, _ = selectors.forest(q, limit=None)
        return _csv("forest.csv", ["uuid", "name", "parent_uuid", "root_uuid", "resource_class",
                                   "total", "reserved", "used", "capacity", "consumers"],
                    _forest_rows(trees))
    trees, matched = selectors.forest(q)
    return render(request, "console/forest.html", {
        "trees": trees, "matched": matched, "q": q, "limit": selectors.FOREST_TREES,
        "few": selectors.FOREST_TRAITS, "served": selectors.FOREST_SERVED,
        "listed": selectors.FOREST_SERVED_LISTED})


def _forest_rows(trees):
    """One row per provider and class (one row, class empty, for a provider
    without inventory); allocations without inventory have no total."""
    for tree in trees:
        for node in tree.nodes:
            head = [node.uuid, node.name, node.parent_uuid or "", node.root_uuid]
            for rc, inv in node.inventories.items() or [("", {})]:
                yield head + [rc, inv.get("total", ""), inv.get("reserved", ""),
                              inv.get("used", ""), inv.get("capacity", ""), node.consumers]


@staff_required
def consumer_list(request):
    table = request.GET.get("table", "")
    if _wants_csv(request) and table:
        if table != "projects":
            raise Http404(f"no table {table!r} on this page")
        return _csv("project-usage.csv", ["project", "consumers", "resource_class", "used"],
                    ([row["project"], row["consumers"], rc, n]
                     for row in selectors.project_totals(limit=None)
                     for rc, n in row["used"].items()))
    q = request.GET.get("q", "").strip()
    consumer_type = request.GET.get("type", "").strip()
    qs = selectors.consumers(q, consumer_type)
    if _wants_csv(request):
        return _csv("consumers.csv", ["uuid", "project", "user", "consumer_type", "generation",
                                      "allocations", "created_at"],
                    ([*row, created_at.isoformat()] for *row, created_at in qs.values_list(
                        "uuid", "project__external_id", "user__external_id",
                        "consumer_type__name", "generation", "n_allocations", "created_at",
                    ).iterator(chunk_size=2000)))
    page = _page(request, qs)
    holdings = selectors.consumer_holdings(c.uuid for c in page)
    return render(request, "console/consumer_list.html", {
        "page": page, "q": q, "query": _query_without_page(request),
        "rows": [(c, holdings.get(c.uuid, {"hosts": [], "pools": [], "resources": {}})) for c in page],
        "type": consumer_type,
        "types": selectors.consumer_type_names(),
        "projects": selectors.project_totals()})


@staff_required
def consumer_detail(request, uuid):
    consumer = selectors.consumer(uuid)
    if consumer is None:
        return _gone_consumer(request, uuid)
    if _wants_csv(request):
        table = request.GET.get("table", "")
        if table == "history":
            return _history_csv(f"consumer-{consumer.uuid}-history.csv", consumer=consumer.uuid)
        if table != "allocations":
            raise Http404(f"no table {table!r} on this page")
        return _csv(f"consumer-{consumer.uuid}-allocations.csv",
                    ["provider_uuid", "provider_name", "resource_class", "used"],
                    ([a.resource_provider.uuid, a.resource_provider.name, a.resource_class.name,
                      a.used] for a in selectors.consumer_allocations(consumer)))
    return render(request, "console/consumer_detail.html", {
        "consumer": consumer, "allocations": selectors.consumer_allocations(consumer),
        **_history(consumer=consumer.uuid)})


def _gone_consumer(request, uuid):
    """A deleted consumer's page: what the history recorded of it (a 404
    when it recorded nothing)."""
    recorded = _history(consumer=uuid)
    if not recorded["history"]:
        raise Http404("no such consumer")
    if _wants_csv(request):
        if request.GET.get("table", "") != "history":
            raise Http404("a deleted consumer has only its history")
        return _history_csv(f"consumer-{uuid}-history.csv", consumer=uuid)
    return render(request, "console/consumer_detail.html", {"gone": uuid, **recorded})


HISTORY_ROWS = 50


def _history(**which):
    """The latest allocation changes of a consumer or provider, newest first."""
    rows = selectors.latest_changes(HISTORY_ROWS + 1, **which)
    by = next(iter(which))
    shown = rows[:HISTORY_ROWS]
    return {"history": shown, "history_truncated": len(rows) > HISTORY_ROWS, "history_by": by,
            # The other side of each change, by name (providers) or kind (consumers).
            "history_names": selectors.provider_names(c.provider_uuid for c in shown)
            if by == "consumer" else {},
            "history_types": selectors.consumer_types(c.consumer_uuid for c in shown)
            if by == "provider" else {}}


# Providers named per step; identical reasons fold into one line with a count.
SHOW_REMOVED = 100


def _flavor_query(flavor):
    """A flavor as Nova asks for it: its resources, disabled hosts excluded."""
    return (f"resources={flavor_services.flavor_text(flavor)}"
            f"&root_required=!{selectors.DISABLED_TRAIT}")


@staff_required
def why_no_candidates(request):
    """Explain a query pasted as a query string, a URL or a log line holding one."""
    pasted = request.GET.get("q", "").strip()
    context = {"q": pasted, "flavors": [(f.name, _flavor_query(f)) for f in selectors.flavors()]}
    if not pasted:
        return render(request, "console/why.html", context)
    try:
        text = paste.query_of(pasted)
    except paste.NoQuery as exc:
        context["problems"] = [str(exc)]
        return render(request, "console/why.html", context)
    context["read"] = unquote(text) if text != pasted else ""
    context["problems"] = paste.plain_problems(text)
    if not context["problems"]:
        try:
            context["result"] = selectors.explanation(text, show=SHOW_REMOVED)
        except errors.PlacementError as exc:
            context["problems"] = [paste.first_line(str(exc))]
    return render(request, "console/why.html", context)


# Ten years: more than any retention keeps, and far from the dates Python
# can reach (a million days was an OverflowError).
USAGE_MAX_DAYS = 3650


def usage_default_days() -> int:
    """The Usage page's period unless asked: the forecast's window, so the
    charts show the snapshots the forecast beside them fits its line to."""
    return settings.PLACEMENT_FORECAST_WINDOW_DAYS


@staff_required
def usage(request):
    """Capacity and usage over time from the snapshots (charts drawn server-side)."""
    aggregate = request.GET.get("aggregate", "").strip()
    problem = None
    try:
        days = int(request.GET.get("days") or usage_default_days())
        if not 1 <= days <= USAGE_MAX_DAYS:
            raise ValueError
    except ValueError:
        problem = f"Days must be a whole number of at least 1 and at most {USAGE_MAX_DAYS}."
        days = usage_default_days()
    since = timezone.now() - timezone.timedelta(days=days)
    series = selectors.usage_series(aggregate, since)
    aggregates = selectors.snapshot_aggregates()
    if _wants_csv(request):
        return _csv("usage.csv", ["taken_at", "aggregate_uuid", "resource_class", "capacity",
                                  "used"],
                    ([taken_at.isoformat(), aggregate, rc, capacity, used]
                     for rc, samples in sorted(series.items())
                     for taken_at, capacity, used in samples))
    return render(request, "console/usage.html", {
        "charts": [charts.usage_chart(rc, samples) for rc, samples in sorted(series.items())],
        "aggregates": aggregates, "aggregate": aggregate, "days": days,
        "aggregate_members": selectors.aggregate_members(aggregates),
        "problem": problem, "planning": selectors.usage_forecast(aggregate),
        "max_days": USAGE_MAX_DAYS,
    }, status=400 if problem else 200)

"""The operator console: read-only pages for staff users."""
import time
from pathlib import Path

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import user_passes_test
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.static import serve

from allocations import history, snapshots
from allocations.models import Consumer, UsageSnapshot
from console import charts
from console import explain as explain_mod
from console.candidates_bridge import candidates_for
from console import selectors
from providers.filters import ResourceProviderFilterSet
from providers.models import ProviderAggregate, ResourceProvider

PAGE_SIZE = 50
ASSETS = Path(__file__).resolve().parent / "static" / "console"

staff_required = user_passes_test(lambda u: u.is_active and u.is_staff, login_url="console:login")


class LoginView(auth_views.LoginView):
    template_name = "console/login.html"


def asset(request, path):
    """The console's CSS/SVG, served by the app itself (no CDN, no collectstatic needed)."""
    return serve(request, path, document_root=str(ASSETS))


def _page(request, queryset):
    paginator = Paginator(queryset, PAGE_SIZE)
    return paginator.get_page(request.GET.get("page"))


def _query_without_page(request):
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


@staff_required
def overview(request):
    started = time.perf_counter()
    totals = selectors.class_totals()
    context = {
        "totals": totals,
        "chart": selectors.usage_by_class_chart(totals),
        "fullest": selectors.fullest_providers(10),
        "counts": selectors.counts(),
    }
    context["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return render(request, "console/overview.html", context)


@staff_required
def provider_list(request):
    # The API's FilterSet, at the newest microversion, blanks ignored and
    # errors shown on the page instead of raised.
    fs = ResourceProviderFilterSet(
        request.GET or None, queryset=ResourceProvider.objects.order_by("name"), lenient=True
    )
    qs = fs.qs
    page = _page(request, qs.select_related("parent"))
    caps = selectors.capacities(rp.pk for rp in page)
    rows = [(rp, caps.get(rp.pk, [])) for rp in page]
    return render(request, "console/provider_list.html", {
        "filter": fs, "page": page, "rows": rows, "query": _query_without_page(request),
        "problems": fs.problems,
    })


@staff_required
def provider_detail(request, uuid):
    rp = get_object_or_404(ResourceProvider, uuid=uuid)
    aggregates = list(rp.aggregates.order_by("uuid"))
    consumers, truncated = selectors.provider_consumers(rp)
    tree = selectors.provider_tree(rp)
    tree_aggregates = ProviderAggregate.objects.filter(
        resource_provider_id__in=[node.pk for _, node in tree]).values_list("aggregate_id", flat=True)
    return render(request, "console/provider_detail.html", {
        "rp": rp,
        "tree": tree,
        "capacities": selectors.capacities([rp.pk]).get(rp.pk, []),
        "traits": list(rp.traits.order_by("name").values_list("name", flat=True)),
        "aggregates": aggregates,
        "sharing": selectors.sharing_providers(rp, list(tree_aggregates)),
        "consumers": consumers, "consumers_truncated": truncated,
        **_history(provider=rp.uuid),
    })


@staff_required
def consumer_list(request):
    q = request.GET.get("q", "").strip()
    qs = Consumer.objects.select_related("project", "user", "consumer_type").annotate(
        n_allocations=Count("allocations")).order_by("uuid")
    if q:
        qs = qs.filter(Q(uuid__contains=q.lower()) | Q(project__external_id=q) | Q(user__external_id=q))
    return render(request, "console/consumer_list.html", {
        "page": _page(request, qs), "q": q, "query": _query_without_page(request)})


@staff_required
def consumer_detail(request, uuid):
    consumer = get_object_or_404(
        Consumer.objects.select_related("project", "user", "consumer_type"), uuid=uuid)
    return render(request, "console/consumer_detail.html", {
        "consumer": consumer, "allocations": selectors.consumer_allocations(consumer),
        **_history(consumer=consumer.uuid)})


HISTORY_ROWS = 50


def _history(**which):
    """The latest allocation changes of a consumer or provider, newest first."""
    rows = list(history.changes_for(**which).order_by("-created_at", "-id")[:HISTORY_ROWS + 1])
    return {"history": rows[:HISTORY_ROWS], "history_truncated": len(rows) > HISTORY_ROWS,
            "history_by": next(iter(which))}


@staff_required
def why_no_candidates(request):
    query = request.GET.get("q", "").strip()
    context = {"q": query}
    if query:
        try:
            parsed = explain_mod.parse_query(query)
        except explain_mod.QueryProblem as exc:
            context["problem"] = str(exc)
        else:
            context["reports"] = explain_mod.explain(parsed)
            context["candidates"] = candidates_for(parsed)
    return render(request, "console/why.html", context)


@staff_required
def usage(request):
    """Capacity and usage over time from the snapshots (charts drawn server-side)."""
    aggregate = request.GET.get("aggregate", "").strip()
    problem = None
    try:
        days = int(request.GET.get("days") or 7)
        if days < 1:
            raise ValueError
    except ValueError:
        problem, days = "Days must be a whole number of at least 1.", 7
    since = timezone.now() - timezone.timedelta(days=days)
    series = snapshots.series(aggregate_uuid=aggregate, since=since)
    aggregates = UsageSnapshot.objects.exclude(aggregate_uuid="").values_list(
        "aggregate_uuid", flat=True).distinct().order_by("aggregate_uuid")
    return render(request, "console/usage.html", {
        "charts": [charts.usage_chart(rc, samples) for rc, samples in sorted(series.items())],
        "aggregates": list(aggregates), "aggregate": aggregate, "days": days,
        "problem": problem,
    })

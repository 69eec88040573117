"""URL map: every Placement API route in one table, then admin, console and API docs.

Find an endpoint from its URL here: each row names the view class; the
view module's docstring names the service or selector behind it (and
docs/architecture.md has the whole URL -> view -> service table).  The
paths carry no trailing slash, as upstream's; ``<str:...>`` segments are
checked by the views (a bad uuid is a 404 with Placement's error body).
"""
from django.contrib import admin
from django.views.generic import RedirectView
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.negotiation import DefaultContentNegotiation

from allocations.api import views as allocations_views
from candidates.api import views as candidates_views
from console import views as console_views
from operations.api import history_views
from placement_core import handlers
from placement_core.views import RootView
from planning.api import metrics_views
from planning.api import views as planning_views
from providers.api import inventory_views
from providers.api import views as providers_views
from reshaper.api import views as reshaper_views
from resource_classes.api import views as catalog_views

CONSOLE_PREFIX = "console/"

urlpatterns = [
    path("", RootView.as_view(), name="root"),
    # resource_classes app: the catalogs.
    path("resource_classes",
         catalog_views.ResourceClassListView.as_view(), name="resource-class-list"),
    path("resource_classes/<str:name>",
         catalog_views.ResourceClassDetailView.as_view(), name="resource-class-detail"),
    path("traits", catalog_views.TraitListView.as_view(), name="trait-list"),
    path("traits/<str:name>", catalog_views.TraitDetailView.as_view(), name="trait-detail"),
    # providers app: providers, their aggregates, traits and inventories.
    path("resource_providers",
         providers_views.ResourceProviderListView.as_view(), name="resource-providers"),
    path("resource_providers/<str:uuid>",
         providers_views.ResourceProviderDetailView.as_view(), name="resource-provider"),
    path("resource_providers/<str:uuid>/aggregates",
         providers_views.ResourceProviderAggregatesView.as_view(),
         name="resource-provider-aggregates"),
    path("resource_providers/<str:uuid>/traits",
         providers_views.ResourceProviderTraitsView.as_view(), name="resource-provider-traits"),
    path("resource_providers/<str:uuid>/inventories",
         inventory_views.InventoriesView.as_view(), name="provider-inventories"),
    path("resource_providers/<str:uuid>/inventories/<str:resource_class>",
         inventory_views.InventoryView.as_view(), name="provider-inventory"),
    # allocations app: allocations, usages, allocation candidates.
    path("allocations", allocations_views.AllocationsView.as_view(), name="allocations"),
    path("allocations/<str:consumer_uuid>",
         allocations_views.ConsumerAllocationsView.as_view(), name="consumer-allocations"),
    path("resource_providers/<str:uuid>/allocations",
         allocations_views.ProviderAllocationsView.as_view(), name="provider-allocations"),
    path("resource_providers/<str:uuid>/usages",
         allocations_views.ProviderUsagesView.as_view(), name="provider-usages"),
    path("usages", allocations_views.UsagesView.as_view(), name="usages"),
    path("allocation_candidates",
         candidates_views.AllocationCandidatesView.as_view(), name="allocation-candidates"),
    # reshaper app.
    path("reshaper", reshaper_views.ReshaperView.as_view(), name="reshaper"),
    # planning app: capacity planning (not upstream).
    path("planning/drain", planning_views.DrainView.as_view(), name="planning-drain"),
    path("planning/forecast", planning_views.ForecastView.as_view(), name="planning-forecast"),
    path("planning/failures", planning_views.FailuresView.as_view(), name="planning-failures"),
    # Not Placement API: operations endpoints (GET /healthcheck is answered
    # in front of Django, placement_site/httpstack.py).
    path("metrics", metrics_views.MetricsView.as_view(), name="metrics"),
    path("history/consumers/<str:uuid>", history_views.ConsumerHistoryView.as_view(),
         name="consumer-history"),
    path("history/providers/<str:uuid>", history_views.ProviderHistoryView.as_view(),
         name="provider-history"),
    path("explain", candidates_views.ExplainView.as_view(), name="explain"),
    # Not Placement API: the admin, the console, the API docs, static files.
    # Browsers ask for /favicon.ico whatever the page says: the console's logo.
    path("favicon.ico", RedirectView.as_view(url="/console/assets/logo.svg", permanent=True)),
    path("admin/", admin.site.urls),
    path(CONSOLE_PREFIX, include("console.urls")),
    # DRF's own negotiation here, so that ?format=json (and Accept) pick the
    # schema's JSON or YAML rendering; Placement views always answer JSON.
    # (An include(), as the admin and the console are: the edge leaves every
    # path under it to Django, placement_core.edge.django_areas.)
    path("api/", include([
        path(
            "schema/",
            SpectacularAPIView.as_view(content_negotiation_class=DefaultContentNegotiation),
            name="openapi-schema",
        ),
        # No metadata answer for OPTIONS (DRF's would be rendered through the
        # page's template, which only GET names): a 405, as OPTIONS / is.
        path("docs/", SpectacularSwaggerView.as_view(url_name="openapi-schema",
                                                     metadata_class=None),
             name="openapi-docs"),
    ])),
    # Static files (/static/, Swagger UI, admin, console) are answered by
    # WhiteNoise (placement_site/staticfiles.py) before URL routing.
]



def not_found(request, exception=None):
    """A 404 under the console is the console's page (its navigation kept);
    elsewhere the kernel's: Placement's JSON on API paths, else the site's
    page (templates/404.html)."""
    if request.path_info.startswith("/" + CONSOLE_PREFIX):
        return console_views.not_found(request, exception)
    return handlers.not_found(request, exception)


def server_error(request):
    """The same split for a 500 (templates/500.html outside the console)."""
    if request.path_info.startswith("/" + CONSOLE_PREFIX):
        return console_views.server_error(request)
    return handlers.server_error(request)


handler404 = not_found
handler500 = server_error

"""URL map: the Placement API at the root, plus admin, console and API docs."""
from django.contrib import admin
from django.contrib.staticfiles.views import serve as static_serve
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.negotiation import DefaultContentNegotiation

from placement_site import handlers
from placement_site.views import RootView

urlpatterns = [
    path("", RootView.as_view(), name="root"),
    path("", include("resource_classes.api.urls")),
    path("", include("providers.api.urls")),
    path("", include("allocations.api.urls")),
    path("", include("allocations.api.candidates_urls")),
    path("", include("reshaper.api.urls")),
    path("admin/", admin.site.urls),
    path("console/", include("console.urls")),
    # DRF's own negotiation here, so that ?format=json (and Accept) pick the
    # schema's JSON or YAML rendering; Placement views always answer JSON.
    path(
        "api/schema/",
        SpectacularAPIView.as_view(content_negotiation_class=DefaultContentNegotiation),
        name="openapi-schema",
    ),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="openapi-schema"), name="openapi-docs"),
    # Static files (Swagger UI from drf-spectacular-sidecar, admin, console)
    # straight from the installed apps, so the pages work under gunicorn
    # without a CDN or a separate web server.
    re_path(r"^static/(?P<path>.+)$", static_serve, {"insecure": True}, name="static"),
]

handler404 = handlers.not_found
handler500 = handlers.server_error

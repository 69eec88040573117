"""URL map: the Placement API at the root, plus admin, console and API docs."""
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from placement_site import handlers
from placement_site.views import RootView

urlpatterns = [
    path("", RootView.as_view(), name="root"),
    path("", include("resource_classes.api.urls")),
    path("", include("providers.api.urls")),
    path("", include("allocations.api.urls")),
    path("", include("reshaper.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="openapi-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="openapi-schema"), name="openapi-docs"),
]

handler404 = handlers.not_found
handler500 = handlers.server_error

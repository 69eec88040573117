"""Routes of the allocations app (included at the root)."""
from django.urls import path

from allocations.api import views

urlpatterns = [
    path("allocations", views.AllocationsView.as_view(), name="allocations"),
    path(
        "allocations/<str:consumer_uuid>",
        views.ConsumerAllocationsView.as_view(),
        name="consumer-allocations",
    ),
    path(
        "resource_providers/<str:uuid>/allocations",
        views.ProviderAllocationsView.as_view(),
        name="provider-allocations",
    ),
    path(
        "resource_providers/<str:uuid>/usages",
        views.ProviderUsagesView.as_view(),
        name="provider-usages",
    ),
    path("usages", views.UsagesView.as_view(), name="usages"),
]

"""Routes of /resource_providers/{uuid}/inventories*."""
from django.urls import path

from providers.api.inventory_views import InventoriesView, InventoryView

urlpatterns = [
    path(
        "resource_providers/<str:uuid>/inventories",
        InventoriesView.as_view(),
        name="provider-inventories",
    ),
    path(
        "resource_providers/<str:uuid>/inventories/<str:resource_class>",
        InventoryView.as_view(),
        name="provider-inventory",
    ),
]

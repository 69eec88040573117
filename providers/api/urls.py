from django.urls import include, path

from providers.api import views

# Providers, aggregates and provider traits: providers.api.views.
# Inventories: providers.api.inventory_urls (kept apart so both can grow).
urlpatterns = [
    path("resource_providers", views.ResourceProviderListView.as_view(),
         name="resource-providers"),
    path("resource_providers/<str:uuid>", views.ResourceProviderDetailView.as_view(),
         name="resource-provider"),
    path("resource_providers/<str:uuid>/aggregates",
         views.ResourceProviderAggregatesView.as_view(), name="resource-provider-aggregates"),
    path("resource_providers/<str:uuid>/traits", views.ResourceProviderTraitsView.as_view(),
         name="resource-provider-traits"),
    path("", include("providers.api.inventory_urls")),
]

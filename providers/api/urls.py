from django.urls import include, path

# Providers, aggregates and provider traits: providers.api.views.
# Inventories: providers.api.inventory_urls (kept apart so both can grow).
urlpatterns = [
    path("", include("providers.api.inventory_urls")),
]

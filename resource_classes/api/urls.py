"""Routes of the resource class and trait catalogs."""
from django.urls import path

from resource_classes.api import views

urlpatterns = [
    path("resource_classes", views.ResourceClassListView.as_view(), name="resource-class-list"),
    path(
        "resource_classes/<str:name>",
        views.ResourceClassDetailView.as_view(),
        name="resource-class-detail",
    ),
    path("traits", views.TraitListView.as_view(), name="trait-list"),
    path("traits/<str:name>", views.TraitDetailView.as_view(), name="trait-detail"),
]

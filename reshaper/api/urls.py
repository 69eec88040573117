"""Route of the reshaper."""
from django.urls import path

from reshaper.api import views

urlpatterns = [
    path("reshaper", views.ReshaperView.as_view(), name="reshaper"),
]

from django.contrib.auth import views as auth_views
from django.urls import path

from console import audit_views, planning_views, views

app_name = "console"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="console:login"), name="logout"),
    path("assets/<path:path>", views.asset, name="asset"),
    path("providers/", views.provider_list, name="providers"),
    path("forest/", views.forest, name="forest"),
    path("full/", views.full_hosts, name="full"),
    path("providers/<str:uuid>/", views.provider_detail, name="provider"),
    path("consumers/", views.consumer_list, name="consumers"),
    path("consumers/<str:uuid>/", views.consumer_detail, name="consumer"),
    path("why/", views.why_no_candidates, name="why"),
    path("usage/", views.usage, name="usage"),
    path("drain/", planning_views.drain_what_if, name="drain"),
    path("failures/", planning_views.scheduling_failures, name="failures"),
    path("failures/<int:pk>/", planning_views.scheduling_failure, name="failure"),
    path("audit/", audit_views.audit_page, name="audit"),
    path("flavors/", views.flavors, name="flavors"),
    path("flavors/<int:pk>/delete/", views.flavor_delete, name="flavor_delete"),
]

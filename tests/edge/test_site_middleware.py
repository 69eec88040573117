"""Sessions, log-in and messages are the site's pages' (placement_site/site_middleware.py):
an API request passes them by, the console's and the admin's pages still have them."""
import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_an_api_request_passes_them_by():
    response = Client().get("/", HTTP_X_AUTH_TOKEN="admin")
    assert response.status_code == 200
    request = response.wsgi_request
    assert not hasattr(request, "session")
    assert not hasattr(request, "_messages")
    # DRF's: no authentication classes, no user (PlacementView).
    assert request.user is None


@pytest.mark.parametrize("path", ["/admin/login/", "/metrics"])
def test_the_site_s_pages_and_operations_endpoints_have_them(path):
    request = Client().get(path).wsgi_request
    assert hasattr(request, "session") and hasattr(request, "user")
    assert hasattr(request, "_messages")

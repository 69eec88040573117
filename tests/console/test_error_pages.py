"""Outside the API, errors are pages a person can read: the console's 404
keeps its navigation, the site's own 404 and 500 (templates/) stand alone,
and /favicon.ico answers instead of failing."""
import pytest
from django.test import Client, RequestFactory, override_settings
from django.urls import include, path

from placement_core import handlers

pytestmark = pytest.mark.django_db


def test_console_404_is_a_styled_page():
    response = Client().get("/console/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "/console/assets/console.css" in html and "<h1>Not found</h1>" in html


def test_a_404_raised_inside_a_console_view_keeps_the_navigation(django_user_model):
    staff = django_user_model.objects.create_user("ops", password="x", is_staff=True)
    client = Client()
    client.force_login(staff)
    response = client.get("/console/failures/999999/")
    assert response.status_code == 404
    html = response.content.decode()
    assert 'aria-label="Console"' in html and "/console/failures/999999/" in html


def test_the_site_404_outside_the_console_is_the_sites_page():
    response = Client().get("/api/no-such-page")
    assert response.status_code == 404
    html = response.content.decode()
    assert "<title>Not found · Placement</title>" in html
    assert "<code>/api/no-such-page</code>" in html and 'href="/api/docs/"' in html
    assert "console" not in html.lower()


def test_500_page_is_styled(settings):
    response = handlers.server_error(RequestFactory().get("/console/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content and b"<style>" in response.content


# A URL map with the API docs and no console: the site's pages name no
# console URL, so they still render (a path under the API docs' include is
# one of the site's own pages, not the API's).
urlpatterns = [path("api/", include([path("docs/", lambda request: None, name="openapi-docs")]))]


@override_settings(ROOT_URLCONF=__name__)
def test_the_site_pages_render_without_the_console():
    from django.http import Http404

    response = handlers.not_found(RequestFactory().get("/api/x"), Http404())
    assert response.status_code == 404 and b"Not found" in response.content
    assert handlers.server_error(RequestFactory().get("/x")).status_code == 500


def test_favicon_is_the_console_logo():
    response = Client().get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/console/assets/logo.svg"
    assert Client().get("/console/assets/logo.svg").status_code == 200


def test_api_404_stays_placement_json():
    response = Client().get("/no-such-api-path", HTTP_X_AUTH_TOKEN="admin")
    assert response.status_code == 404
    assert response.json()["errors"][0]["status"] == 404


@pytest.mark.parametrize("name", ["x" * 300, "a/" * 3000 + "b", "%00", "%ff"])
def test_an_asset_no_file_can_be_is_a_404(name):
    # A name longer than the file system takes was an OSError, a 500.
    response = Client().get(f"/console/assets/{name}")
    assert response.status_code == 404


def test_the_sites_handlers_split_console_and_site_pages():
    from django.urls import get_resolver

    server_error = get_resolver().resolve_error_handler(500)
    console_page = server_error(RequestFactory().get("/console/providers/")).content.decode()
    site_page = server_error(RequestFactory().get("/api/docs/")).content.decode()
    assert 'aria-label="Console"' in console_page and "Placement console" in console_page
    assert "Something went wrong" in site_page and 'aria-label="Console"' not in site_page

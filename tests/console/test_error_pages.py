"""Outside the API, errors are pages a person can read: a styled 404 and
500, and /favicon.ico answers instead of failing."""
import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_console_404_is_a_styled_page():
    response = Client().get("/console/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "/console/assets/console.css" in html and "<h1>Not found</h1>" in html


def test_500_page_is_styled(settings):
    from placement_core.handlers import server_error
    from django.test import RequestFactory

    response = server_error(RequestFactory().get("/console/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content


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

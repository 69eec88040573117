"""Whole numbers longer than Python reads (int() refuses more than 4300
digits) given to the planning parameters: the API's 400 and the console's
message, never a 500."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db

LONG = "9" * 5000
ZEROS = "0" * 5000 + "7"


@pytest.mark.parametrize("path,words", [
    ("/planning/drain?provider=cn1&fullest={}", "fullest must be a whole number from 0 to 1000"),
    ("/planning/forecast?window_days={}", "window_days must be a whole number from 1 to 3650"),
    ("/planning/forecast?threshold_percent={}",
     "threshold_percent must be a whole number from 1 to 100"),
    ("/planning/forecast?show={}", "show must be a whole number from 0 to 10000"),
    ("/planning/failures?hours={}", "hours must be a whole number from 1 to 8760"),
    ("/planning/failures?limit={}", "limit must be a whole number from 0 to 1000"),
])
def test_a_number_of_thousands_of_digits_is_a_400(api, path, words):
    response = api.get(path.format(LONG))
    assert response.status_code == 400, response.content
    assert words in response.json()["errors"][0]["detail"]


def test_leading_zeros_do_not_make_a_number_too_long(api):
    response = api.get(f"/planning/failures?hours={ZEROS}")
    assert response.status_code == 200, response.content
    assert response.json()["hours"] == 7


def test_the_console_failures_page_says_so():
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    response = staff.get(f"/console/failures/?hours={LONG}")
    assert response.status_code == 200
    assert "hours must be a whole number from 1 to 8760" in response.content.decode()

"""Logging in to the console in a browser test, as the operator each test
makes (user "operator", password "s3cret-pw")."""


def login(page, base, next_path="/console/"):
    """Open ``next_path``, fill the login form it redirects to, and wait to be back."""
    page.goto(f"{base}{next_path}")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{next_path}")

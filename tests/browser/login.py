"""Logging in to the console in a browser test, as the operator each test
makes (user "operator", password "s3cret-pw"), and following a link or
submitting a form."""


def login(page, base, next_path="/console/"):
    """Open ``next_path``, fill the login form it redirects to, and wait to be back."""
    page.goto(f"{base}{next_path}")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{next_path}")


def follow(page, target):
    """Click ``target`` (a selector or a locator) that loads a new page, and
    wait for that page's load event.  A plain click returns once the new page
    has started to load: on a slow machine the next look at the page then
    finds an empty document, or the old one (CI once counted no rows in a
    table the page had)."""
    with page.expect_navigation():
        if isinstance(target, str):
            page.click(target)
        else:
            target.click()

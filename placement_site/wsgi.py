"""WSGI entry point: `gunicorn placement_site.wsgi:application`."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")

application = get_wsgi_application()

# PLACEMENT_AUTH_STRATEGY=keystone: keystonemiddleware's auth_token in front
# (placement_site/keystone.py).  noauth2 serves the Django app as it is.
from django.conf import settings  # noqa: E402

if settings.PLACEMENT_AUTH_STRATEGY == "keystone":
    from placement_site import keystone  # noqa: E402

    application = keystone.wrap(application)
elif settings.PLACEMENT_AUTH_STRATEGY != "noauth2":
    from django.core.exceptions import ImproperlyConfigured  # noqa: E402

    raise ImproperlyConfigured(
        f"PLACEMENT_AUTH_STRATEGY={settings.PLACEMENT_AUTH_STRATEGY!r}: "
        "use 'keystone' or 'noauth2'"
    )

# Load the policy now, so that a bad PLACEMENT_POLICY_FILE stops start-up.
from placement_site import policy as _policy  # noqa: E402

_policy.get_enforcer()

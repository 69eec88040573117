"""Static files served by WhiteNoise: /static/ (admin, Swagger UI, console)
from the installed apps or, after `collectstatic`, compressed from
STATIC_ROOT; and the console's /console/assets/ from the same files."""
import warnings

from pathlib import Path

from django.apps import apps
from whitenoise.middleware import WhiteNoiseMiddleware


class PlacementStaticMiddleware(WhiteNoiseMiddleware):
    def __init__(self, get_response=None):
        with warnings.catch_warnings():
            # STATIC_ROOT exists only after `collectstatic`; the finders
            # serve the same files until then.
            warnings.filterwarnings("ignore", message="No directory at")
            super().__init__(get_response)
        # The console's templates link /console/assets/<file>.  Found through
        # the app registry: placement_site sits below console in the app order.
        assets = Path(apps.get_app_config("console").path) / "static" / "console"
        self.add_files(str(assets), prefix="console/assets/")

"""Static files served by WhiteNoise: /static/ (admin, Swagger UI, console)
from the installed apps or, after `collectstatic`, compressed from
STATIC_ROOT; and the console's /console/assets/ from the same files."""
import warnings

from whitenoise.middleware import WhiteNoiseMiddleware

from console.views import ASSETS


class PlacementStaticMiddleware(WhiteNoiseMiddleware):
    def __init__(self, get_response=None):
        with warnings.catch_warnings():
            # STATIC_ROOT exists only after `collectstatic`; the finders
            # serve the same files until then.
            warnings.filterwarnings("ignore", message="No directory at")
            super().__init__(get_response)
        # The console's templates link /console/assets/<file>.
        self.add_files(str(ASSETS), prefix="console/assets/")

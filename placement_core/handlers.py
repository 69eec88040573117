"""Django's 404/500 handlers: Placement's error format on API paths."""
import sys

from django.views import defaults

from placement_core import errors
from placement_core.edge import is_api_path


def not_found(request, exception=None):
    if is_api_path(request.path_info):
        # An unknown route: upstream's router answers it without vary.
        return errors.render_error(request, errors.NotFound("", vary=False))
    return defaults.page_not_found(request, exception)


def server_error(request):
    if is_api_path(request.path_info):
        # Called while Django handles the exception: outside the views
        # (middleware, the session) an unreadable body is still a 400 and
        # a lost database still a 503, not a 500.
        exc = sys.exc_info()[1]
        mapped = errors.for_request_error(exc) or errors.for_database_error(exc)
        return errors.render_error(
            request, mapped or errors.PlacementError("An unexpected error occurred."))
    return defaults.server_error(request)

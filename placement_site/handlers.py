"""Django's 404/500 handlers: Placement's error format on API paths."""
from django.views import defaults

from placement_site import errors
from placement_site.edge import is_api_path


def not_found(request, exception=None):
    if is_api_path(request.path_info):
        return errors.render_error(request, errors.NotFound(""))
    return defaults.page_not_found(request, exception)


def server_error(request):
    if is_api_path(request.path_info):
        return errors.render_error(request, errors.PlacementError("An unexpected error occurred."))
    return defaults.server_error(request)

"""What the API port serves besides the API: the console and the Django
admin only when the operator turned them on (``[console] enabled``,
``PLACEMENT_CONSOLE``).  Off, their URLs are the same 404 as any unknown
path: a deployment tool that knows nothing of them exposes nothing."""
from django.conf import settings
from django.http import Http404

GATED_PREFIXES = ("/console/", "/admin/")


class ConsoleSurfaceMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.PLACEMENT_CONSOLE_ENABLED and (
                request.path_info.startswith(GATED_PREFIXES)
                or request.path_info in ("/console", "/admin")):
            raise Http404("the console is not enabled")
        return self.get_response(request)

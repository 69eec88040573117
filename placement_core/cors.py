"""Cross-Origin Resource Sharing, as OpenStack services answer it.

Off unless ``PLACEMENT_CORS_ALLOWED_ORIGINS`` lists origins; then:

* a preflight (``OPTIONS`` with ``Origin`` and
  ``Access-Control-Request-Method``) is answered here, before
  authentication, with 200: the ``Access-Control-Allow-*`` headers when the
  origin, the method and every requested header are allowed, and no CORS
  headers at all otherwise;
* any other request from an allowed ``Origin`` gets
  ``Access-Control-Allow-Origin`` (and credentials, exposed headers) on its
  response.

With CORS off nothing is added, and ``OPTIONS /`` stays a 405.
The rest of oslo.middleware's ``[cors]`` options (each also
``PLACEMENT_CORS_*``): ``allow_headers`` replaces the default list of request
headers a preflight may ask for, ``allow_methods`` the methods it may ask
for, ``expose_headers`` the response headers a page's script may read;
``max_age`` is how long a browser may keep a preflight's answer (0: no
``Access-Control-Max-Age``), and ``allow_credentials`` false leaves out
``Access-Control-Allow-Credentials`` (no cookies or auth headers sent).
"""
from django.conf import settings
from django.http import HttpResponse

# Headers any cross-origin request may send without being listed.
SIMPLE_HEADERS = ("cache-control", "content-language", "content-type", "expires",
                  "last-modified", "pragma")


def _origins():
    return [o.rstrip("/") for o in settings.PLACEMENT_CORS_ALLOWED_ORIGINS]


def _allow_headers():
    return list(settings.PLACEMENT_CORS_ALLOW_HEADERS)


def _allow_methods():
    return list(settings.PLACEMENT_CORS_ALLOW_METHODS)


def _expose_headers():
    return list(settings.PLACEMENT_CORS_EXPOSE_HEADERS)


def _credentials(response):
    if settings.PLACEMENT_CORS_ALLOW_CREDENTIALS:
        response["Access-Control-Allow-Credentials"] = "true"


def _split(value):
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def _add_vary(response, name):
    vary = response.get("Vary")
    if not vary:
        response["Vary"] = name
    elif name.lower() not in [v.strip().lower() for v in vary.split(",")]:
        response["Vary"] = f"{vary}, {name}"


def _origin_allowed(origin):
    origins = _origins()
    return "*" in origins or origin.rstrip("/") in origins


def preflight_response(request):
    """The answer to a CORS preflight request."""
    response = HttpResponse(status=200)
    origin = request.headers.get("Origin", "")
    method = request.headers.get("Access-Control-Request-Method", "").strip().upper()
    if not _origin_allowed(origin) or method not in _allow_methods():
        return response
    requested = _split(request.headers.get("Access-Control-Request-Headers"))
    allowed = {h.lower() for h in _allow_headers()} | set(SIMPLE_HEADERS)
    if any(h.lower() not in allowed for h in requested):
        return response
    response["Access-Control-Allow-Origin"] = origin
    _credentials(response)
    response["Access-Control-Allow-Methods"] = method
    max_age = settings.PLACEMENT_CORS_MAX_AGE
    if max_age:
        response["Access-Control-Max-Age"] = str(max_age)
    if requested:
        response["Access-Control-Allow-Headers"] = ",".join(requested)
    _add_vary(response, "Origin")
    return response


class CORSMiddleware:
    """Django middleware; must come before the Placement edge (auth)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _origins():
            return self.get_response(request)
        origin = request.headers.get("Origin")
        if (
            origin
            and request.method == "OPTIONS"
            and "Access-Control-Request-Method" in request.headers
        ):
            return preflight_response(request)
        response = self.get_response(request)
        if origin and _origin_allowed(origin):
            response["Access-Control-Allow-Origin"] = origin
            _credentials(response)
            response["Access-Control-Expose-Headers"] = ",".join(_expose_headers())
            _add_vary(response, "Origin")
        return response

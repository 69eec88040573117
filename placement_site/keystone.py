"""The ``keystone`` auth strategy: keystonemiddleware's auth_token in front
of the Django WSGI application.

auth_token validates the ``X-Auth-Token`` of every request with Keystone
and passes on the caller's identity in ``X-User-Id``, ``X-Project-Id``,
``X-Roles``, ``OpenStack-System-Scope``...; ``placement_core.edge`` builds
the request context from those.  An invalid or missing token is answered
401 by auth_token itself (with ``WWW-Authenticate: Keystone uri=...``).
``GET /`` (the version document) needs no token, nor do the non-API pages
(Django admin, console, docs, static files).

keystonemiddleware is not in requirements.txt: install
``requirements-keystone.txt`` to use this strategy.

Configuration, from the environment (read by placement_site/config.py):

============================================== =====================================
``PLACEMENT_KEYSTONE_AUTH_URL``                Keystone URL the service user logs in
                                               at (required), e.g.
                                               ``http://keystone:5000/v3``
``PLACEMENT_KEYSTONE_WWW_AUTHENTICATE_URI``    URL told to clients in
                                               ``WWW-Authenticate`` (default: the
                                               auth URL)
``PLACEMENT_KEYSTONE_USERNAME``                service user (default ``placement``)
``PLACEMENT_KEYSTONE_PASSWORD``                its password (required)
``PLACEMENT_KEYSTONE_PROJECT_NAME``            its project (default ``service``)
``PLACEMENT_KEYSTONE_USER_DOMAIN_NAME``        default ``Default``
``PLACEMENT_KEYSTONE_PROJECT_DOMAIN_NAME``     default ``Default``
``PLACEMENT_KEYSTONE_AUTH_TYPE``               keystoneauth plugin (default ``password``)
``PLACEMENT_KEYSTONE_INTERFACE``               catalog interface used to reach Keystone
                                               (keystonemiddleware's default if unset)
``PLACEMENT_KEYSTONE_REGION_NAME``             optional
``PLACEMENT_KEYSTONE_MEMCACHED_SERVERS``       optional comma list (token cache);
                                               in-process cache otherwise
``PLACEMENT_KEYSTONE_CAFILE``                  optional CA bundle
``PLACEMENT_KEYSTONE_INSECURE``                ``true`` skips TLS verification
``PLACEMENT_KEYSTONE_SERVICE_TOKEN_ROLES_REQUIRED`` ``true``: service tokens must
                                               carry the service role
============================================== =====================================
"""
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# The environ key auth_token-checked requests carry; the edge trusts
# identity headers only on such requests.
AUTHENTICATED_ENVIRON_KEY = "placement.keystone_authenticated"

_ENV_TO_OPTION = {
    "PLACEMENT_KEYSTONE_AUTH_URL": "auth_url",
    "PLACEMENT_KEYSTONE_WWW_AUTHENTICATE_URI": "www_authenticate_uri",
    "PLACEMENT_KEYSTONE_USERNAME": "username",
    "PLACEMENT_KEYSTONE_PASSWORD": "password",
    "PLACEMENT_KEYSTONE_PROJECT_NAME": "project_name",
    "PLACEMENT_KEYSTONE_USER_DOMAIN_NAME": "user_domain_name",
    "PLACEMENT_KEYSTONE_PROJECT_DOMAIN_NAME": "project_domain_name",
    "PLACEMENT_KEYSTONE_AUTH_TYPE": "auth_type",
    "PLACEMENT_KEYSTONE_INTERFACE": "interface",
    "PLACEMENT_KEYSTONE_REGION_NAME": "region_name",
    "PLACEMENT_KEYSTONE_MEMCACHED_SERVERS": "memcached_servers",
    "PLACEMENT_KEYSTONE_CAFILE": "cafile",
    "PLACEMENT_KEYSTONE_INSECURE": "insecure",
    "PLACEMENT_KEYSTONE_SERVICE_TOKEN_ROLES_REQUIRED": "service_token_roles_required",
}

_DEFAULTS = {
    "username": "placement",
    "project_name": "service",
    "user_domain_name": "Default",
    "project_domain_name": "Default",
    "auth_type": "password",
}


def middleware_conf(environ=None):
    """auth_token's configuration dict, from ``PLACEMENT_KEYSTONE_*``; when
    none is set and a placement.conf was read (or ``OS_KEYSTONE_AUTHTOKEN__*``
    is set), auth_token reads its own ``[keystone_authtoken]`` group from the
    service's oslo.config object, as in upstream's deployments."""
    environ = settings.PLACEMENT_KEYSTONE_ENVIRON if environ is None else environ
    if not any(environ.get(name) for name in _ENV_TO_OPTION) and (
        settings.PLACEMENT_CONFIG_FILES
        or any(name.startswith("OS_KEYSTONE_AUTHTOKEN__") for name in environ)
    ):
        return {"oslo_config_config": settings.PLACEMENT_OSLO_CONF,
                "delay_auth_decision": "false"}
    conf = dict(_DEFAULTS)
    for name, option in _ENV_TO_OPTION.items():
        value = environ.get(name)
        if value not in (None, ""):
            conf[option] = value
    missing = [
        name
        for name in ("PLACEMENT_KEYSTONE_AUTH_URL", "PLACEMENT_KEYSTONE_PASSWORD")
        if _ENV_TO_OPTION[name] not in conf
    ]
    if missing:
        raise ImproperlyConfigured(
            "PLACEMENT_AUTH_STRATEGY=keystone needs " + " and ".join(missing)
        )
    conf.setdefault("www_authenticate_uri", conf["auth_url"])
    conf["delay_auth_decision"] = "false"
    return conf


def _import_auth_token():
    try:
        from keystonemiddleware import auth_token
    except ImportError as exc:
        raise ImproperlyConfigured(
            "PLACEMENT_AUTH_STRATEGY=keystone needs keystonemiddleware, which is "
            "not installed: pip install -r requirements-keystone.txt "
            f"(or use PLACEMENT_AUTH_STRATEGY=noauth2 for development) [{exc}]"
        ) from exc
    return auth_token


def _marked(app):
    def authenticated_app(environ, start_response):
        environ[AUTHENTICATED_ENVIRON_KEY] = True
        return app(environ, start_response)

    return authenticated_app


def wrap(app, environ=None):
    """``app`` behind auth_token; ``/`` and the non-API pages (Django admin,
    console, API docs, static files: they have their own login or none)
    go straight to ``app``."""
    from placement_core.edge import is_api_path

    auth_token = _import_auth_token()
    protected = auth_token.AuthProtocol(_marked(app), middleware_conf(environ))

    def placement_keystone_app(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path in ("", "/") or not is_api_path(path):
            return app(environ, start_response)
        return protected(environ, start_response)

    return placement_keystone_app

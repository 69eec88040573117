"""Requests through the whole WSGI edge (placement_site.httpstack around
Django's handler), as a server runs it, with the oslo.middleware options a
test chooses: ``call(method, path, cors={"allowed_origin": [...]})``."""
import webob
from django.core.handlers.wsgi import WSGIHandler
from oslo_middleware.healthcheck import opts as healthcheck_opts

from placement_site import config, httpstack


def middleware_conf(**groups):
    conf = config.build_conf([], use_env=False)
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group="healthcheck")
    for group, options in groups.items():
        for name, value in options.items():
            conf.set_override(name, value, group)
    return conf


def stack(**groups):
    return httpstack.build(WSGIHandler(), middleware_conf(**groups))


def call(method, path, headers=None, body=b"", app=None, environ=None, **groups):
    """A webob Response from one request through the stack."""
    request = webob.Request.blank(path, method=method, headers=headers or {},
                                  environ=environ or {})
    if body:
        request.body = body
        request.content_type = "application/json"
    return request.get_response(app or stack(**groups))

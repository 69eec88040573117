"""Logging through oslo.log, as every OpenStack service logs.

oslo.log reads its own ``[DEFAULT]`` options from placement.conf (or
``OS_DEFAULT__<OPTION>``): ``debug``, ``log_file``, ``log_dir``,
``logging_context_format_string`` and the other format strings,
``default_log_levels``, ``use_json``, ``use_journal``, ``use_syslog``
(``syslog_log_facility``), ``use_stderr``, ``watch_log_file`` and
``log_config_append`` (a logging.conf, which may name oslo.log's
``ContextFormatter`` and ``JSONFormatter``).  A line logged while an API
request is served carries its request id, the caller's global request id,
user and project: oslo.log's formatters read them from the oslo.context
RequestContext each record is given (placement_core.request_scope.log_context).

On top, what is this service's own: ``PLACEMENT_LOG_LEVEL`` (without
``debug`` or a logging.conf), ``PLACEMENT_REQUEST_LOG_LEVEL`` for the line per
API request, and control characters escaped in every message.
"""
import logging

from oslo_log import log as oslo_log

from placement_core import request_scope
from placement_core.requestlog import EscapeControlCharacters

PROJECT = "placement"
_base_record_factory = logging.getLogRecordFactory()


def build(values):
    """Django's ``LOGGING``: what configure() applies besides oslo.log's options."""
    return {
        "log_level": values.get("PLACEMENT_LOG_LEVEL") or "INFO",
        "request_log_level": values.get("PLACEMENT_REQUEST_LOG_LEVEL") or "INFO",
    }


def with_request_context(*args, **kwargs):
    """Every log record made while a request is served gets its context."""
    record = _base_record_factory(*args, **kwargs)
    context = request_scope.log_context()
    if context is not None:
        record.context = context
    return record


def setup(conf, logging_settings):
    """oslo.log's handlers and formatters from ``conf``, then ours on top."""
    try:
        oslo_log.setup(conf, PROJECT)
    except (oslo_log.LogConfigError, OSError, ValueError) as exc:
        raise SystemExit(f"placement: logging: {exc}".splitlines()[0]) from None
    logging.setLogRecordFactory(with_request_context)
    root = logging.getLogger()
    if not conf.log_config_append:
        if not conf.debug:
            root.setLevel(logging_settings["log_level"])
        logging.getLogger("django.request").setLevel(logging.ERROR)
        # One line per API request (placement_core/requestlog.py).
        logging.getLogger("placement.requestlog").setLevel(
            logging_settings["request_log_level"])
    for handler in root.handlers:
        if not any(isinstance(f, EscapeControlCharacters) for f in handler.filters):
            handler.addFilter(EscapeControlCharacters())


def configure(logging_settings):
    """Django's LOGGING_CONFIG."""
    from django.conf import settings

    setup(settings.PLACEMENT_OSLO_CONF, logging_settings)

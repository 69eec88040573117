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


def build(values):
    """Django's ``LOGGING``: what setup() applies besides oslo.log's options."""
    return {
        "log_level": values.get("PLACEMENT_LOG_LEVEL") or "INFO",
        "request_log_level": values.get("PLACEMENT_REQUEST_LOG_LEVEL") or "INFO",
    }


class RequestContextFilter(logging.Filter):
    """On every handler: the record gets the context of the request being
    served, or none outside one.  Set here rather than left to oslo.context's
    thread-wide store, which keeps the last request's context after it ends."""

    def filter(self, record):
        if "context" not in vars(record):
            record.context = request_scope.log_context()
        return True


def all_handlers():
    loggers = [logging.getLogger()] + [
        logger for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)]
    return {handler for logger in loggers for handler in logger.handlers}


def setup(conf, logging_settings):
    """oslo.log's handlers and formatters from ``conf``, then ours on top."""
    if not (conf.log_file or conf.log_dir or conf.use_journal or conf.use_stderr
            or conf.log_config_append):
        # Told nowhere to log, oslo.log writes to stdout; stderr instead, as
        # this service always did, keeps the commands' own output
        # (placement-status, placement-manage) on stdout clean.
        conf.set_override("use_stderr", True)
    try:
        oslo_log.setup(conf, PROJECT)
    except Exception as exc:  # noqa: BLE001
        # A logging.conf that cannot be read or applied (fileConfig raises
        # any kind: ImportError for a handler class that does not exist), a
        # log file that cannot be opened, an unknown syslog facility.
        where = f"[DEFAULT] log_config_append {conf.log_config_append}: " if (
            conf.log_config_append and conf.log_config_append not in str(exc)) else ""
        raise SystemExit(f"placement: logging: {where}{exc}".splitlines()[0]) from None
    if not conf.log_config_append:
        if not conf.debug:
            logging.getLogger().setLevel(logging_settings["log_level"])
        logging.getLogger("django.request").setLevel(logging.ERROR)
        # One line per API request (placement_core/requestlog.py).
        logging.getLogger("placement.requestlog").setLevel(
            logging_settings["request_log_level"])
    for handler in all_handlers():
        for kind in (RequestContextFilter, EscapeControlCharacters):
            if not any(isinstance(f, kind) for f in handler.filters):
                handler.addFilter(kind())


def configure(logging_settings):
    """Django's LOGGING_CONFIG."""
    from django.conf import settings

    setup(settings.PLACEMENT_OSLO_CONF, logging_settings)

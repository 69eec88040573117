"""Logging as upstream's ``[DEFAULT]`` options describe it.

``debug``               DEBUG instead of ``PLACEMENT_LOG_LEVEL`` (INFO).
``log_file``            write here (appending; reopened when logrotate moves
                        it) instead of to stderr; relative to ``log_dir``.
``log_dir``             alone: ``<log_dir>/<program>.log`` (gunicorn.log,
                        placement-manage.log), as upstream names its files.
``use_json``            one JSON object per line, the request ids as fields.
``use_syslog``          also to the local syslog (/dev/log), with
                        ``syslog_log_facility`` (LOG_USER).
``log_config_append``   a logging configuration file (Python's fileConfig
                        format) applied last; it may replace all the above.

``build()`` checks the values and returns Django's ``LOGGING``; a bad one
raises ``config.ConfigError`` (one line) before anything is served.
"""
import json
import logging
import logging.config
import logging.handlers
import os
import sys
import traceback
from datetime import datetime, timezone

from placement_site.config import ConfigError

SYSLOG_ADDRESS = "/dev/log"
# Attributes every LogRecord has; anything else on a record came from
# ``extra=`` and goes into the JSON object too.
_RECORD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def request_ids():
    """(request id, global request id) of the API request being served, or ("", "")."""
    from placement_core import request_scope

    return request_scope.bound_ids()


class JSONFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the request
    ids (empty outside a request), process, and the traceback if any."""

    def format(self, record):
        request_id, global_request_id = request_ids()
        entry = {
            "timestamp": datetime.fromtimestamp(record.created, timezone.utc)
            .isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or request_id,
            "global_request_id": (getattr(record, "global_request_id", None)
                                  or global_request_id),
            "process": record.process,
            "program": os.path.basename(sys.argv[0]) if sys.argv else "",
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["traceback"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(entry, default=str)


def _log_file(values):
    log_file, log_dir = values.get("LOG_FILE"), values.get("LOG_DIR")
    if not log_file and not log_dir:
        return None
    if not log_file:
        log_file = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "placement")
        log_file = (log_file or "placement") + ".log"
    path = os.path.join(log_dir, log_file) if log_dir else log_file
    path = os.path.abspath(os.path.expanduser(path))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as exc:
        raise ConfigError(f"cannot write the log file {path}: {exc.strerror}") from None
    return path


def _facility(name):
    key = name.strip().lower().removeprefix("log_")
    if key not in logging.handlers.SysLogHandler.facility_names:
        raise ConfigError(
            f"invalid value {name!r} for [DEFAULT] syslog_log_facility: expected one of "
            + ", ".join("LOG_" + f.upper() for f in sorted(
                logging.handlers.SysLogHandler.facility_names)))
    return logging.handlers.SysLogHandler.facility_names[key]


def _config_append(path):
    if not path:
        return None
    import configparser

    parser = configparser.ConfigParser()
    try:
        with open(path) as handle:
            parser.read_file(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read [DEFAULT] log_config_append {path}: "
                          f"{exc.strerror}") from None
    except configparser.Error as exc:
        raise ConfigError(f"[DEFAULT] log_config_append {path}: "
                          f"{str(exc).splitlines()[0]}") from None
    for section in ("loggers", "handlers", "formatters"):
        if not parser.has_section(section):
            raise ConfigError(f"[DEFAULT] log_config_append {path}: no [{section}] section "
                              "(expected Python's logging fileConfig format)")
    return os.path.abspath(path)


def build(values):
    """Django's LOGGING dict from the checked settings values."""
    level = "DEBUG" if values.get("LOG_DEBUG") else values.get("PLACEMENT_LOG_LEVEL", "INFO")
    use_json = values.get("LOG_USE_JSON")
    formatter = "json" if use_json else "plain"
    handler_filters = [] if use_json else ["escape"]
    handlers = {}
    path = _log_file(values)
    if path:
        handlers["file"] = {"class": "logging.handlers.WatchedFileHandler", "filename": path,
                            "formatter": formatter, "filters": handler_filters}
    else:
        handlers["console"] = {"class": "logging.StreamHandler", "formatter": formatter,
                               "filters": handler_filters}
    if values.get("LOG_USE_SYSLOG"):
        facility = _facility(values.get("LOG_SYSLOG_FACILITY") or "LOG_USER")
        if not os.path.exists(SYSLOG_ADDRESS):
            raise ConfigError(f"[DEFAULT] use_syslog: {SYSLOG_ADDRESS} does not exist "
                              "(no local syslog daemon)")
        handlers["syslog"] = {"class": "logging.handlers.SysLogHandler",
                              "address": SYSLOG_ADDRESS, "facility": facility,
                              "formatter": "json" if use_json else "syslog",
                              "filters": handler_filters}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"escape": {"()": "placement_core.requestlog.EscapeControlCharacters"}},
        "formatters": {
            "plain": {"format": "%(message)s"},
            "syslog": {"format": "placement: %(levelname)s %(name)s %(message)s"},
            "json": {"()": "placement_site.logsetup.JSONFormatter"},
        },
        "handlers": handlers,
        "root": {"handlers": list(handlers), "level": level},
        "loggers": {
            "django.request": {"level": "ERROR"},
            # One line per API request (placement_core/requestlog.py).
            "placement.requestlog": {"level": values.get("PLACEMENT_REQUEST_LOG_LEVEL", "INFO")},
        },
        # Read by configure() below, not by dictConfig.
        "placement_config_append": _config_append(values.get("LOG_CONFIG_APPEND")),
    }


def configure(logging_settings):
    """Django's LOGGING_CONFIG: the dict, then the operator's file on top."""
    settings = dict(logging_settings)
    append = settings.pop("placement_config_append", None)
    logging.config.dictConfig(settings)
    if append:
        try:
            logging.config.fileConfig(append, disable_existing_loggers=False)
        except Exception as exc:  # fileConfig raises many kinds for a bad file
            raise SystemExit(f"placement: [DEFAULT] log_config_append {append}: "
                             f"{type(exc).__name__}: {exc}".splitlines()[0]) from None

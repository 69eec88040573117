"""Runs INSIDE the clients' virtualenv (not .venv): a line-oriented JSON bridge.

The pytest side (test_real_clients.py) starts ``<clients venv>/bin/python
driver.py <endpoint>`` and writes one JSON request per line on stdin; each gets
one JSON answer line on stdout:

* ``{"op": "cli", "args": [...]}``: one ``openstack`` command, run in-process
  through openstackclient's shell (admin_token auth against the endpoint);
  answers ``{"rc", "out", "err"}``.  Add ``-f json`` to parse ``out``.
* ``{"op": "sdk", "call": "<proxy method>", "args": [...], "kwargs": {...}}``:
  one ``conn.placement.<method>(...)`` call; answers ``{"ok": true,
  "result": ...}`` (resources as ``to_dict()``, generators as lists) or
  ``{"ok": false, "error": "<exception class>", "status": <http status>,
  "message": ...}``.  An argument ``{"$provider": uuid}`` stands for the
  fetched ResourceProvider, ``{"$inventory": [uuid, class]}`` for the fetched
  inventory (calls that need the object, e.g. its generation).

Only this file imports the client libraries, so the project's own test run
never needs them.
"""
import io
import json
import sys
import traceback


def _plain(value):
    if hasattr(value, "to_dict"):
        data = value.to_dict(computed=False)
        data.pop("location", None)
        data.pop("links", None)
        return _plain(data)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "__iter__"):
        return [_plain(v) for v in value]
    return str(value)


class Bridge:
    def __init__(self, endpoint):
        import openstack
        from osc_lib import clientmanager

        self.endpoint = endpoint
        # openstackclient caches its client objects per process; a fresh one
        # per command (as osc-placement's own functional tests do).
        clientmanager.ClientCache.__get__ = lambda obj, instance, owner: obj.factory(instance)
        self.conn = openstack.connection.Connection(
            auth_type="admin_token",
            auth={"token": "admin", "endpoint": endpoint},
            placement_endpoint_override=endpoint,
        )

    def cli(self, args):
        from openstackclient import shell

        argv = ["--os-auth-type", "admin_token", "--os-token", "admin",
                "--os-endpoint", self.endpoint, *args]
        out, err = io.StringIO(), io.StringIO()
        real_out, real_err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            try:
                rc = shell.OpenStackShell().run(argv)
            except SystemExit as exc:  # argparse exits on bad usage
                rc = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdout, sys.stderr = real_out, real_err
        return {"rc": rc, "out": out.getvalue(), "err": err.getvalue()}

    def _resolve(self, value):
        # {"$provider": uuid} -> the fetched ResourceProvider (with its generation);
        # {"$inventory": [uuid, class]} -> the fetched ResourceProviderInventory.
        if isinstance(value, dict) and len(value) == 1:
            if "$provider" in value:
                return self.conn.placement.get_resource_provider(value["$provider"])
            if "$inventory" in value:
                rp_uuid, rc = value["$inventory"]
                return self.conn.placement.get_resource_provider_inventory(
                    rc, resource_provider=rp_uuid)
        return value

    def sdk(self, call, args, kwargs):
        from openstack import exceptions

        method = getattr(self.conn.placement, call)
        try:
            result = method(*[self._resolve(a) for a in args],
                            **{k: self._resolve(v) for k, v in kwargs.items()})
            if result is not None and not isinstance(result, (dict, str)) \
                    and not hasattr(result, "to_dict") and hasattr(result, "__iter__"):
                result = list(result)
            return {"ok": True, "result": _plain(result)}
        except exceptions.HttpException as exc:
            return {"ok": False, "error": type(exc).__name__,
                    "status": getattr(exc, "status_code", None), "message": str(exc)}


def main():
    bridge = Bridge(sys.argv[1])
    stdout = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            if request["op"] == "cli":
                answer = bridge.cli(request["args"])
            else:
                answer = bridge.sdk(request["call"], request.get("args", []),
                                    request.get("kwargs", {}))
        except Exception as exc:  # report, keep serving
            answer = {"ok": False, "rc": -1, "error": type(exc).__name__,
                      "message": str(exc), "traceback": traceback.format_exc()}
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()


if __name__ == "__main__":
    main()

"""import_upstream against a database made by upstream's own `placement-manage db sync`.

Needs the openstack-placement package in a throwaway venv:
- PLACEMENT_UPSTREAM_VENV=/path/to/venv (already has openstack-placement), or
- PLACEMENT_TEST_UPSTREAM=1: the test builds one under a temp dir (pip, PyPI;
  skipped with the reason when that fails).
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands import upstream_schema as up
from tests.commands.helpers import check_imported, counted, run

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="session")
def placement_manage(tmp_path_factory):
    venv = os.environ.get("PLACEMENT_UPSTREAM_VENV")
    if venv:
        exe = Path(venv) / "bin" / "placement-manage"
        if not exe.exists():
            pytest.skip(f"{exe} not found")
        return exe
    if os.environ.get("PLACEMENT_TEST_UPSTREAM") != "1":
        pytest.skip("set PLACEMENT_TEST_UPSTREAM=1 (or PLACEMENT_UPSTREAM_VENV) to build the "
                    "upstream schema with openstack-placement's placement-manage")
    venv = tmp_path_factory.mktemp("upstream-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                           "openstack-placement"], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.skip(f"cannot install openstack-placement (PyPI unreachable?): {proc.stderr[-300:]}")
    return venv / "bin" / "placement-manage"


def test_import_from_db_synced_by_upstream(placement_manage, tmp_path):
    db = tmp_path / "placement.sqlite"
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = sqlite:///{db}\n")
    proc = subprocess.run([str(placement_manage), "--config-file", str(conf), "db", "sync"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    up.build(str(db), create=False)  # the sample rows, into upstream's real tables
    code, out = run("import_upstream", "--database-url", f"sqlite:///{db}")
    assert code == 0, out
    check_imported()
    code, out = run("import_upstream", "--database-url", f"sqlite:///{db}")
    assert counted(out, "loaded", "resource_providers") == [3, 0, 0]


def test_import_from_mariadb_synced_by_upstream(placement_manage, tmp_path):
    """Upstream's schema on MariaDB/MySQL, named as upstream's placement.conf
    names it (``mysql+pymysql://``). Needs PLACEMENT_UPSTREAM_MYSQL_URL, a
    server URL such as mysql://root@127.0.0.1:3306 (make test-upstream-import
    sets it when a MariaDB answers there)."""
    server = os.environ.get("PLACEMENT_UPSTREAM_MYSQL_URL")
    if not server:
        pytest.skip("set PLACEMENT_UPSTREAM_MYSQL_URL=mysql://root@127.0.0.1:3306")
    from placement_core.database import dbapi_connect

    name = f"upstream_import_{os.getpid()}"
    admin = dbapi_connect(f"{server}/mysql")
    admin.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
    admin.cursor().execute(f"CREATE DATABASE {name}")  # the server's default charset, as upstream
    try:
        url = server.replace("mysql://", "mysql+pymysql://", 1) + f"/{name}"
        conf = tmp_path / "placement.conf"
        conf.write_text(f"[placement_database]\nconnection = {url}\n")
        proc = subprocess.run([str(placement_manage), "--config-file", str(conf), "db", "sync"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        conn = dbapi_connect(url)
        up.fill(conn, mark="%s")
        conn.close()
        code, out = run("import_upstream", "--database-url", url)
        assert code == 0, out
        check_imported()
    finally:
        admin.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()

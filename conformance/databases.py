"""The runner's databases: create (from a template), drop and list them
through the admin URL (CONFORMANCE_PG_URL or CONFORMANCE_DB_URL, see
targets.py), on PostgreSQL or MariaDB/MySQL."""

import os
import subprocess
import time

import targets

# CONFORMANCE_DB_PREFIX: runs sharing a database server keep apart by name.
DB_PREFIX = os.environ.get('CONFORMANCE_DB_PREFIX', 'conf_')


def pg_connect():
    """A connection to the admin database (CONFORMANCE_PG_URL)."""
    import psycopg2
    conn = psycopg2.connect(targets.PG_URL, connect_timeout=15)
    conn.autocommit = True
    return conn


def pg_exec(sql, retries=20):
    import psycopg2
    for attempt in range(retries):
        conn = pg_connect()
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
            return
        except psycopg2.errors.ObjectInUse:
            # "source database is being accessed by other users": another
            # CREATE DATABASE ... TEMPLATE is copying it; retry.
            if attempt == retries - 1:
                raise
            time.sleep(0.25)
        finally:
            conn.close()


def mysql_argv(*extra, client='mariadb'):
    """The mariadb (or mysql) client's command line for the admin URL."""
    import shutil
    from urllib import parse
    u = parse.urlsplit(targets.PG_URL)
    exe = shutil.which(client) or shutil.which(
        {'mariadb': 'mysql', 'mariadb-dump': 'mysqldump'}[client])
    if not exe:
        raise SystemExit('CONFORMANCE_DB_URL is a MySQL URL but neither %s '
                         'nor its mysql twin is installed' % client)
    argv = [exe, '-h', u.hostname or '127.0.0.1', '-P', str(u.port or 3306),
            '-u', parse.unquote(u.username or 'root')]
    if u.password:
        argv.append('-p' + parse.unquote(u.password))
    return argv + list(extra)


def mysql_exec(sql):
    out = subprocess.run(mysql_argv('-N', '-B', '-e', sql), check=True,
                         capture_output=True, text=True, timeout=120)
    return [ln for ln in out.stdout.splitlines() if ln.strip()]


def create_db(name, template=None):
    if targets.is_mysql():
        # MySQL has no CREATE DATABASE ... TEMPLATE: copy the template's
        # schema and rows with mariadb-dump.
        mysql_exec('CREATE DATABASE `%s` CHARACTER SET utf8mb4' % name)
        if template:
            dump = subprocess.run(
                mysql_argv('--single-transaction', '--skip-triggers',
                           '--no-create-db', template, client='mariadb-dump'),
                check=True, capture_output=True, timeout=300)
            subprocess.run(mysql_argv(name), input=dump.stdout, check=True,
                           capture_output=True, timeout=300)
        return
    if template:
        pg_exec('CREATE DATABASE "%s" TEMPLATE "%s"' % (name, template))
    else:
        pg_exec('CREATE DATABASE "%s"' % name)


def drop_db(name):
    if targets.is_mysql():
        mysql_exec('DROP DATABASE IF EXISTS `%s`' % name)
        return
    pg_exec('DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name)


def list_dbs(prefix):
    if targets.is_mysql():
        return mysql_exec("SHOW DATABASES LIKE '%s%%'"
                          % prefix.replace('_', r'\_'))
    conn = pg_connect()
    try:
        with conn.cursor() as cur:
            cur.execute('SELECT datname FROM pg_database WHERE datname LIKE %s',
                        (prefix.replace('_', r'\_') + '%',))
            return [r[0] for r in cur.fetchall()]
    finally:
        conn.close()

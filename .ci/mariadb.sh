#!/bin/sh
# MariaDB and Galera in CI, on a fresh Debian machine, as root:
#   .ci/mariadb.sh [PART...]      (no PART: all of them, in this order)
#   setup        install MariaDB, Galera 4 and rsync from Debian's packages
#                if missing; use the MariaDB already answering on
#                127.0.0.1:3306, or start one;
#   suite        the pytest suite on MariaDB ($PLACEMENT_TEST_MYSQL_URL),
#                in two pytest-xdist workers;
#   conformance  upstream's conformance files on MariaDB;
#   clients      the real-client test against a server on MariaDB
#                (database placement_clients);
#   galera       `make test-galera` (3-node cluster on ports 3321-3323,
#                4580-4602, in /tmp/placement-galera).
# .ci/run runs `setup` first, alone (it may apt-get install), then the other
# parts side by side with its other steps: they share nothing but the
# MariaDB server, each in its own databases. Times measured on the 2-core
# machine, one part at a time: suite 6.3 min (3.3 min in two workers), conformance 4.3 min, clients
# 20 s (cached client venv), Galera 1 min.
# The driver (PyMySQL) is pure Python: no build dependencies.
set -eu
cd "$(dirname "$0")/.."
MYSQL_URL=${PLACEMENT_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/placement_test}
# The suite on MariaDB waits on the server more than it computes: two
# workers took it from 6.3 to 3.3 minutes (each its own test database,
# test_<name>_gw0 and _gw1). MARIADB_SUITE_WORKERS=0: one process.
SUITE_WORKERS=${MARIADB_SUITE_WORKERS:-2}
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }

setup() {
    step "packages"
    if ! command -v mariadbd >/dev/null || [ ! -f /usr/lib/galera/libgalera_smm.so ] \
            || ! command -v rsync >/dev/null || ! command -v mariadb-dump >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server galera-4 rsync
    fi

    step "MariaDB on 127.0.0.1:3306"
    if ! mariadb -h127.0.0.1 -P3306 -uroot -e 'SELECT 1' >/dev/null 2>&1; then
        # Not answering: start Debian's server (no systemd in CI containers) and
        # let root in over TCP without a password, as the tests connect.
        mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
        [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null
        (mariadbd-safe --user=mysql --bind-address=127.0.0.1 --port=3306 >/dev/null 2>&1 &)
        i=0
        until mariadb -uroot -e 'SELECT 1' >/dev/null 2>&1; do
            i=$((i + 1)); [ $i -gt 150 ] && { echo "MariaDB did not start" >&2; exit 1; }; sleep 0.2
        done
        mariadb -uroot -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; \
            GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
    fi
    make venv
}

suite() {
    make venv
    step "suite on MariaDB: $MYSQL_URL, $SUITE_WORKERS pytest-xdist workers"
    DATABASE_URL="$MYSQL_URL" .venv/bin/python -m pytest -q -n "$SUITE_WORKERS"
}

conformance() {
    step "conformance on MariaDB"
    CONFORMANCE_DB_URL=mysql://root@127.0.0.1:3306/ make conformance ARGS="--jobs 2"
}

clients() {
    step "real clients against a server on MariaDB"
    mariadb -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS placement_clients; \
        CREATE DATABASE placement_clients CHARACTER SET utf8mb4"
    PLACEMENT_CLIENTS_DATABASE_URL=mysql://root@127.0.0.1:3306/placement_clients make test-clients
    mariadb -h127.0.0.1 -uroot -e "DROP DATABASE placement_clients"
}

galera() {
    step "Galera"
    make test-galera
}

[ $# -gt 0 ] || set -- setup suite conformance clients galera
for part in "$@"; do
    case "$part" in
    setup|suite|conformance|clients|galera) "$part" ;;
    *) echo "usage: $0 [setup|suite|conformance|clients|galera]..." >&2; exit 2 ;;
    esac
done
step "done: $*"

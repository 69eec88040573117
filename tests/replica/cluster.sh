#!/bin/sh
# A PostgreSQL 15 primary and a streaming replica on loopback, for
# `make test-replica`.
#   cluster.sh start           initdb the primary, pg_basebackup the replica, start both
#   cluster.sh stop            stop both, keep nothing
#   cluster.sh stop-replica    stop the replica (fast shutdown)
#   cluster.sh start-replica   start it again; it catches up by streaming
# The primary serves on 127.0.0.1:$REPLICA_PRIMARY_PORT, the replica on
# $REPLICA_STANDBY_PORT; superuser root, trust authentication on loopback.
# Run as root: the servers run as the postgres user.
set -eu
DIR=${REPLICA_DIR:-/tmp/placement-replica}
PRIMARY_PORT=${REPLICA_PRIMARY_PORT:-5440}
STANDBY_PORT=${REPLICA_STANDBY_PORT:-5441}
BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

as_pg() { runuser -u postgres -- "$@"; }

ctl() {  # ctl primary|replica start|stop [mode]
    node=$1; action=$2
    if [ "$action" = start ]; then
        as_pg "$BIN/pg_ctl" -D "$DIR/$node" -l "$DIR/$node.log" -w -t 60 start >/dev/null
    else
        as_pg "$BIN/pg_ctl" -D "$DIR/$node" -m "${3:-fast}" -w -t 60 stop >/dev/null 2>&1 || true
    fi
}

case "${1:-}" in
start)
    if ! id postgres >/dev/null 2>&1 || [ ! -x "$BIN/initdb" ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
        BIN=/usr/lib/postgresql/15/bin
    fi
    "$0" stop
    mkdir -p "$DIR" && chown postgres "$DIR"
    as_pg "$BIN/initdb" -D "$DIR/primary" -U root --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    cat >>"$DIR/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PRIMARY_PORT
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 4
hot_standby = on
fsync = off
full_page_writes = off
shared_buffers = 32MB
max_connections = 200
CONF
    ctl primary start
    as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U root -D "$DIR/replica" -R -X stream
    echo "port = $STANDBY_PORT" >>"$DIR/replica/postgresql.conf"
    ctl replica start
    echo "primary 127.0.0.1:$PRIMARY_PORT, replica 127.0.0.1:$STANDBY_PORT streaming ($DIR)"
    ;;
stop)
    [ -d "$DIR" ] || exit 0
    ctl replica stop immediate
    ctl primary stop fast
    rm -rf "$DIR"
    ;;
stop-replica) ctl replica stop fast ;;
start-replica) ctl replica start ;;
*) echo "usage: $0 start|stop|stop-replica|start-replica" >&2; exit 2 ;;
esac

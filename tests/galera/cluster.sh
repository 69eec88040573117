#!/bin/sh
# A 3-node MariaDB Galera cluster on loopback, for `make test-galera`.
#   cluster.sh start        bootstrap node 1, join nodes 2 and 3, wait for size 3
#   cluster.sh stop         stop every node (SIGTERM), keep nothing
#   cluster.sh kill N       SIGKILL node N (the race test's node failure)
#   cluster.sh restart N    start node N again; it rejoins by state transfer
# Node N serves SQL on 127.0.0.1:$((GALERA_SQL_PORT + N)); Galera itself
# uses three ports per node from GALERA_BASE_PORT. Run as root: the nodes
# run as the mysql user (rsync state transfer needs that), with their
# temporary files in $DIR/nN/tmp (the caller's TMPDIR may be root's own).
set -eu
DIR=${GALERA_DIR:-/tmp/placement-galera}
SQL_PORT=${GALERA_SQL_PORT:-3320}
BASE=${GALERA_BASE_PORT:-4570}
PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
ADDRS="127.0.0.1:$((BASE + 10)),127.0.0.1:$((BASE + 20)),127.0.0.1:$((BASE + 30))"

cnf() {  # cnf N
    n=$1; p=$((BASE + 10 * n))
    cat <<CNF
[mariadbd]
user=mysql
datadir=$DIR/n$n/data
socket=$DIR/n$n/mysqld.sock
pid-file=$DIR/n$n/mysqld.pid
log-error=$DIR/n$n/error.log
tmpdir=$DIR/n$n/tmp
port=$((SQL_PORT + n))
bind-address=127.0.0.1
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_bin
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_flush_log_at_trx_commit=2
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=placement_test
wsrep_node_name=n$n
wsrep_node_address=127.0.0.1:$p
wsrep_cluster_address=gcomm://$ADDRS
wsrep_provider_options=gmcast.listen_addr=tcp://127.0.0.1:$p;ist.recv_addr=127.0.0.1:$((p + 1));gcache.size=64M
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((p + 2))
CNF
}

sql() {  # sql N STATEMENT
    mariadb --protocol=socket -S "$DIR/n$1/mysqld.sock" -uroot -N -B -e "$2" 2>/dev/null
}

wait_ready() {  # wait_ready N SECONDS
    i=0
    while [ "$(sql "$1" "SHOW STATUS LIKE 'wsrep_ready'" | cut -f2)" != "ON" ]; do
        i=$((i + 1))
        if [ $i -gt $(($2 * 5)) ]; then
            echo "galera node $1 not ready; see $DIR/n$1/error.log" >&2
            tail -20 "$DIR/n$1/error.log" >&2 || true
            exit 1
        fi
        sleep 0.2
    done
}

launch() {  # launch N [extra args]
    n=$1; shift
    mkdir -p "$DIR/n$n/data" "$DIR/n$n/tmp"
    chown -R mysql:mysql "$DIR"
    TMPDIR="$DIR/n$n/tmp" mariadbd --defaults-file="$DIR/n$n/my.cnf" "$@" >>"$DIR/n$n/stdout.log" 2>&1 &
}

case "${1:-}" in
start)
    "$0" stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
    mkdir -p "$DIR"
    for n in 1 2 3; do mkdir -p "$DIR/n$n/data" "$DIR/n$n/tmp"; cnf $n >"$DIR/n$n/my.cnf"; done
    chown -R mysql:mysql "$DIR"
    TMPDIR="$DIR/n1/tmp" mariadb-install-db --defaults-file="$DIR/n1/my.cnf" --user=mysql \
        --auth-root-authentication-method=normal >"$DIR/install.log" 2>&1 || {
        echo "galera: mariadb-install-db failed; $DIR/n1/error.log says:" >&2
        tail -5 "$DIR/n1/error.log" >&2; exit 1; }
    launch 1 --wsrep-new-cluster
    wait_ready 1 60
    sql 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
    launch 2; wait_ready 2 120
    launch 3; wait_ready 3 120
    echo "galera: $(sql 1 "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2) nodes on 127.0.0.1:$((SQL_PORT + 1))-$((SQL_PORT + 3))"
    ;;
stop)
    for n in 1 2 3; do
        [ -f "$DIR/n$n/mysqld.pid" ] && kill "$(cat "$DIR/n$n/mysqld.pid")" 2>/dev/null || true
    done
    for n in 1 2 3; do
        i=0
        while [ -f "$DIR/n$n/mysqld.pid" ] && kill -0 "$(cat "$DIR/n$n/mysqld.pid")" 2>/dev/null; do
            i=$((i + 1)); [ $i -gt 150 ] && kill -9 "$(cat "$DIR/n$n/mysqld.pid")" 2>/dev/null; sleep 0.2
        done
    done
    ;;
kill)
    kill -9 "$(cat "$DIR/n$2/mysqld.pid")"
    ;;
restart)
    rm -f "$DIR/n$2/mysqld.pid"
    launch "$2"; wait_ready "$2" 120
    ;;
*)
    echo "usage: $0 start|stop|kill N|restart N" >&2; exit 2
    ;;
esac

"""A synthetic cloud written straight into a Placement database.

    python -m benchmarks.synthetic_cloud --database-url URL --providers N \
        [--fill F] [--seed S]

The database must have been made by `placement-manage db sync` (this
service's or upstream's: both create the same tables) and must hold no
resource provider yet.  The rows go into the tables upstream reads, so both
servers see the same cloud.  The same seed writes the same cloud: every
uuid, name, size and allocation comes from one seeded generator and every
timestamp is the same fixed instant.

The cloud, for N providers:
  * sharing storage pools (one per 1,000 providers, at least one): DISK_GB,
    MISC_SHARES_VIA_AGGREGATE, each in a storage aggregate with a run of the
    flat compute nodes (those take their disk from the pool);
  * Ironic-style nodes (40 %): one unit of CUSTOM_BAREMETAL_GOLD, _SILVER or
    _BRONZE each, their own root;
  * nested hosts (20 % of the providers, 4 providers each): a root with
    DISK_GB, two NUMA cells (HW_NUMA_ROOT; VCPU, PCPU, MEMORY_MB) and an
    SR-IOV NIC (SRIOV_NET_VF, NET_BW_EGR_KILOBIT_PER_SEC, a physnet trait);
  * flat compute nodes (the rest): VCPU, MEMORY_MB, DISK_GB, CPU traits,
    one of 20 availability-zone aggregates;
  * consumers (INSTANCE, a few MIGRATION and untyped) in 500 projects and
    2,000 users, placed until each host's most used class reaches F of its
    capacity (F=0.5 by default); Ironic nodes are taken whole, F of them.
At 100,000 providers and F=0.5 that is about 1.1 million allocations.

PostgreSQL is written with COPY, MariaDB/MySQL with multi-row INSERTs;
ids follow the tables' current maximum and PostgreSQL's sequences are moved
past them, so later writes through either server do not collide.
"""
import argparse
import datetime
import random
import sys
import time
import urllib.parse
import uuid

import os_resource_classes
import os_traits

NOW = datetime.datetime(2026, 1, 1, 0, 0, 0)
CUSTOM_CLASSES = ("CUSTOM_BAREMETAL_GOLD", "CUSTOM_BAREMETAL_SILVER", "CUSTOM_BAREMETAL_BRONZE")
CUSTOM_TRAITS = ("CUSTOM_PHYSNET_PUBLIC", "CUSTOM_PHYSNET_TENANT", "CUSTOM_RAID1", "CUSTOM_GOLD_RACK")
STANDARD_TRAITS = (os_traits.HW_CPU_X86_AVX2, os_traits.HW_CPU_X86_AVX512F,
                   os_traits.HW_NUMA_ROOT, os_traits.MISC_SHARES_VIA_AGGREGATE,
                   os_traits.COMPUTE_STATUS_DISABLED, os_traits.HW_NIC_SRIOV,
                   os_traits.STORAGE_DISK_SSD)
CONSUMER_TYPES = ("INSTANCE", "MIGRATION")
# (VCPU, MEMORY_MB, DISK_GB), drawn with these weights.
FLAVORS = ((1, 2048, 20), (2, 4096, 40), (4, 8192, 80), (8, 16384, 160))
FLAVOR_WEIGHTS = (3, 4, 2, 1)
PROJECTS = 500
USERS = 2000
HOSTS_PER_POOL = 100
ZONES = 20


class LoadError(Exception):
    """A reason the cloud cannot be written: one line for the operator."""


class Cloud:
    """The rows of every table, built in memory before anything is written."""

    def __init__(self, rng, ids):
        self.rng = rng
        self.next_id = dict(ids)
        self.rows = {table: [] for table in (
            "resource_providers", "inventories", "resource_provider_traits",
            "placement_aggregates", "resource_provider_aggregates", "projects",
            "users", "consumers", "allocations")}
        self.capacity = {}  # (provider id, class id) -> usable units
        self.used = {}

    def new_id(self, table):
        self.next_id[table] += 1
        return self.next_id[table]

    def uuid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def provider(self, name, parent=None, root=None):
        rp_id = self.new_id("resource_providers")
        self.rows["resource_providers"].append(
            (rp_id, self.uuid(), name, 1, root or rp_id, parent, NOW))
        return rp_id

    def inventory(self, rp_id, class_id, total, *, reserved=0, ratio=1.0, max_unit=None):
        self.rows["inventories"].append(
            (self.new_id("inventories"), rp_id, class_id, total, reserved, 1,
             max_unit or total, 1, ratio, NOW))
        self.capacity[(rp_id, class_id)] = int((total - reserved) * ratio)

    def trait(self, rp_id, trait_id):
        self.rows["resource_provider_traits"].append((trait_id, rp_id, NOW))

    def aggregate(self):
        agg_id = self.new_id("placement_aggregates")
        self.rows["placement_aggregates"].append((agg_id, self.uuid(), NOW))
        return agg_id

    def member(self, rp_id, agg_id):
        self.rows["resource_provider_aggregates"].append((rp_id, agg_id, NOW))

    def fits(self, claims):
        return all(self.used.get(key, 0) + used <= self.capacity.get(key, 0)
                   for key, used in claims)

    def consume(self, claims, project_id, user_id, type_id):
        consumer_uuid = self.uuid()
        self.rows["consumers"].append(
            (self.new_id("consumers"), consumer_uuid, project_id, user_id, 1, type_id, NOW))
        for key, used in claims:
            self.used[key] = self.used.get(key, 0) + used
            self.rows["allocations"].append(
                (self.new_id("allocations"), key[0], consumer_uuid, key[1], used, NOW))


def build(rng, providers, fill, ids, classes, traits, types):
    """Every row of a cloud of ``providers`` providers, filled to ``fill``."""
    cloud = Cloud(rng, ids)
    rc = classes.__getitem__
    tr = traits.__getitem__
    pools = max(1, providers // 1000)
    ironic = providers * 40 // 100
    nested_hosts = providers * 20 // 100 // 4
    flat = providers - pools - ironic - nested_hosts * 4
    if flat < 0:
        raise LoadError(f"--providers {providers} is too few for the mix (at least 5)")

    zones = [cloud.aggregate() for _ in range(ZONES)]
    pool_ids, pool_aggs = [], []
    for index in range(pools):
        rp = cloud.provider(f"storage-pool-{index:04d}")
        cloud.inventory(rp, rc("DISK_GB"), 2_000_000, reserved=10_000)
        cloud.trait(rp, tr("MISC_SHARES_VIA_AGGREGATE"))
        agg = cloud.aggregate()
        cloud.member(rp, agg)
        pool_ids.append(rp)
        pool_aggs.append(agg)

    hosts = []  # (kind, provider ids...) for placing consumers
    for index in range(flat):
        rp = cloud.provider(f"compute-{index:06d}")
        cloud.inventory(rp, rc("VCPU"), 48, ratio=4.0)
        cloud.inventory(rp, rc("MEMORY_MB"), 98304, reserved=2048, ratio=1.0)
        cloud.inventory(rp, rc("DISK_GB"), 1800, reserved=50)
        if rng.random() < 0.7:
            cloud.trait(rp, tr("HW_CPU_X86_AVX2"))
        if rng.random() < 0.3:
            cloud.trait(rp, tr("HW_CPU_X86_AVX512F"))
        if rng.random() < 0.2:
            cloud.trait(rp, tr("STORAGE_DISK_SSD"))
        if rng.random() < 0.01:
            cloud.trait(rp, tr("COMPUTE_STATUS_DISABLED"))
        cloud.member(rp, zones[index % ZONES])
        pool = index // HOSTS_PER_POOL
        disk_on = rp
        if pool < pools:
            cloud.member(rp, pool_aggs[pool])
            disk_on = pool_ids[pool]
        hosts.append(("flat", rp, disk_on))

    for index in range(nested_hosts):
        root = cloud.provider(f"numa-host-{index:05d}")
        cloud.inventory(root, rc("DISK_GB"), 3600, reserved=100)
        cloud.member(root, zones[index % ZONES])
        cells = []
        for cell in range(2):
            numa = cloud.provider(f"numa-host-{index:05d}-numa{cell}", parent=root, root=root)
            cloud.inventory(numa, rc("VCPU"), 24, ratio=4.0)
            cloud.inventory(numa, rc("PCPU"), 16)
            cloud.inventory(numa, rc("MEMORY_MB"), 65536, reserved=1024)
            cloud.trait(numa, tr("HW_NUMA_ROOT"))
            cloud.trait(numa, tr("HW_CPU_X86_AVX2"))
            cells.append(numa)
        nic = cloud.provider(f"numa-host-{index:05d}-nic", parent=root, root=root)
        cloud.inventory(nic, rc("SRIOV_NET_VF"), 64)
        cloud.inventory(nic, rc("NET_BW_EGR_KILOBIT_PER_SEC"), 25_000_000)
        cloud.trait(nic, tr("HW_NIC_SRIOV"))
        cloud.trait(nic, tr("CUSTOM_PHYSNET_PUBLIC" if index % 2 else "CUSTOM_PHYSNET_TENANT"))
        hosts.append(("nested", root, cells, nic))

    nodes = []
    for index in range(ironic):
        rp = cloud.provider(f"ironic-{index:06d}")
        class_name = CUSTOM_CLASSES[index % len(CUSTOM_CLASSES)]
        cloud.inventory(rp, rc(class_name), 1)
        if class_name == "CUSTOM_BAREMETAL_GOLD":
            cloud.trait(rp, tr("CUSTOM_GOLD_RACK"))
        if index % 4 == 0:
            cloud.trait(rp, tr("CUSTOM_RAID1"))
        nodes.append((rp, rc(class_name)))

    for project in range(PROJECTS):
        cloud.rows["projects"].append((cloud.new_id("projects"), cloud.uuid().replace("-", ""), NOW))
    for user in range(USERS):
        cloud.rows["users"].append((cloud.new_id("users"), cloud.uuid().replace("-", ""), NOW))
    first_project, first_user = ids["projects"] + 1, ids["users"] + 1

    def owner():
        return first_project + rng.randrange(PROJECTS), first_user + rng.randrange(USERS)

    def type_of():
        draw = rng.random()
        return types["MIGRATION"] if draw < 0.01 else None if draw < 0.05 else types["INSTANCE"]

    vcpu, pcpu, memory, disk = rc("VCPU"), rc("PCPU"), rc("MEMORY_MB"), rc("DISK_GB")
    vf = rc("SRIOV_NET_VF")
    for host in hosts:
        misses = 0
        while misses < 3:
            cpus, mem, gb = rng.choices(FLAVORS, FLAVOR_WEIGHTS)[0]
            if host[0] == "flat":
                _, rp, disk_on = host
                claims = [((rp, vcpu), cpus), ((rp, memory), mem), ((disk_on, disk), gb)]
                limits = [(rp, vcpu), (rp, memory)]
            else:
                _, root, cells, nic = host
                cell = cells[rng.randrange(2)]
                claims = [((cell, pcpu if rng.random() < 0.3 else vcpu), cpus),
                          ((cell, memory), mem), ((root, disk), gb)]
                if rng.random() < 0.3:
                    claims.append(((nic, vf), 1))
                limits = [(cell, memory), (root, disk)]
            if not cloud.fits(claims) or any(
                    cloud.used.get(key, 0) + used > fill * cloud.capacity[key]
                    for key, used in claims if key in limits):
                misses += 1
                continue
            cloud.consume(claims, *owner(), type_of())
    for rp, class_id in nodes:
        if rng.random() < fill:
            cloud.consume([((rp, class_id), 1)], *owner(), types["INSTANCE"])
    return cloud


# --------------------------------------------------------------------------
# the database
# --------------------------------------------------------------------------

COLUMNS = {
    "resource_providers": ("id", "uuid", "name", "generation", "root_provider_id",
                           "parent_provider_id", "created_at"),
    "inventories": ("id", "resource_provider_id", "resource_class_id", "total", "reserved",
                    "min_unit", "max_unit", "step_size", "allocation_ratio", "created_at"),
    "resource_provider_traits": ("trait_id", "resource_provider_id", "created_at"),
    "placement_aggregates": ("id", "uuid", "created_at"),
    "resource_provider_aggregates": ("resource_provider_id", "aggregate_id", "created_at"),
    "projects": ("id", "external_id", "created_at"),
    "users": ("id", "external_id", "created_at"),
    "consumers": ("id", "uuid", "project_id", "user_id", "generation", "consumer_type_id",
                  "created_at"),
    "allocations": ("id", "resource_provider_id", "consumer_id", "resource_class_id", "used",
                    "created_at"),
}
# Tables whose ids the loader hands out (the link tables have none).
ID_TABLES = ("resource_providers", "inventories", "placement_aggregates", "projects",
             "users", "consumers", "allocations")


def connect(url):
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.split("+")[0]
    name = parts.path.lstrip("/")
    if not name:
        raise LoadError(f"{url}: the URL names no database")
    if scheme in ("postgres", "postgresql"):
        import psycopg

        return "postgresql", psycopg.connect(
            host=parts.hostname or "127.0.0.1", port=parts.port or 5432,
            user=urllib.parse.unquote(parts.username or "postgres"),
            password=urllib.parse.unquote(parts.password or "") or None, dbname=name)
    if scheme in ("mysql", "mariadb"):
        import pymysql

        return "mysql", pymysql.connect(
            host=parts.hostname or "127.0.0.1", port=parts.port or 3306,
            user=urllib.parse.unquote(parts.username or "root"),
            password=urllib.parse.unquote(parts.password or ""), database=name,
            charset="utf8mb4", autocommit=False,
            # VCPU's id is 0: without this mode MariaDB stores the next
            # counter value instead, and every VCPU row points nowhere.
            init_command="SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
    raise LoadError(f"{url}: only postgresql:// and mysql:// URLs are supported")


def _scalar(cursor, sql, params=()):
    cursor.execute(sql, params)
    row = cursor.fetchone()
    return row[0] if row else None


def _ensure_names(cursor, vendor, table, names, *, fixed_ids=None, custom_from=None):
    """{name: id} for ``names`` in ``table``, inserting the missing ones.

    Standard resource classes get their fixed id (their index in
    os-resource-classes' list, as both servers write them); custom classes
    get ids from 10000 up; traits and consumer types take the next id, 1
    at least (as the servers' own counters start)."""
    marker = "%s"
    cursor.execute(f"SELECT name, id FROM {table}")
    known = dict(cursor.fetchall())
    for name in names:
        if name in known:
            continue
        if fixed_ids is not None and name in fixed_ids:
            new_id = fixed_ids[name]
        else:
            floor = custom_from or 1
            new_id = max([floor - 1, *(v for v in known.values())]) + 1
        cursor.execute(f"INSERT INTO {table} (id, name, created_at) VALUES ({marker}, {marker}, {marker})",
                       (new_id, name, NOW))
        known[name] = new_id
    if vendor == "postgresql":
        cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                       f"(SELECT MAX(id) FROM {table}))")
    return known


def _copy(cursor, vendor, table, rows):
    columns = COLUMNS[table]
    if not rows:
        return
    if vendor == "postgresql":
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        sql = (f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
               f"({', '.join(['%s'] * len(columns))})")
        for start in range(0, len(rows), 5000):
            cursor.executemany(sql, rows[start:start + 5000])


def load(url, providers, fill, seed, out=sys.stdout):
    vendor, connection = connect(url)
    started = time.monotonic()
    try:
        with connection.cursor() as cursor:
            try:
                existing = _scalar(cursor, "SELECT COUNT(*) FROM resource_providers")
                _scalar(cursor, "SELECT version_num FROM alembic_version")
            except Exception as exc:  # noqa: BLE001 - any driver's "no such table"
                raise LoadError("the database has no Placement tables: "
                                "run `placement-manage db sync` on it first") from exc
            if existing:
                raise LoadError(f"the database already holds {existing} resource providers: "
                                "load a synthetic cloud into an empty one")
            standards = {name: index for index, name in enumerate(os_resource_classes.STANDARDS)}
            classes = _ensure_names(cursor, vendor, "resource_classes",
                                    [*os_resource_classes.STANDARDS, *CUSTOM_CLASSES],
                                    fixed_ids=standards, custom_from=10000)
            traits = _ensure_names(cursor, vendor, "traits", [*STANDARD_TRAITS, *CUSTOM_TRAITS])
            types = _ensure_names(cursor, vendor, "consumer_types", CONSUMER_TYPES)
            ids = {table: _scalar(cursor, f"SELECT COALESCE(MAX(id), 0) FROM {table}")
                   for table in ID_TABLES}
            cloud = build(random.Random(seed), providers, fill, ids, classes, traits, types)
            built = time.monotonic()
            if vendor == "mysql":
                cursor.execute("SET foreign_key_checks = 0, unique_checks = 0")
            for table in COLUMNS:
                _copy(cursor, vendor, table, cloud.rows[table])
            if vendor == "postgresql":
                for table in ID_TABLES:
                    cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                   f"GREATEST((SELECT MAX(id) FROM {table}), 1))")
            else:
                cursor.execute("SET foreign_key_checks = 1, unique_checks = 1")
        connection.commit()
        if vendor == "postgresql":
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        else:
            with connection.cursor() as cursor:
                for table in COLUMNS:
                    cursor.execute(f"ANALYZE TABLE {table}")
                    cursor.fetchall()
    finally:
        connection.close()
    counts = {table: len(rows) for table, rows in cloud.rows.items()}
    print(f"loaded {counts['resource_providers']} providers, {counts['consumers']} consumers, "
          f"{counts['allocations']} allocations in {time.monotonic() - started:.1f} s "
          f"(built in {built - started:.1f} s)", file=out)
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.synthetic_cloud",
        description="Write a synthetic cloud straight into a Placement database.")
    parser.add_argument("--database-url", required=True,
                        help="postgresql://... or mysql://... of a database made by db sync")
    parser.add_argument("--providers", type=int, required=True, help="how many resource providers")
    parser.add_argument("--fill", type=float, default=0.5,
                        help="fraction of each host's capacity to allocate (0 to 1; default 0.5)")
    parser.add_argument("--seed", type=int, default=1, help="the same seed writes the same cloud")
    args = parser.parse_args(argv)
    if not 5 <= args.providers <= 10_000_000:
        parser.error("--providers must be between 5 and 10000000")
    if not 0 <= args.fill <= 1:
        parser.error("--fill must be between 0 and 1")
    try:
        load(args.database_url, args.providers, args.fill, args.seed)
    except LoadError as exc:
        print(f"synthetic_cloud: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a driver's error, one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"synthetic_cloud: {type(exc).__name__}: {first}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

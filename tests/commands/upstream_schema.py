"""A small database shaped like upstream Placement's (the tables the import reads).

Column names and meanings follow upstream's schema: standard resource
classes are not rows (their id is the index in os-resource-classes'
STANDARDS), custom ones start at id 10000; allocations name their consumer
by uuid.
"""
import sqlite3

import os_resource_classes

DDL = """
CREATE TABLE resource_classes (id INTEGER PRIMARY KEY, name VARCHAR(255) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE traits (id INTEGER PRIMARY KEY, name VARCHAR(255) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE placement_aggregates (id INTEGER PRIMARY KEY, uuid VARCHAR(36) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE projects (id INTEGER PRIMARY KEY, external_id VARCHAR(255) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE users (id INTEGER PRIMARY KEY, external_id VARCHAR(255) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE consumer_types (id INTEGER PRIMARY KEY, name VARCHAR(255) UNIQUE,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE resource_providers (id INTEGER PRIMARY KEY, uuid VARCHAR(36) UNIQUE,
    name VARCHAR(200) UNIQUE, generation INTEGER, root_provider_id INTEGER,
    parent_provider_id INTEGER, created_at DATETIME, updated_at DATETIME);
CREATE TABLE inventories (id INTEGER PRIMARY KEY, resource_provider_id INTEGER,
    resource_class_id INTEGER, total INTEGER, reserved INTEGER, min_unit INTEGER,
    max_unit INTEGER, step_size INTEGER, allocation_ratio FLOAT,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE resource_provider_aggregates (resource_provider_id INTEGER,
    aggregate_id INTEGER, created_at DATETIME, updated_at DATETIME,
    PRIMARY KEY (resource_provider_id, aggregate_id));
CREATE TABLE resource_provider_traits (trait_id INTEGER, resource_provider_id INTEGER,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (trait_id, resource_provider_id));
CREATE TABLE consumers (id INTEGER PRIMARY KEY, uuid VARCHAR(36) UNIQUE,
    project_id INTEGER, user_id INTEGER, generation INTEGER, consumer_type_id INTEGER,
    created_at DATETIME, updated_at DATETIME);
CREATE TABLE allocations (id INTEGER PRIMARY KEY, resource_provider_id INTEGER,
    consumer_id VARCHAR(36), resource_class_id INTEGER, used INTEGER,
    created_at DATETIME, updated_at DATETIME);
"""

STD = {name: i for i, name in enumerate(os_resource_classes.STANDARDS)}
ROOT, CHILD, SHARED = ("11111111-0000-0000-0000-000000000001",
                       "11111111-0000-0000-0000-000000000002",
                       "11111111-0000-0000-0000-000000000003")
AGG = "22222222-0000-0000-0000-000000000001"
CONSUMER = "33333333-0000-0000-0000-000000000001"
ORPHAN = "33333333-0000-0000-0000-000000000002"


def build(path, create=True):
    """Fill ``path`` with the sample rows (creating the tables unless ``create`` is false)."""
    conn = sqlite3.connect(path)
    if create:
        conn.executescript(DDL)
    fill(conn)
    conn.close()


def fill(conn, mark="?"):
    """Insert the sample rows through any DB-API connection (``mark``: its placeholder)."""
    cursor = conn.cursor()

    def ex(sql, params=()):
        cursor.execute(sql.replace("?", mark), params)
    ex("INSERT INTO resource_classes (id, name) VALUES (10000, 'CUSTOM_GOLD')")
    ex("INSERT INTO traits (id, name) VALUES (1, 'HW_CPU_X86_AVX'), (2, 'CUSTOM_FAST')")
    ex("INSERT INTO placement_aggregates (id, uuid) VALUES (7, ?)", (AGG,))
    ex("INSERT INTO projects (id, external_id) VALUES (1, 'proj-a')")
    ex("INSERT INTO users (id, external_id) VALUES (1, 'user-a')")
    ex("INSERT INTO consumer_types (id, name) VALUES (1, 'INSTANCE')")
    ex("INSERT INTO resource_providers (id, uuid, name, generation, root_provider_id, "
       "parent_provider_id) VALUES (1, ?, 'cn1', 5, 1, NULL), (2, ?, 'cn1-numa0', 3, 1, 1), "
       "(3, ?, 'shared-disk', 2, 3, NULL)", (ROOT, CHILD, SHARED))
    ex("INSERT INTO inventories (resource_provider_id, resource_class_id, total, reserved, "
       "min_unit, max_unit, step_size, allocation_ratio) VALUES "
       "(2, ?, 16, 0, 1, 16, 1, 16.0), (2, ?, 4096, 512, 1, 4096, 1, 1.5), "
       "(3, ?, 1000, 0, 1, 1000, 1, 1.0), (1, 10000, 3, 0, 1, 3, 1, 1.0)",
       (STD["VCPU"], STD["MEMORY_MB"], STD["DISK_GB"]))
    ex("INSERT INTO resource_provider_aggregates (resource_provider_id, aggregate_id) "
       "VALUES (1, 7), (3, 7)")
    ex("INSERT INTO resource_provider_traits (trait_id, resource_provider_id) "
       "VALUES (2, 1), (1, 2)")
    ex("INSERT INTO consumers (id, uuid, project_id, user_id, generation, consumer_type_id) "
       "VALUES (1, ?, 1, 1, 4, 1)", (CONSUMER,))
    ex("INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) "
       "VALUES (2, ?, ?, 2), (3, ?, ?, 100), (1, ?, 10000, 1)",
       (CONSUMER, STD["VCPU"], CONSUMER, STD["DISK_GB"], ORPHAN))
    conn.commit()

# The two commands: `make run` (serve on 127.0.0.1:8000) and `make test`.
# Both build .venv from the pinned requirements first, on a fresh machine too.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
METRICS_DIR := $(VENV)/run/prometheus

.PHONY: samples venv run test test-sqlite test-databases test-postgres bench conformance test-browser difftest

$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --disable-pip-version-check -q -r requirements.txt -r requirements-test.txt
	@# The checkout itself, editable and without dependencies: its entry points
	@# (the /healthcheck database backend, found by oslo.middleware through
	@# stevedore) exist only for an installed distribution.
	$(VENV)/bin/pip install --disable-pip-version-check -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(VENV)/bin/python manage.py migrate --noinput
	@echo "=================================================================="
	@echo " WARNING: auth strategy noauth2 -- NO AUTHENTICATION."
	@echo " Any x-auth-token is trusted; 'admin' is an administrator."
	@echo " Serving the Placement API on http://$(HOST):$(PORT)/ only."
	@echo "=================================================================="
	@# /metrics sums the workers' figures from files here: start empty.
	rm -rf $(METRICS_DIR) && mkdir -p $(METRICS_DIR)
	PROMETHEUS_MULTIPROC_DIR=$(METRICS_DIR) PLACEMENT_AUTH_STRATEGY=noauth2 PLACEMENT_CONSOLE=1 \
		$(VENV)/bin/gunicorn placement_site.wsgi:application -c placement_site/gunicorn_hooks.py \
		-b $(HOST):$(PORT) -w 2 --access-logfile -

# A first look: a small realistic cloud in demo.sqlite3 (fresh each time),
# a console login printed, then the server (http://127.0.0.1:8000/console/).
DEMO_DB := $(CURDIR)/demo.sqlite3
.PHONY: demo
demo: venv
	rm -f $(DEMO_DB)
	DATABASE_URL=sqlite:///$(DEMO_DB) $(VENV)/bin/python manage.py migrate --noinput -v0
	DATABASE_URL=sqlite:///$(DEMO_DB) $(VENV)/bin/python manage.py demo_cloud
	@echo "== console: http://$(HOST):$(PORT)/console/ (log in with the line above)"
	DATABASE_URL=sqlite:///$(DEMO_DB) PLACEMENT_AUTH_STRATEGY=noauth2 PLACEMENT_CONSOLE=1 \
		PLACEMENT_FLAVORS="m1.small=VCPU:1,MEMORY_MB:2048,DISK_GB:20; m1.large=VCPU:4,MEMORY_MB:8192,DISK_GB:80" \
		$(VENV)/bin/gunicorn placement_site.wsgi:application -c placement_site/gunicorn_hooks.py -b $(HOST):$(PORT) -w 2

# The whole suite on SQLite, then once per URL in PLACEMENT_TEST_DATABASE_URL
# (a space-separated list: postgres://... and/or mysql://...; CI sets it), e.g.
#   PLACEMENT_TEST_DATABASE_URL="postgres://root@127.0.0.1:5432/placement \
#     mysql://root@127.0.0.1:3306/placement_test" make test
# PYTEST_ARGS go to each run, e.g. PYTEST_ARGS="-n 2" for two pytest-xdist
# workers (each its own test database, test_<name>_gw0 and _gw1).
PYTEST_ARGS ?=
test: venv test-sqlite test-databases

test-sqlite: venv
	env -u DATABASE_URL $(VENV)/bin/python -m pytest $(PYTEST_ARGS)

test-databases: venv
	@if [ -z "$$PLACEMENT_TEST_DATABASE_URL" ]; then \
		echo "== PLACEMENT_TEST_DATABASE_URL not set: PostgreSQL/MariaDB runs skipped"; \
	fi
	@set -e; for url in $$PLACEMENT_TEST_DATABASE_URL; do \
		echo "== again on $$url"; \
		DATABASE_URL="$$url" $(VENV)/bin/python -m pytest $(PYTEST_ARGS); \
	done

test-postgres: test-databases

# Upstream's gabbi HTTP tests (openstack-placement 16.0.0's files, fetched
# with pip and cached under ~/.cache/placement-conformance, never copied
# into the repository) against this server, judged against the known-failures
# list; see conformance/README.md.  More options with ARGS, e.g.
#   make conformance ARGS="--files cors granular --jobs 1"
# CONFORMANCE_DB_URL=mysql://root@127.0.0.1:3306/ runs it on MariaDB.
ARGS ?=
conformance: venv
	conformance/run --known-failures conformance-known-failures.txt $(ARGS)

# A bounded differential run against upstream openstack-placement 16.0.0:
# for each of SEEDS, fresh servers (upstream on SQLite in its own virtualenv,
# built by the tester's setup.sh when missing; this service on DIFFTEST_DB,
# PostgreSQL at 127.0.0.1:5432 by default) get the same seeded random
# sequence of requests; .ci/difftest_gate.py then fails on any difference
# that is not upstream's own bug or harmless (docs/conformance.md: "Deliberate
# differences from upstream"). DIFFTEST_DIR is the tester (.ci/run names
# it). A seed sends DIFFTEST_STEPS requests unless DIFFTEST_TIME_LIMIT
# seconds pass first (the gate prints each seed's count and notes a cut);
# 400 steps took about 2 minutes a seed alone on the 2-core machine (two
# seeds: 4.7 minutes); CI, running other steps beside it, allows 900 s.
DIFFTEST_DIR ?=
DIFFTEST_UPSTREAM_VENV ?= $(HOME)/.cache/placement-difftest/upstream
SEEDS ?= 1 2
DIFFTEST_STEPS ?= 400
DIFFTEST_TIME_LIMIT ?= 240
DIFFTEST_DB ?= pg
difftest: venv
	@test -n "$(DIFFTEST_DIR)" || { echo "make difftest: set DIFFTEST_DIR to the differential tester's directory"; exit 2; }
	test -x $(DIFFTEST_UPSTREAM_VENV)/bin/placement-manage || \
		UPSTREAM_VENV=$(DIFFTEST_UPSTREAM_VENV) $(DIFFTEST_DIR)/setup.sh
	UPSTREAM_VENV=$(DIFFTEST_UPSTREAM_VENV) $(VENV)/bin/python .ci/difftest_gate.py \
		--tester $(DIFFTEST_DIR) --seeds "$(SEEDS)" --steps $(DIFFTEST_STEPS) \
		--time-limit $(DIFFTEST_TIME_LIMIT) --db $(DIFFTEST_DB)

# The real-Keystone integration test (tests/keystone): installs Keystone and
# keystonemiddleware (requirements-keystone.txt) in a throwaway virtualenv
# cached under ~/.cache/placement-keystone, starts Keystone on loopback and
# this service behind keystonemiddleware.  About 35 s with the cache warm,
# about 80 s cold.  Not part of `make test`.
.PHONY: test-keystone
test-keystone: venv
	env -u DATABASE_URL PLACEMENT_KEYSTONE_TEST=1 $(VENV)/bin/python -m pytest tests/keystone -m keystone -s

# The real-clients integration test (tests/clients): the `openstack` CLI with
# osc-placement and openstacksdk (requirements-clients.txt, in a throwaway
# virtualenv cached under ~/.cache/placement-clients) against this service
# under gunicorn on a free loopback port.  Not part of `make test`.
.PHONY: test-clients
test-clients: venv
	env -u DATABASE_URL PLACEMENT_CLIENTS_TEST=1 $(VENV)/bin/python -m pytest tests/clients -m clients -s

# Schemathesis (requirements-fuzz.txt, a virtualenv cached under
# ~/.cache/placement-fuzz) with every check over the OpenAPI document, against
# this service behind a real Keystone (tests/fuzz). A few minutes; set
# PLACEMENT_FUZZ_EXAMPLES for more cases per operation. Not part of `make test`.
.PHONY: test-fuzz
test-fuzz: venv
	env -u DATABASE_URL PLACEMENT_FUZZ_TEST=1 $(VENV)/bin/python -m pytest tests/fuzz -m fuzz -s

# Browser tests of the operator console: Debian's chromium + Playwright
# (no browser download). Screenshots land in tests/browser/screenshots/.
# browser-deps installs both (Playwright into .venv, once per
# requirements-browser.txt); .ci/run makes it before starting steps side by
# side, so nothing installs into .venv while other steps run from it.
BROWSER_STAMP := $(VENV)/.browser-installed
$(BROWSER_STAMP): $(STAMP) requirements-browser.txt
	$(VENV)/bin/pip install --disable-pip-version-check -q -r requirements-browser.txt
	touch $(BROWSER_STAMP)

.PHONY: browser-deps
browser-deps: $(BROWSER_STAMP)
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

test-browser: browser-deps
	env -u DATABASE_URL $(VENV)/bin/python -m pytest -m browser tests/browser

# The documentation site: docs/*.md with mkdocs.yml, built into site/ with
# `mkdocs build --strict` (a broken link, anchor or page fails the build).
# MkDocs lives in its own virtualenv, .venv-docs (requirements-docs.txt), so
# building the docs never installs into .venv while other work runs from it.
DOCS_VENV := .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed
$(DOCS_STAMP): requirements-docs.txt
	test -x $(DOCS_VENV)/bin/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/pip install --disable-pip-version-check -q -r requirements-docs.txt
	touch $(DOCS_STAMP)

.PHONY: docs
docs: $(DOCS_STAMP)
	$(DOCS_VENV)/bin/mkdocs build --strict

# Perfload-style timing of GET /allocation_candidates on PostgreSQL behind
# gunicorn (127.0.0.1): 1000 flat providers and 1000 nested trees; prints
# median/p95 latency and requests/s at concurrency 10 (benchmarks/bench.py).
bench: venv
	$(VENV)/bin/python benchmarks/bench.py
	$(VENV)/bin/python benchmarks/console_pages.py
	$(VENV)/bin/python benchmarks/claim_history.py
	$(VENV)/bin/python benchmarks/wide_trees.py

# Soak (a benchmark, not part of `make test`): two gunicorn servers on one
# fresh database, 16 clients, 10,000 claims/moves/deletions, then the
# capacity, usage and stored-as-acknowledged checks (benchmarks/soak.py).
# SOAK_DB is a server URL without a database, e.g. mysql://root@127.0.0.1:3306.
SOAK_DB ?= postgres://root@127.0.0.1:5432
.PHONY: soak
soak: venv
	$(VENV)/bin/python benchmarks/soak.py --db $(SOAK_DB)

# The same perfload scenarios on MariaDB/MySQL (BENCH_MYSQL_URL, a server
# URL without a database; the bench creates and drops its own).
BENCH_MYSQL_URL ?= mysql://root@127.0.0.1:3306
.PHONY: bench-mariadb
bench-mariadb: venv
	$(VENV)/bin/python benchmarks/bench.py --pg $(BENCH_MYSQL_URL)

# import_upstream against a database created by upstream's own schema:
# openstack-placement's `placement-manage db sync`, from a throwaway
# virtualenv cached under ~/.cache/placement-upstream (about 40 s cold).
UPSTREAM_VENV ?= $(HOME)/.cache/placement-upstream/venv-16.0.0
.PHONY: test-upstream-import
test-upstream-import: venv
	test -x $(UPSTREAM_VENV)/bin/placement-manage || \
		( rm -rf $(UPSTREAM_VENV) && $(PYTHON) -m venv $(UPSTREAM_VENV) && \
		  $(UPSTREAM_VENV)/bin/pip install --disable-pip-version-check -q openstack-placement==16.0.0 )
	$(UPSTREAM_VENV)/bin/python -c 'import pymysql' 2>/dev/null || \
		$(UPSTREAM_VENV)/bin/pip install --disable-pip-version-check -q PyMySQL==1.2.4
	@if [ -z "$$PLACEMENT_UPSTREAM_MYSQL_URL" ] && $(VENV)/bin/python -c \
		'import pymysql; pymysql.connect(host="127.0.0.1", port=3306, user="root").close()' 2>/dev/null; then \
		echo "== MariaDB answers on 127.0.0.1:3306: the MySQL import runs too"; \
		export PLACEMENT_UPSTREAM_MYSQL_URL=mysql://root@127.0.0.1:3306; fi; \
	env -u DATABASE_URL PLACEMENT_UPSTREAM_VENV=$(UPSTREAM_VENV) \
		$(VENV)/bin/python -m pytest -q tests/commands/test_import_real_upstream_schema.py

# One database with upstream (tests/onedb, issue 36): upstream
# openstack-placement 16.0.0 in its own cached virtualenv
# (requirements-upstream.txt, ~/.cache/placement-onedb) and this service on
# the same PostgreSQL and MariaDB databases: the schema each db sync makes,
# adopting upstream's database and switching back, upstream's gabbi files
# through a proxy picking either server at random (ONEDB_GABBI_LIST, default
# tests/onedb/gabbi-ci.txt; "all" for the 79 files), and the claims and
# one-consumer races with each server alone and both (figures printed;
# ONEDB_FIGURES=file keeps them).
# ONEDB_BACKENDS="postgres mysql" by default; databases onedb_*, ports
# 20700-20799 (ONEDB_DB_PREFIX, ONEDB_PORTS, ONEDB_CONFORMANCE_PORTS).
.PHONY: test-onedb
test-onedb: venv
	env -u DATABASE_URL PLACEMENT_ONEDB_TEST=1 $(VENV)/bin/python -m pytest -q -s tests/onedb

# This service against upstream openstack-placement 16.0.0 (installed in
# $(UPSTREAM_VENV), never vendored), both behind gunicorn -w 2 on PostgreSQL,
# same data loaded through the HTTP API: allocation_candidates (flat, nested),
# GET /resource_providers and 200 allocation claims, side by side
# (benchmarks/compare_upstream.py; BENCH_ARGS="--providers 1000 --trees 1000"
# for the perfload sizes).
.PHONY: bench-upstream
bench-upstream: venv
	$(VENV)/bin/python benchmarks/compare_upstream.py --upstream-venv $(UPSTREAM_VENV) $(BENCH_ARGS)

# Both servers on ONE database loaded by benchmarks/synthetic_cloud.py
# (100,000 providers by default), reads alternating request by request, a
# claim storm on each, workers' memory (benchmarks/bench_scale.py), e.g.
#   make bench-scale BENCH_SCALE_ARGS="--providers 1000"
#   make bench-scale BENCH_SCALE_ARGS="--db mysql://root@127.0.0.1:3306"
BENCH_SCALE_ARGS ?=
.PHONY: bench-scale
bench-scale: venv
	$(VENV)/bin/python -m benchmarks.bench_scale --upstream-venv $(UPSTREAM_VENV) $(BENCH_SCALE_ARGS)

# Galera multi-master: a 3-node MariaDB Galera cluster on loopback
# (tests/galera/cluster.sh, as root; nodes run as the mysql user), one
# gunicorn per node, racing claims/creators/moves across the three, then a
# node SIGKILLed mid-run and brought back. Prints the figures at the end.
.PHONY: test-galera
test-galera: venv
	tests/galera/cluster.sh start
	env -u DATABASE_URL PLACEMENT_GALERA_TEST=1 $(VENV)/bin/python -m pytest -q -s \
		tests/galera; rc=$$?; tests/galera/cluster.sh stop; exit $$rc

# Reads from a streaming replica ([placement_database] slave_connection): a
# PostgreSQL primary on 127.0.0.1:5440 and a replica made by pg_basebackup on
# :5441 (tests/replica/cluster.sh, as root; the servers run as postgres),
# then tests/replica (where reads go, lag, the replica stopped, a stale
# candidate refused at claim time) and the conformance files against servers
# reading from the replica (REPLICA_CONFORMANCE_ARGS, e.g. "--list smoke",
# narrows them). Both clusters are removed afterwards. About two minutes,
# plus the conformance run (all files: several minutes on a 2-core machine).
REPLICA_PORTS ?= 19700-19799
REPLICA_CONFORMANCE_ARGS ?=
.PHONY: test-replica
test-replica: venv
	tests/replica/cluster.sh start
	env -u DATABASE_URL PLACEMENT_REPLICA_TEST=1 REPLICA_TEST_PORTS=$(REPLICA_PORTS) \
		$(VENV)/bin/python -m pytest -q -s tests/replica; rc=$$?; \
	if [ $$rc -eq 0 ]; then \
		CONFORMANCE_PG_URL=postgres://root@127.0.0.1:5440/postgres \
		CONFORMANCE_PORT_RANGE=$(REPLICA_PORTS) conformance/run --jobs 2 \
			--known-failures conformance-known-failures.txt $(REPLICA_CONFORMANCE_ARGS) \
			--server-env PLACEMENT_DB_REPLICA_URL=postgres://root@127.0.0.1:5441; rc=$$?; \
	fi; \
	tests/replica/cluster.sh stop; exit $$rc

# The installation integration test (tests/deploy/test_install.py): the
# wheel built and installed alone into an empty virtualenv (its declared
# dependencies from the package index through pip's cache, requirements.txt
# only as version constraints), then placement-manage, placement-status,
# every operator command and gunicorn with only placement.conf or OS_*
# variables, on PostgreSQL (127.0.0.1:5432) and MariaDB (127.0.0.1:3306),
# and with no configuration at all (nothing written under site-packages).
# Not part of `make test`.
.PHONY: test-install
test-install: venv
	env -u DATABASE_URL PLACEMENT_INSTALL_TEST=1 $(VENV)/bin/python -m pytest tests/deploy/test_install.py -m install -s

# etc/placement/placement.conf.sample and policy.yaml.sample, from oslo's
# generators (tests/deploy/test_oslo_samples.py fails when they are stale).
samples: venv
	$(VENV)/bin/python -m tests.deploy.oslo_samples

# The deployment-tool layouts (tests/deploytools): the wheel installed alone
# into one virtualenv made from /usr/bin/python3.11 (with uWSGI, built from
# PyPI) and cached under /var/tmp/placement-deploytools, then started as
# kolla-ansible, openstack-helm, OpenStack-Ansible and devstack start it
# (real uWSGI) and as distro packages do (Debian's Apache with mod_wsgi),
# each with that tool's files, on PostgreSQL (127.0.0.1:5432) and MariaDB
# (127.0.0.1:3306).  deploy-tools-deps installs what is missing: a C
# compiler and the Python headers for uWSGI, apache2 and mod_wsgi.
.PHONY: deploy-tools-deps test-deploy-tools
deploy-tools-deps:
	@if ! command -v cc >/dev/null || ! test -f /usr/include/python3.11/Python.h \
		|| ! test -x /usr/sbin/apache2 || ! test -f /usr/lib/apache2/modules/mod_wsgi.so; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			build-essential python3.11-dev python3.11-venv apache2 libapache2-mod-wsgi-py3; \
	fi

test-deploy-tools: venv deploy-tools-deps
	env -u DATABASE_URL PLACEMENT_DEPLOYTOOLS_TEST=1 $(VENV)/bin/python -m pytest tests/deploytools -m deploytools -s $(PYTEST_ARGS)

"""The maintenance commands (manage.py placement_status, sync_catalog,
audit_allocations, heal_consumers, export_json, load_json, import_upstream,
allocation_history, prune_allocation_history, take_usage_snapshot,
explain_candidates, provider_tree).

The app sits on top of the data apps: it reads through their models and
selectors and writes through their services; only the dump loader writes
rows directly (see :mod:`maintenance.loader`).  The commands in
``management/commands`` parse options and print; the work lives in

- :mod:`maintenance.base`: exit codes and the command base class;
- :mod:`maintenance.checks`: placement_status checks (the audits' findings and
  fixes are :mod:`operations.audit`, shared with the console's Audit page);
- :mod:`maintenance.dump`: the portable dump (export, load);
- :mod:`maintenance.loader`: the bulk writer behind load_json/import_upstream;
- :mod:`maintenance.upstream`: reading an upstream Placement database.
"""

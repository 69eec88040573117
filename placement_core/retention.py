"""Pruning kept records: the one implementation behind every ``prune``
(allocation history, usage snapshots, scheduling failures).

A row goes when its time ``field`` is older than ``days`` (0 or less: none
go for age) and, with ``keep``, when it is beyond the newest ``keep`` rows.
Rows past ``keep`` are deleted in batches of ``BATCH`` ids so no statement
names an unbounded list.
"""
from datetime import timedelta

from django.utils import timezone

BATCH = 1000


def prune(manager, *, field, days, keep=None, now=None, dry_run=False) -> int:
    """Delete (``dry_run``: count) the rows of ``manager`` past the retention;
    returns how many."""
    aged = manager.none()
    if days > 0:
        cutoff = (now or timezone.now()) - timedelta(days=days)
        aged = manager.filter(**{f"{field}__lt": cutoff})
    if dry_run:
        count = aged.count()
        if keep is not None:
            count += max(0, manager.count() - count - keep)
        return count
    deleted = aged.delete()[0]
    if keep is None:
        return deleted
    newest_first = manager.order_by(f"-{field}", "-pk").values_list("pk", flat=True)
    while extra := list(newest_first[keep:keep + BATCH]):
        deleted += manager.filter(pk__in=extra).delete()[0]
    return deleted

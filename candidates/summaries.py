"""The provider summaries of a candidates answer.

Built from what the search already read wherever it can: only providers
whose inventories it did not read whole cost one more statement.
"""
from __future__ import annotations

from candidates import sql
from candidates.context import SearchContext
from providers.models import capacity_of


def summaries(ctx: SearchContext, found: list) -> dict:
    """Summaries of the providers the answer names: from 1.29 every provider
    of their trees, before only the providers used; before 1.27 only the
    requested classes.

    In the shape the answer shows them, by provider id: {uuid: {"resources":
    {class name: {"capacity", "used"}}, "traits" (names, by trait id; from
    1.17), "parent_provider_uuid" and "root_provider_uuid" (from 1.29)}}.
    Built here once rather than as a record the renderer then copies: a
    nested answer has 7,000 of them."""
    version = ctx.request.version
    providers = ctx.providers
    used = set()
    for combination in found:
        for choice in combination:
            used.update(choice.providers)  # those of its allocs among them (see Choice)
    if ctx.nested_aware:
        roots = {providers[p].root_id for p in used}
        ids = sorted([p.id for p in providers.values() if p.root_id in roots])
    else:
        ids = sorted(used)
    if not ids:
        return {}
    all_classes = version >= (1, 27)
    requested = {cid for g in ctx.groups for cid in g.resources}
    # Per provider: [(inventory id, class id, capacity, used)]. Nothing the
    # search read is read again: the providers read whole (Q1b) have their
    # rows in ctx.read; for any other, those Q1 filed for the search are in
    # ctx.inventory and the rest (other classes, or too full to serve) come
    # from Q7.
    complete, read = ctx.complete, ctx.read
    class_names = dict(ctx.class_names)
    if ctx.unnamed and all_classes:
        class_names.update(sql.class_names(ctx.unnamed))
    unread = [pid for pid in ids if pid not in complete]
    rows = {pid: [] for pid in unread}
    if unread:
        inventory_ids = ctx.inventory_ids
        known = []  # what Q7 leaves out: a shorter statement to plan
        for key, loaded in ctx.inventory.items():
            entry = rows.get(key[0])
            if entry is not None:
                entry.append((inventory_ids[key], key[1], loaded[0], loaded[1]))
                known.append(inventory_ids[key])
        for inv_id, pid, name, rc, total, reserved, ratio, used_now in sql.summary_inventories(
                unread, sorted(known)):
            if all_classes or rc in requested:
                rows[pid].append((inv_id, rc, capacity_of(total, reserved, ratio), int(used_now)))
                class_names[rc] = name
    with_traits, with_tree = version >= (1, 17), version >= (1, 29)
    names = ctx.trait_names if with_traits else {}
    summaries = {}
    # Plain loops: a comprehension is a function call, and a nested answer
    # has 7,000 summaries of one or two classes each.
    for pid in ids:
        if pid in complete:
            entries = read.get(pid, ())
            if not all_classes:
                entries = [e for e in entries if e[1] in requested]
        else:
            entries = rows[pid]
        if len(entries) > 1:
            entries.sort()  # in inventory order, as upstream lists them
        # In the shape the answer shows, so the renderer need not copy them.
        resources = {}
        for _, rc, capacity, used_now in entries:
            resources[class_names[rc]] = {"capacity": capacity, "used": used_now}
        p = providers[pid]
        if with_tree:
            parent = providers.get(p.parent_id)
            summaries[p.uuid] = {
                "resources": resources,
                "traits": _trait_names(p.traits, names) if names and p.traits else [],
                "parent_provider_uuid": parent.uuid if parent else None,
                "root_provider_uuid": providers[p.root_id].uuid,
            }
        elif with_traits:
            summaries[p.uuid] = {
                "resources": resources,
                "traits": _trait_names(p.traits, names) if names and p.traits else [],
            }
        else:
            summaries[p.uuid] = {"resources": resources}
    return summaries


def _trait_names(traits: set, names: dict) -> list:
    """The names of ``traits``, by trait id; most providers have one,
    which needs no sorting."""
    if len(traits) == 1:
        for trait in traits:
            return [names[trait]]
    return [names[t] for t in sorted(traits)]

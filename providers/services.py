"""Writes to resource providers, their place in a tree, aggregates and traits.

Each function is one transaction.  Writers that change what a provider
offers (aggregates from 1.19, traits) lock the provider row first
(``providers.locking``), re-check the client's generation under the lock,
write, then bump the generation.  Tree moves lock every provider of the
moved subtree so that no concurrent move can interleave.
"""
import uuid as uuid_lib

from django.db import IntegrityError, connection, transaction

from placement_core import errors
from providers import locking
from providers.models import Aggregate, ProviderAggregate, ProviderTrait, ResourceProvider
from providers.selectors import normalize_uuid, provider_get
from resource_classes.models import Trait

# Marker: "the request did not mention parent_provider_uuid".
UNSET = object()

GENERATION_CHANGED = (
    "Resource provider's generation already changed. Please update the generation "
    "and try again."
)


def _action_failed(action, reason):
    return f"Object action {action} failed because: {reason}"


def _duplicate(column, value):
    return errors.Conflict(
        f"Conflicting resource provider {column}: {value} already exists.",
        code=errors.DUPLICATE_NAME,
    )


def _lock_by_uuid(uuid):
    """Lock the provider named by ``uuid`` (404 when absent or not a uuid at all)."""
    canonical = normalize_uuid(uuid)
    if canonical is None:
        raise errors.NotFound(f"No resource provider with uuid {uuid} found")
    return locking.lock_provider_by_uuid(canonical)


def _descendant_ids(provider):
    """Ids of ``provider`` and everything below it (one query per tree level)."""
    found = [provider.pk]
    seen = {provider.pk}
    level = [provider.pk]
    while level:
        # Skipping what was found already ends the walk on a parent cycle
        # stored behind the API's back.
        level = [pk for pk in ResourceProvider.objects.filter(parent_id__in=level)
                 .values_list("pk", flat=True) if pk not in seen]
        seen.update(level)
        found.extend(level)
    return found


# -- Providers ----------------------------------------------------------------


def provider_create(*, name, uuid=None, parent_provider_uuid=None):
    """Create a provider (a root, or a child of ``parent_provider_uuid``)."""
    rp_uuid = normalize_uuid(uuid) if uuid else str(uuid_lib.uuid4())

    def failed(reason):
        return errors.BadRequest(
            f'Unable to create resource provider "{name}", {rp_uuid}: '
            + _action_failed("create", reason)
        )

    with transaction.atomic():
        parent = None
        if parent_provider_uuid is not None:
            parent_uuid = normalize_uuid(parent_provider_uuid)
            if parent_uuid == rp_uuid:
                raise failed(
                    "parent provider UUID cannot be same as UUID. Please set parent "
                    "provider UUID to None if there is no parent."
                )
            # Lock the parent so it cannot be deleted under us.
            parent = locking.lock_provider(parent_uuid) if parent_uuid else None
            if parent is None:
                raise failed("parent provider UUID does not exist.")
        by_uuid = ResourceProvider.objects.filter(uuid=rp_uuid).exists()
        by_name = ResourceProvider.objects.filter(name=name).exists()
        if by_uuid and by_name:
            raise errors.Conflict(
                f"Conflicting resource provider uuid: {rp_uuid}, name: {name} already exists.",
                code=errors.DUPLICATE_NAME,
            )
        if by_uuid:
            raise _duplicate("uuid", rp_uuid)
        if by_name:
            raise _duplicate("name", name)
        try:
            with transaction.atomic():
                provider = ResourceProvider.objects.create(
                    uuid=rp_uuid,
                    name=name,
                    parent=parent,
                    root_id=parent.root_id if parent is not None else None,
                )
        except IntegrityError:
            # A concurrent writer took the name or uuid between check and insert.
            raise errors.Conflict(
                f"Conflicting resource provider {name} already exists.",
                code=errors.DUPLICATE_NAME,
            )
        if parent is None:
            ResourceProvider.objects.filter(pk=provider.pk).update(root_id=provider.pk)
            provider.root_id = provider.pk
    return provider


def provider_update(*, uuid, name, parent_provider_uuid=UNSET, allow_reparenting=False):
    """Rename a provider and, optionally, move it in (or out of) a tree.

    Before microversion 1.37 (``allow_reparenting=False``) a parent may only
    be given to a root; from 1.37 a provider may move under any provider
    outside its own subtree, or become a root (``None``).
    """

    def failed(reason):
        return errors.BadRequest(
            f"Unable to save resource provider {uuid}: " + _action_failed("update", reason)
        )

    with transaction.atomic():
        current = provider_get(uuid=uuid)
        parent = None
        if parent_provider_uuid not in (UNSET, None):
            parent = ResourceProvider.objects.filter(
                uuid=normalize_uuid(parent_provider_uuid)
            ).first()
            if parent is None:
                raise failed("parent provider UUID does not exist.")
        # A move locks the moving subtree and the new parent, all in pk order
        # (no deadlock between crossed moves), then re-checks under the locks.
        moving = parent is not None or parent_provider_uuid is None
        to_lock = {current.pk}
        if moving:
            to_lock |= set(_descendant_ids(current))
        if parent is not None:
            to_lock.add(parent.pk)
        locked = locking.lock_providers(to_lock)
        while True:
            provider = locked.get(current.pk)
            if provider is None:
                raise errors.NotFound(f"No resource provider with uuid {uuid} found")
            subtree = _descendant_ids(provider) if moving else [provider.pk]
            extra = set(subtree) - set(locked)
            if not extra:
                break
            locked.update(locking.lock_providers(extra))
        if parent is not None:
            parent = locked.get(parent.pk)
            if parent is None:
                raise failed("parent provider UUID does not exist.")
        if name != provider.name and ResourceProvider.objects.filter(name=name).exists():
            raise _duplicate("name", name)
        provider.name = name
        new_root_id = None
        if parent_provider_uuid is None:
            if provider.parent_id is not None:
                if not allow_reparenting:
                    raise failed("un-parenting a provider is not currently allowed.")
                provider.parent_id = None
                new_root_id = provider.pk
        elif parent is not None and parent.pk != provider.parent_id:
            if provider.parent_id is not None and not allow_reparenting:
                raise failed("re-parenting a provider is not currently allowed.")
            if parent.pk in subtree:
                raise failed("creating loop in the provider tree is not allowed.")
            provider.parent_id = parent.pk
            new_root_id = parent.root_id
        try:
            with transaction.atomic():
                provider.save(update_fields=["name", "parent", "updated_at"])
        except IntegrityError:
            raise _duplicate("name", name)
        if new_root_id is not None and new_root_id != provider.root_id:
            ResourceProvider.objects.filter(pk__in=subtree).update(root_id=new_root_id)
            provider.root_id = new_root_id
    return provider


def provider_delete(*, uuid):
    """Delete a provider with its inventories and links; 409 if in use or a parent."""
    with transaction.atomic():
        canonical = normalize_uuid(uuid)
        provider = locking.lock_provider(canonical) if canonical is not None else None
        if provider is None:
            raise errors.NotFound(f"No resource provider with uuid {uuid} found for delete")
        # Children first, then allocations: the order upstream reports them in.
        if ResourceProvider.objects.filter(parent_id=provider.pk).exists():
            raise errors.Conflict(
                f"Unable to delete parent resource provider {uuid}: It has child resource "
                "providers.",
                code=errors.PROVIDER_CANNOT_DELETE_PARENT,
            )
        # Allocation.resource_provider's related name: no import of the allocations app.
        if provider.allocations.exists():
            raise errors.Conflict(
                f"Unable to delete resource provider {uuid}: Resource provider has "
                "allocations.",
                code=errors.PROVIDER_IN_USE,
            )
        ProviderAggregate.objects.filter(resource_provider_id=provider.pk).delete()
        ProviderTrait.objects.filter(resource_provider_id=provider.pk).delete()
        provider.inventories.all().delete()
        if provider.root_id == provider.pk and not connection.features.can_defer_constraint_checks:
            # MariaDB/MySQL check foreign keys row by row, at once: a root's
            # reference to itself would refuse its own delete.
            ResourceProvider.objects.filter(pk=provider.pk).update(root=None)
        provider.delete()


# -- Aggregates ---------------------------------------------------------------


def provider_aggregates_set(*, uuid, aggregate_uuids, generation=None, bump=False):
    """Replace a provider's aggregates; returns the locked provider.

    With ``bump`` (microversion 1.19+) the client's ``generation`` must match
    and the provider's generation goes up by one. Set operations and bulk
    statements throughout: the work grows with the list, not its square.
    """
    # Stored as the client spelled them (dashes or not), like upstream, so
    # they are echoed back unchanged; filters compare canonical forms.
    wanted = set(aggregate_uuids)
    with transaction.atomic():
        provider = _lock_by_uuid(uuid)
        if bump:
            locking.check_provider_generation(provider, generation, GENERATION_CHANGED)
        ids = _aggregate_ids(wanted)
        missing = wanted - ids.keys()
        if missing:
            # A concurrent writer may create some of them first: skip those
            # rows and read every id back.
            Aggregate.objects.bulk_create(
                [Aggregate(uuid=value) for value in sorted(missing)],
                batch_size=BULK_BATCH, ignore_conflicts=True)
            ids.update(_aggregate_ids(missing))
        _replace_links(ProviderAggregate, "aggregate_id", provider, set(ids.values()))
        if bump:
            locking.bump_generations([provider])
    return provider


# Rows per bulk statement, and values per IN list: within every backend's
# limit on bound parameters (the backend may cut a batch smaller).
BULK_BATCH = 1000


def _aggregate_ids(uuids) -> dict[str, int]:
    ordered = sorted(uuids)
    found = {}
    for start in range(0, len(ordered), BULK_BATCH):
        found.update(Aggregate.objects.filter(uuid__in=ordered[start:start + BULK_BATCH])
                     .values_list("uuid", "id"))
    return found


def _replace_links(link_model, column, provider, wanted_ids):
    """Make the provider's rows in a link table (aggregates, traits) exactly ``wanted_ids``.

    Only the difference is written: stale links deleted, missing ones added.
    Returns whether anything changed.
    """
    links = link_model.objects.filter(resource_provider_id=provider.pk)
    current_ids = set(links.values_list(column, flat=True))
    stale = sorted(current_ids - wanted_ids)
    for start in range(0, len(stale), BULK_BATCH):
        links.filter(**{f"{column}__in": stale[start:start + BULK_BATCH]}).delete()
    # New rows go in the iteration order of a set of ids, as upstream inserts
    # them: upstream reads a provider's traits back without ORDER BY, so on
    # PostgreSQL it lists them in insertion order, and side by side on one
    # database it must find the same list whichever server wrote it.
    missing = set(sorted(wanted_ids)) - current_ids
    link_model.objects.bulk_create(
        [link_model(resource_provider_id=provider.pk, **{column: linked_id})
         for linked_id in missing],
        batch_size=BULK_BATCH,
    )
    return bool(stale or missing)


# -- Traits -------------------------------------------------------------------


def provider_traits_set(*, uuid, trait_names, generation):
    """Replace a provider's traits (generation-checked); returns the provider."""
    names = list(dict.fromkeys(trait_names))
    with transaction.atomic():
        provider = _lock_by_uuid(uuid)
        locking.check_provider_generation(provider, generation, GENERATION_CHANGED)
        found = dict(Trait.objects.filter(name__in=names).values_list("name", "id"))
        missing = [name for name in names if name not in found]
        if missing:
            raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}.")
        # As upstream: the generation moves only when the set does.
        if _replace_links(ProviderTrait, "trait_id", provider, set(found.values())):
            locking.bump_generations([provider])
    return provider


def provider_traits_delete(*, uuid):
    """Remove every trait of a provider; the generation moves only if it had some."""
    with transaction.atomic():
        provider = _lock_by_uuid(uuid)
        deleted, _ = ProviderTrait.objects.filter(resource_provider_id=provider.pk).delete()
        if deleted:
            locking.bump_generations([provider])
    return provider

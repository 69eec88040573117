"""Row locks and generation checks shared by every provider/consumer writer.

DESIGN.md section 4: lock the rows you will change with SELECT ... FOR
UPDATE, always in primary-key order (so two writers never wait on each
other in a cycle), re-check the generation under the lock, write, bump.
Call these inside ``transaction.atomic()``.
"""
from django.db.models import F

from placement_core import errors
from providers.models import ResourceProvider
from providers.selectors import provider_get


def lock_providers(provider_ids) -> dict:
    """Lock the given providers (by pk) in pk order; return {pk: provider}."""
    ids = sorted(set(provider_ids))
    if not ids:
        return {}
    rows = ResourceProvider.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {row.pk: row for row in rows}


def lock_provider_by_uuid(uuid):
    """Lock one provider by its uuid as written; 404 when it does not exist
    (without Vary: upstream's writers fail this look-up outside their
    handlers, where the header is added)."""
    try:
        return provider_get(uuid=uuid, lock=True, exact=True)
    except errors.NotFound as exc:
        exc.vary = False
        raise


GENERATION_CONFLICT = (
    "resource provider generation conflict: resource provider {uuid} "
    "has generation {actual}, the request named {given}. "
    "Please update the resource provider and try again."
)


def check_provider_generation(provider, generation, message=GENERATION_CONFLICT):
    """409 placement.concurrent_update unless the client saw the current generation.

    ``message`` is the error detail, a ``str.format`` template that may use
    ``{uuid}`` (the provider's), ``{actual}`` (its generation) and
    ``{given}`` (the client's); endpoints word the conflict differently.
    """
    if generation != provider.generation:
        raise errors.Conflict(
            message.format(uuid=provider.uuid, actual=provider.generation, given=generation),
            code=errors.CONCURRENT_UPDATE,
        )


def bump_provider_generation(provider):
    """Increment the generation of a locked provider (in the database and in memory)."""
    ResourceProvider.objects.filter(pk=provider.pk).update(generation=F("generation") + 1)
    provider.generation += 1
    return provider.generation

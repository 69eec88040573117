"""The maintenance fixes of consumers: ``heal_consumers`` gives incomplete
consumers a real owner, ``audit_allocations --fix`` deletes those left with
no allocations. Each one transaction, consumers locked in uuid order, the
order every allocation writer locks them in (``allocations.services``)."""
import uuid as uuidlib

from django.conf import settings
from django.db import transaction

from allocations import changes
from allocations.models import Allocation, Consumer, Project, User
from allocations.selectors import consumers_incomplete
from placement_core import request_scope
from providers.locking import bump_generations, get_or_create_by_name, lock_consumers


def consumers_heal(*, project_id: str, user_id: str, dry_run: bool = False) -> int:
    """Give incomplete consumers a real project and user; bump their generation.

    Returns how many consumers were (with ``dry_run``: would be) healed.
    One transaction; the consumer rows are locked in uuid order, the order
    every allocation writer locks consumers in.
    """
    with transaction.atomic():
        consumers = lock_consumers(consumers_incomplete().select_related("project", "user"))
        if dry_run or not consumers:
            return len(consumers)
        project = get_or_create_by_name(Project, "external_id", project_id)
        user = get_or_create_by_name(User, "external_id", user_id)
        missing_project = settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
        missing_user = settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID
        held = changes.snapshot([c.pk for c in consumers])
        owners = {}
        for consumer in consumers:
            fields, changed = ["updated_at"], []
            if consumer.project.external_id == missing_project:
                changed.append(("project", missing_project, project_id))
                consumer.project = project
                fields.append("project")
            if consumer.user.external_id == missing_user:
                changed.append(("user", missing_user, user_id))
                consumer.user = user
                fields.append("user")
            consumer.save(update_fields=fields)
            owners[consumer.uuid] = changes.owner_change(changed)
        bump_generations(consumers, touch=True)
        if held is not None:
            # The amounts stay; the history shows whose they now are.
            changes.record(held, held, {c.uuid: c.generation for c in consumers}, owners)
    return len(consumers)


def consumers_delete_empty(*, uuids, source="audit_allocations", user_id="") -> int:
    """Delete those of ``uuids`` that hold no allocations; returns how many went.

    One transaction; each consumer is re-checked under its row lock (taken
    in uuid order), so one that a concurrent writer just gave allocations
    stays.  Each deletion is recorded in the allocation history
    (``consumer_deleted``) with ``source`` and ``user_id``: the command, or
    the console and the staff user who confirmed.
    """
    deleted = []
    caller = request_scope.Caller(request_id=f"req-{uuidlib.uuid4()}", source=source,
                                  user_id=user_id)
    with request_scope.bound(caller), transaction.atomic():
        locked = lock_consumers(Consumer.objects.filter(uuid__in=list(uuids)))
        for consumer in locked:
            if not Allocation.objects.filter(consumer_id=consumer.pk).exists():
                consumer.delete()
                deleted.append((consumer.uuid, consumer.generation))
        changes.record_deleted(deleted)
    return len(deleted)

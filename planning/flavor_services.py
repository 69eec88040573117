"""Every write of the flavors operators store for headroom (the console's
Flavors page, the admin): :func:`flavor_create` and :func:`flavor_delete`;
what they accept is :func:`flavor_name_check` and :func:`flavor_parse`, the
``PLACEMENT_FLAVORS`` reader followed by a check against the catalog."""
from django.conf import settings
from django.db import IntegrityError, transaction

from placement_core import errors
from placement_core.querystring import Flavor as FlavorSpec
from placement_core.querystring import parse_flavors
from planning.models import Flavor
from resource_classes.models import ResourceClass


def flavor_name_check(name: str) -> str:
    """The name stripped, or BadRequest: a name must be one ``PLACEMENT_FLAVORS``
    could hold (no ``;`` or ``=``, which separate its entries) and not one it
    already defines (the setting's flavor would be the one counted)."""
    name = (name or "").strip()
    if not name:
        raise errors.BadRequest("A flavor needs a name.")
    if ";" in name or "=" in name:
        raise errors.BadRequest(
            f"Flavor name {name!r}: ';' and '=' are not allowed (PLACEMENT_FLAVORS "
            "separates flavors with ';' and a name from its resources with '=').")
    if len(name) > Flavor._meta.get_field("name").max_length:
        raise errors.BadRequest(f"Flavor name {name[:40]!r}...: at most 255 characters.")
    if any(f.name == name for f in settings.PLACEMENT_FLAVORS):
        raise errors.BadRequest(
            f"Flavor {name!r} is defined in PLACEMENT_FLAVORS, whose definition headroom "
            "counts; choose another name.")
    return name


def flavor_parse(*, name: str, resources: str) -> FlavorSpec:
    """``resources`` (``VCPU:4,MEMORY_MB:8192``, ``resources=`` optional) read
    by the same reader as ``PLACEMENT_FLAVORS`` (amounts >= 1, each class
    once), then every class checked against the catalog, which the setting
    cannot be at start-up. BadRequest with the reader's words."""
    name = flavor_name_check(name)
    text = (resources or "").strip()
    if not text.removeprefix("resources="):
        raise errors.BadRequest(
            f"flavor {name!r}: give its resources, e.g. VCPU:4,MEMORY_MB:8192,DISK_GB:80.")
    if ";" in text:
        raise errors.BadRequest(f"flavor {name!r}: one flavor at a time (no ';').")
    try:
        (flavor,) = parse_flavors(f"{name}={text}")
    except ValueError as exc:
        raise errors.BadRequest(str(exc)) from None
    known = set(ResourceClass.objects.filter(name__in=list(flavor.resources))
                .values_list("name", flat=True))
    unknown = [rc for rc in flavor.resources if rc not in known]
    if unknown:
        raise errors.BadRequest(
            f"flavor {name!r}: no such resource class(es): {', '.join(unknown)}.")
    return flavor


def flavor_text(spec: FlavorSpec) -> str:
    """A flavor's resources in the one form stored and shown: ``CLASS:N,...``."""
    return ",".join(f"{rc}:{n}" for rc, n in spec.resources.items())


def flavor_create(*, name: str, resources: str) -> Flavor:
    """Store a flavor (its resources written back by :func:`flavor_text`);
    409 when the name is taken."""
    spec = flavor_parse(name=name, resources=resources)
    text = flavor_text(spec)
    try:
        with transaction.atomic():
            return Flavor.objects.create(name=spec.name, resources=text)
    except IntegrityError:
        raise errors.Conflict(f"Flavor {spec.name!r} already exists.",
                              code=errors.DUPLICATE_NAME) from None


def flavor_delete(*, name: str) -> None:
    """Delete a stored flavor; 404 when there is none of that name."""
    deleted, _ = Flavor.objects.filter(name=name).delete()
    if not deleted:
        raise errors.NotFound(f"No stored flavor {name!r}.")

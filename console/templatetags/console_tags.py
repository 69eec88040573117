"""Capacity bars (plain inline SVG, no JavaScript, no external assets) and
amounts in their unit with the raw count on hover."""
from django import template
from django.utils.html import conditional_escape, format_html

from candidates.explanation import CLASS_REASONS

register = template.Library()


def _pct(part, whole):
    return max(0.0, min(100.0, 100.0 * part / whole)) if whole > 0 else 0.0


@register.simple_tag
def capacity_bar(cap, width=240):
    """A bar for a ``Capacity``: used | reserved (scaled by the ratio) | free.

    The bar's full length is total * allocation_ratio; reserved takes
    reserved * ratio of it; used is drawn from the left, red past 90 %.
    """
    ratio = cap.ratio or 1.0
    full = cap.total * ratio if cap.total else max(cap.used, 1)
    used_pct = _pct(cap.used, full)
    reserved_pct = min(100.0 - used_pct, _pct(cap.reserved * ratio, full))
    level = "crit" if cap.fraction >= 0.9 else ("warn" if cap.fraction >= 0.7 else "ok")
    title = (f"{cap.resource_class}: {cap.used} used of {cap.capacity} "
             f"(total {cap.total}, reserved {cap.reserved}, ratio {ratio:g}), {cap.free} free")
    return format_html(
        '<svg class="bar" role="img" aria-label="{title}" width="{w}" height="14" '
        'viewBox="0 0 100 14" preserveAspectRatio="none"><title>{title}</title>'
        '<rect class="bar-free" x="0" y="0" width="100" height="14"/>'
        '<rect class="bar-used bar-{level}" x="0" y="0" width="{u}" height="14"/>'
        '<rect class="bar-reserved" x="{rx}" y="0" width="{r}" height="14"/>'
        '</svg>',
        title=title, w=width, level=level, u=f"{used_pct:.2f}", rx=f"{100.0 - reserved_pct:.2f}",
        r=f"{reserved_pct:.2f}",
    )


@register.filter
def indent(depth):
    return range(depth)


@register.filter
def sub(a, b):
    return (a or 0) - (b or 0)


@register.filter
def get(mapping, key):
    return (mapping or {}).get(key)


def human_amount(amount, resource_class: str) -> str:
    """``amount`` of ``resource_class`` in the unit an operator reads: MEMORY_MB
    and DISK_GB in GiB/TiB, bandwidth classes in Mbit/s or Gbit/s; other
    classes as counted."""
    if amount is None:
        return ""
    steps = None
    if resource_class == "MEMORY_MB":
        steps = [(1024 * 1024, "TiB"), (1024, "GiB"), (1, "MiB")]
    elif resource_class == "DISK_GB":
        steps = [(1024, "TiB"), (1, "GiB")]
    elif resource_class.endswith("_KILOBIT_PER_SEC"):
        steps = [(1_000_000, "Gbit/s"), (1_000, "Mbit/s"), (1, "kbit/s")]
    if not steps:
        return str(amount)
    for size, unit in steps:
        if abs(amount) >= size:
            value = amount / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"0 {steps[-1][1]}"


@register.simple_tag
def amount(value, resource_class):
    """The amount in its unit, the raw count on hover (and for sorting)."""
    return format_html('<span class="amount" title="{raw} {rc}" data-sort="{raw}">{text}</span>',
                       raw=value, rc=resource_class,
                       text=human_amount(value, resource_class))


@register.simple_tag
def reason(kind, item):
    """An explain failure (a ``Removed`` or a closest provider's ``Reason``, or
    either as the dict a scheduling failure stored)
    as its sentence, each amount through :func:`amount`; other failures (traits,
    aggregates, trees) as their plain text."""
    if isinstance(item, dict):  # as stored with a scheduling failure
        rc, text, numbers = item.get("resource_class"), item.get("reason"), item.get("numbers")
    else:
        rc, text, numbers = getattr(item, "resource_class", None), item.reason, item.numbers
    sentence = CLASS_REASONS.get(kind)
    if sentence is None or not rc:
        return text
    return format_html(conditional_escape(sentence), rc=rc,
                       **{name: amount(value, rc) for name, value in (numbers or {}).items()})

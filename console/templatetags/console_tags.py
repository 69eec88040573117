"""Capacity bars: plain inline SVG, no JavaScript, no external assets."""
from django import template
from django.utils.html import format_html

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

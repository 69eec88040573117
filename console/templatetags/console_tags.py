"""Capacity bars (plain inline SVG, no JavaScript, no external assets) and
amounts in their unit with the raw count on hover."""
from datetime import datetime, timezone
from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from candidates.explanation import CLASS_REASONS
from placement_core.units import human_amount

register = template.Library()


def _pct(part, whole):
    return max(0.0, min(100.0, 100.0 * part / whole)) if whole > 0 else 0.0


@register.simple_tag
def capacity_bar(cap, width=240):
    """A bar for a ``Capacity``: used | reserved (scaled by the ratio) | free.

    The bar's full length is total * allocation_ratio; reserved takes
    reserved * ratio of it; used is drawn from the left, red past 90 %.
    Summed over inventories of several ratios, each total and reserved
    counts times its own ratio.
    """
    ratio = cap.ratio or 1.0
    if cap.scaled_total is not None:
        full, reserved = cap.scaled_total or max(cap.used, 1), cap.scaled_reserved
    else:
        full = cap.total * ratio if cap.total else max(cap.used, 1)
        reserved = cap.reserved * ratio
    used_pct = _pct(cap.used, full)
    reserved_pct = min(100.0 - used_pct, _pct(reserved, full))
    level = "crit" if cap.fraction >= 0.9 else ("warn" if cap.fraction >= 0.7 else "ok")
    ratios = (f"{ratio:g}" if cap.ratio_min in (None, cap.ratio_max)
              else f"{cap.ratio_min:g}–{cap.ratio_max:g}")
    limits = (f"total {cap.total}, reserved {cap.reserved}, ratio {ratios}"
              if cap.ratio is not None else "no inventory")
    title = (f"{cap.resource_class}: {cap.used} used of {cap.capacity} ({limits}), "
             f"{cap.free} free")
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


# A stand-in uuid: a provider page's address is reversed once per render.
_STAND_IN = "00000000-0000-0000-0000-000000000000"


@register.simple_tag(takes_context=True)
def provider_href(context, uuid):
    """The console page of provider ``uuid``, as ``{% url 'console:provider' uuid %}``
    gives it, reversed once per render: pages that link hundreds of
    providers (the forest, an explanation's removed providers) spent a
    tenth of their time reversing the same pattern."""
    cache = context.render_context
    base = cache.get("provider_href")
    if base is None:
        base = cache["provider_href"] = reverse("console:provider", args=[_STAND_IN])
    return base.replace(_STAND_IN, uuid)


@register.filter
def head(items, count):
    """The first ``count`` of a list (what a compact cell names)."""
    return list(items)[:count]


@register.filter
def tail(items, count):
    """A list after its first ``count`` (what "+N more" folds)."""
    return list(items)[count:]


@register.simple_tag
def tree_href(link):
    """Where a tree named on the forest page is: its block when shown, else
    the search for its root."""
    if link.shown:
        return f"#tree-{link.uuid}"
    return f"?q={quote(link.name)}#tree-{link.uuid}"


@register.filter
def get(mapping, key):
    return (mapping or {}).get(key)


@register.simple_tag
def amount(value, resource_class):
    """The amount in its unit, the raw count on hover (and for sorting)."""
    if value is None:
        return ""
    return format_html('<span class="amount" title="{raw} {rc}" data-sort="{value}">{text}</span>',
                       raw=f"{value:,}", value=value, rc=resource_class,
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
    if kind not in CLASS_REASONS or not rc:
        return text
    return units_in(text, [{"kind": kind, "resource_class": rc, "numbers": numbers or {}}])


def _in_units(why):
    """(the sentence with plain numbers, the same with each amount in its unit)."""
    sentence, rc, numbers = CLASS_REASONS[why["kind"]], why["resource_class"], why["numbers"]
    try:
        plain = sentence.format(rc=rc, **numbers)
    except (KeyError, IndexError):  # a record stored with fewer numbers
        return None
    return plain, format_html(conditional_escape(sentence), rc=rc, **{
        name: amount(value, rc) if isinstance(value, int) else value
        for name, value in numbers.items()})


@register.simple_tag
def units_in(text, reasons):
    """``text`` (an explanation's sentence, a verdict, a record's summary)
    with every per-class failure of ``reasons`` ({"kind", "resource_class",
    "numbers"}) it quotes in plain numbers shown with each amount in its unit."""
    out = conditional_escape(text or "")
    pairs = [_in_units(why) for why in reasons or () if why.get("kind") in CLASS_REASONS]
    # Longest first: "max_unit 4" must not take the start of "max_unit 40".
    for plain, shown in sorted(filter(None, pairs), key=lambda p: -len(p[0])):
        out = out.replace(conditional_escape(plain), shown)
    return mark_safe(out)


@register.filter
def when(value):
    """A moment as the console shows one: ``2026-11-27 06:33:08`` (UTC),
    from a datetime or the ISO text an API answer carries."""
    if not value:
        return ""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc)
    return value.strftime("%Y-%m-%d %H:%M:%S")


@register.filter
def intcomma(value):
    """A count with thousands separators (12,000)."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return value


@register.simple_tag
def percent(fraction):
    """A fullness (0.0-1.0) as a percentage, the raw fraction for sorting."""
    if fraction is None:
        return ""
    return format_html('<span class="pct-value" data-sort="{raw}">{text} %</span>',
                       raw=repr(float(fraction)), text=f"{fraction * 100:,.1f}")


@register.simple_tag
def consumer_label(consumer, consumer_type=None):
    """A consumer by what it is and the start of its uuid (consumers have no
    name), the whole uuid on hover, a link to its page; a ``MIGRATION``
    consumer tagged as such. ``consumer`` is a ``Consumer`` or a uuid (with
    ``consumer_type`` given, "" when unknown, None when the consumer is gone)."""
    uuid = getattr(consumer, "uuid", consumer)
    if consumer_type is None and hasattr(consumer, "consumer_type_id"):
        consumer_type = consumer.consumer_type.name if consumer.consumer_type_id else ""
    if consumer_type is None:
        # Its page shows what the history recorded of it.
        return format_html('<a class="consumer" href="{href}" title="{u} (deleted)"><span '
                           'class="mono">{short}</span></a> <span class="muted">(gone)</span>',
                           href=reverse("console:consumer", args=[uuid]), u=uuid,
                           short=uuid[:8])
    kind = consumer_type.lower() if consumer_type else "consumer"
    tag = mark_safe(' <span class="tag migration" title="a move in flight: it holds the '
                    'source host">MIGRATION</span>') if consumer_type == "MIGRATION" else ""
    return format_html('<a class="consumer" href="{href}" title="{u}">{kind} <span class="mono">'
                       '{short}</span></a>{tag}', href=reverse("console:consumer", args=[uuid]),
                       u=uuid, kind=kind, short=uuid[:8], tag=tag)


@register.simple_tag
def provider_link(uuid, names):
    """A provider by name (``names``: uuid -> name), a link to its page; the
    uuid's start when it is gone."""
    name = (names or {}).get(uuid)
    if name is None:
        return format_html('<span class="mono" title="{u} (deleted)">{short}</span> '
                           '<span class="muted">(gone)</span>', u=uuid, short=uuid[:8])
    return format_html('<a href="{href}" title="{u}">{name}</a>',
                       href=reverse("console:provider", args=[uuid]), u=uuid, name=name)


@register.simple_tag
def aggregate_label(aggregate_uuid, members):
    """An aggregate by its members' names (aggregates have no name of their
    own): the first three and how many more, the uuid on hover, a link to
    the providers list filtered by it. ``members``: uuid -> [names]."""
    names = (members or {}).get(aggregate_uuid) or []
    shown = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
    return format_html('<a class="aggregate" href="{href}?aggregate={u}" title="aggregate {u}">'
                       '{text}</a>', href=reverse("console:providers"), u=aggregate_uuid,
                       text=shown or f"empty aggregate {aggregate_uuid[:8]}")


@register.simple_tag
def aggregate_text(aggregate_uuid, members):
    """An aggregate as plain text for a picker: its first three members'
    names, how many more, and the start of its uuid."""
    names = (members or {}).get(aggregate_uuid) or []
    if not names:
        return aggregate_uuid
    more = f" +{len(names) - 3}" if len(names) > 3 else ""
    return f"{', '.join(names[:3])}{more} ({aggregate_uuid[:8]})"


@register.filter
def fold(removed):
    """Removed providers (or trees) grouped by their reason, in the order
    each reason first appears: [(first, [all with that reason])]."""
    groups = {}
    for item in removed:
        groups.setdefault(item.reason, []).append(item)
    return [(items[0], items) for items in groups.values()]


@register.filter
def unlisted(step):
    """How many a step removed beyond those it names."""
    return step.removed_count - len(step.removed)


@register.simple_tag
def host_options(hosts, picked):
    """The drain picker's <option>s, one per host (uuid, name), built in
    Python: the template loop over 1,430 hosts was a third of the page."""
    return mark_safe("".join(
        f'<option value="{conditional_escape(uuid)}"{" selected" if uuid in picked or name in picked else ""}>'
        f"{conditional_escape(name)}</option>" for uuid, name in hosts))


@register.simple_tag
def aggregate_options(aggregates, chosen, members):
    """A picker's <option> per aggregate (:func:`aggregate_text`), ``chosen``
    selected."""
    return mark_safe("".join(
        f'<option value="{conditional_escape(agg)}"{" selected" if agg == chosen else ""}>'
        f"{conditional_escape(aggregate_text(agg, members))}</option>" for agg in aggregates))

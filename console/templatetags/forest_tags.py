"""The forest page's provider rows, built in Python: the same markup the
template loop made, at a fraction of its cost (400 rows of tags, amounts
and links were most of the page's time at 3,000 providers)."""
from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from console.templatetags.console_tags import amount, provider_href

register = template.Library()


@register.simple_tag(takes_context=True)
def forest_row(context, node, few):
    """One provider of a tree: name (indented by depth, a link to its page),
    inventory used/capacity per class, consumers, traits by name (``few``,
    then "+N more")."""
    href = provider_href(context, node.uuid)
    depth = node.depth
    name = format_html('{}{}<a href="{}">{}</a>', mark_safe("&nbsp;&nbsp;" * depth),
                       mark_safe("└ ") if depth else "", href, node.name)
    if node.inventories:
        inventory = format_html_join("", '<span class="tag">{} {}/{}</span>', (
            (rc, amount(inv.get("used"), rc), amount(inv.get("capacity"), rc))
            for rc, inv in node.inventories.items()))
    else:
        inventory = mark_safe('<span class="muted">none</span>')
    return format_html(
        '<tr class="depth-{depth}"><td style="padding-left: {depth}.6em">{name}</td>\n'
        "  <td>{inventory}</td>\n"
        '  <td class="num">{consumers}</td>\n'
        '  <td class="traits" title="{title}">{disabled}{traits}</td></tr>',
        depth=depth, name=name, inventory=inventory, consumers=node.consumers,
        title=", ".join(node.traits), disabled=_disabled(node), traits=_traits(node.traits, few))


def _disabled(node):
    if not node.disabled:
        return ""
    where = " on its root" if node.depth else ""
    return format_html('<span class="tag disabled" title="COMPUTE_STATUS_DISABLED{}">disabled</span> ',
                       where)


def _traits(traits, few):
    if not traits:
        return mark_safe('<span class="muted">none</span>')
    shown = format_html_join("", '<span class="tag trait">{}</span>', ((t,) for t in traits[:few]))
    rest = traits[few:]
    if not rest:
        return shown
    return format_html(
        '{}<details class="more-traits"><summary>+{} more</summary>{}</details>', shown, len(rest),
        format_html_join("", '<span class="tag trait">{}</span>', ((t,) for t in rest)))

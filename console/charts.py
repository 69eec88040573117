"""Server-rendered SVG line charts of usage snapshots (no JavaScript, no CDN).

A chart spans the page's width (a viewBox scaled to 100 %), its value axis
in the class's unit (GiB, Gbit/s, ...) with a gridline per round step, and
every sample carries its values on hover (an SVG ``<title>``).
"""
import math

from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from placement_core.units import human_amount, unit_of

WIDTH, HEIGHT = 960, 240
LEFT, RIGHT, TOP, BOTTOM = 72, 16, 28, 30
GRIDLINES = 4  # about this many steps up the value axis


def nice_step(top: float, steps: int = GRIDLINES) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) that cuts ``top``
    into about ``steps`` parts."""
    if top <= 0:
        return 1.0
    raw = top / steps
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}".rstrip("0").rstrip(".")


def usage_chart(resource_class, samples):
    """One chart: capacity (dashed) and used over time; ``samples`` = [(time, capacity, used)]."""
    times = [s[0] for s in samples]
    size, unit = unit_of(resource_class, max([s[1] for s in samples] + [s[2] for s in samples]))
    peak = max([s[1] for s in samples] + [s[2] for s in samples] + [1]) / size
    step = nice_step(peak)
    top = step * math.ceil(peak / step)
    t0, t1 = times[0], times[-1]
    span = (t1 - t0).total_seconds()
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t):
        return LEFT + inner_w * ((t - t0).total_seconds() / span if span else 1.0)

    def y(value):
        return TOP + inner_h * (1 - (value / size) / top)

    label = escape(resource_class)
    last = samples[-1]
    now = f"used {human_amount(last[2], resource_class)} of {human_amount(last[1], resource_class)}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" preserveAspectRatio="xMidYMid meet" '
        f'aria-label="{label}: {escape(now)}">',
        f'<title>{label}</title>',
        f'<text x="{LEFT}" y="{TOP - 10}" font-size="13" font-weight="600">{label}: '
        f'{escape(now)}</text>',
    ]
    tick = 0.0
    while tick <= top + step / 1000:
        ty = TOP + inner_h * (1 - tick / top)
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" '
                     f'y2="{ty:.1f}" stroke="#e3e8ee"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{ty + 4:.1f}" font-size="11" text-anchor="end">'
                     f'{_fmt(tick)} {escape(unit)}</text>')
        tick += step
    parts += [
        f'<line x1="{LEFT}" y1="{TOP + inner_h}" x2="{WIDTH - RIGHT}" y2="{TOP + inner_h}" '
        f'stroke="#999"/>',
        f'<text x="{LEFT}" y="{HEIGHT - 8}" font-size="11">{t0:%Y-%m-%d %H:%M}</text>',
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">'
        f'{t1:%Y-%m-%d %H:%M} UTC</text>',
    ]
    for index, css, extra in ((1, "capacity", 'stroke="#888" stroke-dasharray="5 4"'),
                              (2, "used", 'stroke="#1f6feb" stroke-width="2"')):
        points = " ".join(f"{x(s[0]):.1f},{y(s[index]):.1f}" for s in samples)
        parts.append(f'<polyline class="{css}" fill="none" {extra} points="{points}"/>')
    # Hover: one target per sample, over the used line, with both values.
    for t, capacity, used in samples:
        parts.append(
            f'<circle class="sample" cx="{x(t):.1f}" cy="{y(used):.1f}" r="5">'
            f'<title>{t:%Y-%m-%d %H:%M} UTC: used {escape(human_amount(used, resource_class))} '
            f'of {escape(human_amount(capacity, resource_class))}'
            f'{f" ({used / capacity:.1%})" if capacity else ""}</title></circle>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def trend_bars(counts, width=180, height=24):
    """A small bar chart of counts per period, oldest first (failures' trend)."""
    if not counts:
        return ""
    top = max(max(counts), 1)
    step = width / len(counts)
    bars = "".join(
        format_html('<rect x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>',
                    f"{i * step:.1f}", f"{height - height * n / top:.1f}",
                    f"{max(step - 1, 0.5):.1f}", f"{height * n / top:.1f}", n)
        for i, n in enumerate(counts))
    return format_html('<svg class="trend" role="img" aria-label="{}" width="{}" height="{}" '
                       'viewBox="0 0 {} {}">{}</svg>',
                       " ".join(str(n) for n in counts), width, height, width, height,
                       mark_safe(bars))

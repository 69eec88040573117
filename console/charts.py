"""Server-rendered SVG line charts of usage snapshots (no JavaScript, no CDN).

A chart spans the page's width (a viewBox scaled to 100 %), its value axis
in the class's unit (GiB, Gbit/s, ...) with a gridline per round step, and
every sample carries its values on hover (an SVG ``<title>``).

The value axis spans the used amounts, not 0 to capacity: at 5-15 % of
capacity a line drawn from 0 is flat at the bottom and hides its trend.
Capacity is drawn as the reference line when it lies within the used
amounts' span again above them (near enough to read against), else named
in a label at the top. The time axis has a label a day (every few days
over long periods, every few hours under two days).
"""
import math
from datetime import timedelta

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


def value_range(low: float, high: float) -> tuple[float, float, float]:
    """(bottom, top, step): round gridlines around the values ``low`` to
    ``high``, about GRIDLINES steps apart."""
    span = high - low
    if span <= 0:  # a flat line: in the middle of a band a fifth of it wide
        span = abs(high) / 5 or 1.0
        low, high = max(0.0, low - span / 2), high + span / 2
    step = nice_step(high - low)
    bottom = max(0.0, step * math.floor(low / step))
    top = step * math.ceil(high / step)
    if top <= bottom:
        top = bottom + step
    return bottom, top, step


def time_ticks(t0, t1) -> list:
    """[(moment, label)] along the time axis: each UTC midnight ("Nov 27"),
    every few days past two weeks; under two days, every few hours."""
    span = (t1 - t0).total_seconds()
    if span >= 2 * 86400:
        stride = max(1, math.ceil(span / 86400 / 14))
        day = t0.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
        out = []
        while day <= t1:
            out.append((day, f"{day:%b %d}"))
            day += timedelta(days=stride)
        return out
    hours = next((h for h in (1, 2, 3, 6, 12) if span / 3600 / h <= 12), 24)
    tick = t0.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    tick += timedelta(hours=-tick.hour % hours)
    out = []
    while tick <= t1:
        out.append((tick, f"{tick:%b %d}" if tick.hour == 0 else f"{tick:%H:%M}"))
        tick += timedelta(hours=hours)
    return out


def usage_chart(resource_class, samples):
    """One chart: used over time on an axis scaled to it, capacity (dashed)
    as the reference; ``samples`` = [(time, capacity, used)]."""
    times = [s[0] for s in samples]
    used_low, used_high = min(s[2] for s in samples), max(s[2] for s in samples)
    cap_high = max(s[1] for s in samples)
    # Capacity joins the axis when no further above the used amounts than they span.
    with_capacity = cap_high <= used_high + max(used_high - used_low, used_high * 0.1)
    high = max(used_high, cap_high) if with_capacity else used_high
    size, unit = unit_of(resource_class, high)
    bottom, top, step = value_range(used_low / size, max(high / size, used_low / size))
    t0, t1 = times[0], times[-1]
    span = (t1 - t0).total_seconds()
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t):
        return LEFT + inner_w * ((t - t0).total_seconds() / span if span else 1.0)

    def y(value):
        fraction = (value / size - bottom) / (top - bottom)
        return TOP + inner_h * (1 - min(max(fraction, 0.0), 1.0))

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
    if not with_capacity:
        parts.append(f'<text class="offscale" x="{WIDTH - RIGHT}" y="{TOP - 10}" font-size="11" '
                     f'text-anchor="end" fill="#666">capacity '
                     f'{escape(human_amount(cap_high, resource_class))} (above the scale)</text>')
    for i in range(round((top - bottom) / step) + 1):
        tick = bottom + i * step
        ty = y(tick * size)
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" '
                     f'y2="{ty:.1f}" stroke="#e3e8ee"/>')
        parts.append(f'<text class="ylabel" x="{LEFT - 6}" y="{ty + 4:.1f}" font-size="11" '
                     f'text-anchor="end">{escape(f"{_fmt(tick)} {unit}".strip())}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP + inner_h}" x2="{WIDTH - RIGHT}" '
                 f'y2="{TOP + inner_h}" stroke="#999"/>')
    for moment, text in time_ticks(t0, t1):
        tx = x(moment)
        parts.append(f'<line class="xtick" x1="{tx:.1f}" y1="{TOP + inner_h}" x2="{tx:.1f}" '
                     f'y2="{TOP + inner_h + 4}" stroke="#999"/>')
        parts.append(f'<text class="xlabel" x="{tx:.1f}" y="{HEIGHT - 12}" font-size="11" '
                     f'text-anchor="middle">{escape(text)}</text>')
    parts.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 1}" font-size="10" text-anchor="end" '
                 f'fill="#666">UTC</text>')
    lines = [(2, "used", 'stroke="#1f6feb" stroke-width="2"')]
    if with_capacity:
        lines.insert(0, (1, "capacity", 'stroke="#888" stroke-dasharray="5 4"'))
    for index, css, extra in lines:
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

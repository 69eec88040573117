"""Server-rendered SVG line charts of usage snapshots (no JavaScript, no CDN)."""
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

WIDTH, HEIGHT, PAD = 640, 180, 36


def _points(values, times, t0, span, top):
    points = []
    for t, v in zip(times, values):
        x = PAD + (WIDTH - 2 * PAD) * ((t - t0).total_seconds() / span if span else 1.0)
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v / top if top else 0)
        points.append(f"{x:.1f},{y:.1f}")
    return " ".join(points)


def usage_chart(resource_class, samples):
    """One chart: capacity (dashed) and used over time; ``samples`` = [(time, capacity, used)]."""
    times = [s[0] for s in samples]
    capacity = [s[1] for s in samples]
    used = [s[2] for s in samples]
    top = max(capacity + used + [1])
    t0, t1 = times[0], times[-1]
    span = (t1 - t0).total_seconds()
    label = escape(resource_class)
    last = samples[-1]
    return mark_safe(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'aria-label="{label}: used {last[2]} of {last[1]}">'
        f'<title>{label}</title>'
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        f'stroke="#999"/>'
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>'
        f'<text x="{PAD}" y="{PAD - 8}" font-size="12">{label}: used {last[2]} of '
        f'{last[1]}</text>'
        f'<text x="2" y="{PAD + 4}" font-size="10">{top}</text>'
        f'<text x="{PAD}" y="{HEIGHT - PAD + 14}" font-size="10">'
        f'{t0:%Y-%m-%d %H:%M}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - PAD + 14}" font-size="10" text-anchor="end">'
        f'{t1:%Y-%m-%d %H:%M}</text>'
        f'<polyline class="capacity" fill="none" stroke="#888" stroke-dasharray="4 3" '
        f'points="{_points(capacity, times, t0, span, top)}"/>'
        f'<polyline class="used" fill="none" stroke="#1f6feb" stroke-width="2" '
        f'points="{_points(used, times, t0, span, top)}"/>'
        f'</svg>'
    )


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

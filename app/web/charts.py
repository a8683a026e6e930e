"""Charts as server-rendered SVG (no charting JavaScript): a damage distribution.

Bars are P(Damage = N | hit); the line is P(Damage >= N | hit). The tail beyond 99.9% of
the mass is left out (the chart says so) so a long Bonus-dice tail keeps the bars readable.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from app.rules.memo import bounded_cache

WIDTH, HEIGHT = 480, 180
PAD_LEFT, PAD_BOTTOM, PAD_TOP, PAD_RIGHT = 34, 26, 10, 36
MAX_BARS = 60
TAIL = 0.999


def _shown(distribution: Sequence[tuple[int, float]]) -> tuple[list[tuple[int, float]], float]:
    shown: list[tuple[int, float]] = []
    total = 0.0
    for value, p in distribution:
        if total >= TAIL or len(shown) >= MAX_BARS:
            break
        shown.append((value, p))
        total += p
    return shown, max(0.0, 1.0 - total)


CHART_MODES = {"exact": "exactly N", "at_least": "at least N", "at_most": "at most N"}
"""What the bars of a damage chart show (the ``chart`` query parameter): P(= N), P(>= N) or
P(<= N)."""


def chart_mode(text: str) -> tuple[str, str | None]:
    """The chart mode a query names (empty: exact), else exact and the reason."""
    if not text:
        return "exact", None
    if text not in CHART_MODES:
        return "exact", f"must be one of {', '.join(CHART_MODES)}"
    return text, None


def cumulative(distribution: Sequence[tuple[int, float]], mode: str) -> list[tuple[int, float]]:
    """The distribution as ``mode`` shows it: P(= N), P(>= N) or P(<= N) for each N.

    >>> cumulative([(0, 0.5), (1, 0.25), (2, 0.25)], "at_least")
    [(0, 1.0), (1, 0.5), (2, 0.25)]
    >>> cumulative([(0, 0.5), (1, 0.25), (2, 0.25)], "at_most")
    [(0, 0.5), (1, 0.75), (2, 1.0)]
    """
    if mode == "exact":
        return list(distribution)
    out: list[tuple[int, float]] = []
    total = 0.0
    if mode == "at_most":
        for value, p in distribution:
            total += p
            out.append((value, min(1.0, total)))
        return out
    for value, p in reversed(distribution):
        total += p
        out.append((value, min(1.0, total)))
    return out[::-1]


def damage_chart(
    distribution: Sequence[tuple[int, float]],
    *,
    armour_hint: str = "",
    label: str = "Damage",
    mode: str = "exact",
) -> Markup:
    """An SVG bar chart of a damage distribution with its "at least N" line.

    >>> svg = damage_chart([(0, 0.5), (1, 0.25), (2, 0.25)])
    >>> svg.count("<rect class=\\"bar\\""), "P(Damage ≥ N)" in svg
    (3, True)
    """
    # The engine's distribution is a tuple of pairs already (the key costs no copy); a battle's
    # stored odds come back from JSON as lists.
    if not isinstance(distribution, tuple) or (distribution and type(distribution[0]) is not tuple):
        distribution = tuple((v, p) for v, p in distribution)
    if len(distribution) > MAX_KEPT_VALUES:  # (a key that long is not worth its memory)
        return _drawn.__wrapped__(distribution, armour_hint, label, mode)
    return _drawn(distribution, armour_hint, label, mode)


# A chart is drawn from its numbers alone, and the same attacks' charts are asked for again
# (the calculator re-asks as its inputs change and change back): each is drawn once. The keys
# (a distribution of at most MAX_KEPT_VALUES pairs, 20 kB) and the drawings (8 MB) are bounded.
MAX_KEPT_VALUES = 250


@bounded_cache(512, max_bytes=8 << 20, size=lambda svg: 64 + len(svg))
def _drawn(
    distribution: tuple[tuple[int, float], ...], armour_hint: str, label: str, mode: str
) -> Markup:
    shown, left_out = _shown(distribution)
    if not shown:
        return Markup('<p class="meta">No damage is rolled for this attack.</p>')
    if mode != "exact":
        return _cumulative_chart(distribution, shown, mode, armour_hint, label, left_out)
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / len(shown)
    tallest = max(p for _, p in shown)
    scale = 1.0 if tallest > 0.5 else 0.5 if tallest > 0.25 else 0.25
    parts: list[str] = []
    title = f"{label} given a hit: bars P({label} = N), line P({label} ≥ N)"
    parts.append(
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(title)}</title>"
    )
    # axes and gridlines at 0, half and full scale
    for frac in (0.0, 0.5, 1.0):
        y = PAD_TOP + plot_h * (1 - frac)
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" y1="{y:.1f}" '
            f'x2="{WIDTH - PAD_RIGHT}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{PAD_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">'
            f"{frac * scale:.0%}</text>"
            f'<text class="tick line-tick" x="{WIDTH - PAD_RIGHT + 4}" y="{y + 4:.1f}">'
            f"{frac:.0%}</text>"
        )
    every = max(1, len(shown) // 12)
    for i, (value, p) in enumerate(shown):
        h = plot_h * min(1.0, p / scale)
        x = PAD_LEFT + i * step
        parts.append(
            f'<rect class="bar" x="{x + step * 0.12:.1f}" y="{PAD_TOP + plot_h - h:.1f}" '
            f'width="{step * 0.76:.1f}" height="{h:.1f}" data-value="{value}" data-p="{p:.6f}">'
            f"<title>{label} {value}: {p:.2%}</title></rect>"
        )
        if i % every == 0:
            parts.append(
                f'<text class="tick" x="{x + step / 2:.1f}" y="{HEIGHT - 8}" '
                f'text-anchor="middle">{value}</text>'
            )
    # P(>= N): a step line on the full 0..100% scale of its own (right-hand meaning in the legend)
    points = []
    remaining = 1.0
    for i, (_, p) in enumerate(shown):
        y = PAD_TOP + plot_h * (1 - max(0.0, remaining))
        points.append(f"{PAD_LEFT + i * step:.1f},{y:.1f} {PAD_LEFT + (i + 1) * step:.1f},{y:.1f}")
        remaining -= p
    parts.append(f'<polyline class="at-least" points="{" ".join(points)}"/>')
    parts.append("</svg>")
    legend = (
        f'<p class="chart-legend meta"><span class="key bar"></span> P({label} = N) '
        f"(left scale, 0–{scale:.0%}) · "
        f'<span class="key at-least"></span> P({label} ≥ N) (right scale, 0–100%)'
    )
    if armour_hint:
        legend += f" · against {escape(armour_hint)}"
    if left_out > 0:
        legend += f" · {left_out:.2%} beyond {shown[-1][0]} not drawn"
    legend += "</p>"
    return Markup("".join(parts) + legend)  # noqa: S704  (numbers and escaped text only)


def _cumulative_chart(
    distribution: Sequence[tuple[int, float]],
    shown: list[tuple[int, float]],
    mode: str,
    armour_hint: str,
    label: str,
    left_out: float,
) -> Markup:
    """Bars of P(>= N) or P(<= N) on a 0-100% scale (the values drawn as the exact chart's)."""
    values = cumulative(distribution, mode)[: len(shown)]
    sign = "≥" if mode == "at_least" else "≤"
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / len(values)
    title = f"{label} given a hit: bars P({label} {sign} N)"
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet" data-mode="{mode}">'
        f"<title>{escape(title)}</title>"
    ]
    for frac in (0.0, 0.5, 1.0):
        y = PAD_TOP + plot_h * (1 - frac)
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" y1="{y:.1f}" '
            f'x2="{WIDTH - PAD_RIGHT}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{PAD_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">'
            f"{frac:.0%}</text>"
        )
    every = max(1, len(values) // 12)
    for i, (value, p) in enumerate(values):
        h = plot_h * min(1.0, p)
        x = PAD_LEFT + i * step
        parts.append(
            f'<rect class="bar" x="{x + step * 0.12:.1f}" y="{PAD_TOP + plot_h - h:.1f}" '
            f'width="{step * 0.76:.1f}" height="{h:.1f}" data-value="{value}" data-p="{p:.6f}">'
            f"<title>{label} {sign} {value}: {p:.2%}</title></rect>"
        )
        if i % every == 0:
            parts.append(
                f'<text class="tick" x="{x + step / 2:.1f}" y="{HEIGHT - 8}" '
                f'text-anchor="middle">{value}</text>'
            )
    parts.append("</svg>")
    legend = (
        f'<p class="chart-legend meta"><span class="key bar"></span> P({label} {sign} N) (0–100%)'
    )
    if armour_hint:
        legend += f" · against {escape(armour_hint)}"
    if left_out > 0:
        legend += f" · {left_out:.2%} beyond {shown[-1][0]} not drawn"
    legend += "</p>"
    return Markup("".join(parts) + legend)  # noqa: S704  (numbers and escaped text only)

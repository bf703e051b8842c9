"""Altair charts for the Train, Step through and Vocabulary pages.

Each function takes a DataFrame from ``ui.training`` / ``ui.stepper`` and returns
an ``alt.Chart``; the page puts it on screen with ``st.altair_chart``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

ACCENT = "#7c3aed"  # the theme's primary colour
NEXT = "#f97316"  # the pair merged next (same orange as the span highlight)
MUTED = "#a5b4fc"


def merge_counts(df: pd.DataFrame, *, height: int = 260) -> alt.Chart:
    """Count of the merged pair against the step (``step, count, token``)."""
    data = df.dropna(subset=["count"])
    base = alt.Chart(data).encode(
        x=alt.X("step:Q", title="merge step", scale=alt.Scale(domainMin=1, nice=False)),
        y=alt.Y("count:Q", title="count of the merged pair", scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip("step:Q", title="step"), alt.Tooltip("token:N", title="new token"), alt.Tooltip("count:Q", format=",")],
    )
    mark = base.mark_bar(color=ACCENT, opacity=0.85) if len(data) <= 120 else base.mark_line(color=ACCENT, interpolate="step-after")
    return mark.properties(height=height, title="How often the merged pair occurred, step by step")


def _cursor_layers(df: pd.DataFrame, x: str, y: str) -> list[alt.Chart]:
    """A rule at the ``cursor`` param and a point on the curve at the ``cursor_row`` param.

    The cursor is a Vega-Lite parameter, so moving it only changes two numbers in the
    spec (``at_cursor``): the chart is built and validated once per curve.
    """
    rule = (
        alt.Chart(pd.DataFrame({"_": [0]}))
        .transform_calculate(**{x: "cursor"})
        .mark_rule(color=NEXT, strokeWidth=2)
        .encode(x=f"{x}:Q")
    )
    point = alt.Chart(df).transform_filter(f"datum['{x}'] == cursor_row").mark_point(color=NEXT, filled=True, size=90).encode(
        x=f"{x}:Q", y=f"{y}:Q"
    )
    return [rule, point]


CURSOR_PARAMS = (alt.param(name="cursor", value=0), alt.param(name="cursor_row", value=0))


def compression(df: pd.DataFrame, *, vocab_size: int | None = None, cursor: bool = False, height: int = 260, title: str | None = None) -> alt.Chart:
    """Bytes per token on the training text against the number of merges.

    ``vocab_size`` draws a dashed rule at ``vocab_size - 256`` merges (the chosen
    size); ``cursor=True`` adds a movable cursor (set it with ``at_cursor``).
    """
    top = max(int(df["merges"].max()), (vocab_size or 0) - 256)
    line = (
        alt.Chart(df)
        .mark_line(color=ACCENT, strokeWidth=2)
        .encode(
            x=alt.X("merges:Q", title="number of merges", scale=alt.Scale(nice=False, domain=[0, max(1, top)])),
            y=alt.Y("bytes per token:Q", title="bytes per token", scale=alt.Scale(zero=False)),
            tooltip=[
                alt.Tooltip("merges:Q", format=","),
                alt.Tooltip("vocab size:Q", format=","),
                alt.Tooltip("tokens:Q", format=","),
                alt.Tooltip("bytes per token:Q", format=".3f"),
            ],
        )
    )
    layers = [line]
    if vocab_size is not None:
        low = float(df["bytes per token"].min())
        target = pd.DataFrame({"merges": [vocab_size - 256], "label": [f"vocab size {vocab_size:,}"], "bytes per token": [low]})
        rule = alt.Chart(target).mark_rule(color=NEXT, strokeDash=[6, 4], strokeWidth=2).encode(x="merges:Q")
        text = (
            alt.Chart(target)
            .mark_text(align="right", baseline="bottom", dx=-6, dy=-4, color=NEXT, fontWeight="bold")
            .encode(x="merges:Q", y="bytes per token:Q", text="label:N")  # bottom right: the curve is high there
        )
        layers += [rule, text]
    chart = alt.layer(*layers, *(_cursor_layers(df, "merges", "bytes per token") if cursor else []))
    if cursor:
        chart = chart.add_params(*CURSOR_PARAMS)
    return chart.properties(height=height, title=title or "Compression on the training text")


def top_pairs(df: pd.DataFrame) -> dict:
    """Horizontal bars of the top pairs at a step (``pair, count, next``); the next merge in orange.

    A plain Vega-Lite dict (for ``st.vega_lite_chart``): it changes at every step,
    and skipping Altair's validation keeps a step fast.
    """
    values = [{"pair": p, "count": int(c), "next": bool(n)} for p, c, n in zip(df["pair"], df["count"], df["next"])]
    return {
        "data": {"values": values},
        "mark": {"type": "bar"},
        "height": {"step": 24},  # one fixed-height band per pair: every label fits
        "title": "Most frequent pairs now",
        "encoding": {
            "y": {"field": "pair", "type": "nominal", "sort": [v["pair"] for v in values], "title": None,
                  "axis": {"labelLimit": 220, "labelFont": "monospace"}},
            "x": {"field": "count", "type": "quantitative", "title": "count"},
            "color": {"condition": {"test": "datum.next", "value": NEXT}, "value": MUTED},
            "tooltip": [{"field": "pair", "type": "nominal"}, {"field": "count", "type": "quantitative", "format": ","}],
        },
    }


def sequence_length(df: pd.DataFrame, *, x: str = "merges", title: str = "Tokens in the text", height: int = 220) -> alt.Chart:
    """Sequence length against merges (or encode steps), with a movable cursor (``at_cursor``)."""
    line = (
        alt.Chart(df)
        .mark_line(color=ACCENT, interpolate="step-after")
        .encode(
            x=alt.X(f"{x}:Q", title=x, scale=alt.Scale(nice=False)),
            y=alt.Y("tokens:Q", title="tokens", scale=alt.Scale(zero=False)),
            tooltip=[alt.Tooltip(f"{x}:Q"), alt.Tooltip("tokens:Q", format=",")],
        )
    )
    return alt.layer(line, *_cursor_layers(df, x, "tokens")).add_params(*CURSOR_PARAMS).properties(height=height, title=title)


def spec(chart: alt.Chart) -> dict:
    """The chart's Vega-Lite dict, built and validated once (cache it)."""
    return chart.to_dict()


def at_cursor(spec_dict: dict, df: pd.DataFrame, cursor: int, x: str = "merges") -> dict:
    """A copy of ``spec_dict`` with its cursor at ``cursor`` (the point at the nearest row of ``df``)."""
    xs = df[x]
    row = int(xs.iloc[int((xs - cursor).abs().argmin())])
    out = dict(spec_dict)
    out["params"] = [{"name": "cursor", "value": int(cursor)}, {"name": "cursor_row", "value": row}]
    return out


def length_histogram(df: pd.DataFrame, *, height: int = 220) -> alt.Chart:
    """Tokens per byte length (``bytes, tokens``) for the Vocabulary page."""
    return (
        alt.Chart(df)
        .mark_bar(color=ACCENT)
        .encode(
            x=alt.X("bytes:O", title="token length in bytes"),
            y=alt.Y("tokens:Q", title="tokens"),
            tooltip=[alt.Tooltip("bytes:O"), alt.Tooltip("tokens:Q", format=",")],
        )
        .properties(height=height, title="How long the tokens are")
    )

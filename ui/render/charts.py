"""Every chart of the app, as a Vega-Lite spec (a plain dict), one section per page.

Each function takes a DataFrame built by a page's model and returns the spec; the
page puts it on screen with ``st.vega_lite_chart(spec)``. Most are written with
Altair and turned into a dict with ``to_dict()``, which validates the chart: that
takes about a tenth of a second, so the pages cache the specs (``ui.common.cache``).
A chart that changes at every step (``top_pairs``) is written as a dict directly,
and the movable cursor of the training curves is a Vega-Lite parameter that
``at_cursor`` sets without building the chart again.

>>> import pandas as pd
>>> spec = length_histogram(pd.DataFrame({"bytes": [1, 2], "tokens": [256, 40]}))
>>> spec["mark"]["type"], spec["encoding"]["x"]["field"]
('bar', 'bytes')
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

ACCENT = "#7c3aed"  # the theme's primary colour
NEXT = "#f97316"  # the pair merged next (the span highlight's orange)
MUTED = "#a5b4fc"


# ----------------------------------------------------------------------------- Compare

#: The statistics drawn as small bar charts, with what "better" means for each.
STAT_METRICS = {
    "tokens": "fewer tokens: shorter sequences",
    "chars/token": "more characters per token: better compression",
    "bytes/token": "more bytes per token: better compression",
    "unique tokens": "how much of the vocabulary the text uses",
    "whole words %": "share of tokens that are whole words",
}


def _colors(labels: Sequence[str]) -> alt.Scale:
    # the same tokenizer keeps its colour on every chart of the page
    return alt.Scale(domain=list(labels), scheme="tableau10")


def compare_stats(stats: pd.DataFrame) -> dict:
    """One small horizontal bar chart per statistic (``tokenizer`` plus the ``STAT_METRICS`` columns).

    A facet each, with its own x scale, tokenizers in the same order and colours. One
    faceted chart instead of five concatenated ones: Altair builds it in a fraction of
    the time.
    """
    labels = list(stats["tokenizer"])
    metrics = [m for m in STAT_METRICS if m in stats.columns]
    long = stats.melt(id_vars="tokenizer", value_vars=metrics, var_name="statistic", value_name="value")
    base = alt.Chart(long).encode(
        y=alt.Y("tokenizer:N", sort=labels, title=None, axis=alt.Axis(labelLimit=200, labelFontSize=12, ticks=False, domain=False)),
        x=alt.X("value:Q", title=None, axis=alt.Axis(labelFontSize=10, tickCount=3, format="~s", grid=False)),
        tooltip=["tokenizer", "statistic", alt.Tooltip("value:Q", format=",.3~f")],
    )
    bars = base.mark_bar(cornerRadiusEnd=3).encode(color=alt.Color("tokenizer:N", scale=_colors(labels), legend=None))
    text = base.mark_text(align="left", dx=3, fontSize=11).encode(text=alt.Text("value:Q", format=",.3~f"))
    return (
        (bars + text)
        .properties(width=120, height=26 * len(labels) + 6)
        .facet(column=alt.Column("statistic:N", sort=metrics, title=None, header=alt.Header(labelFontSize=13, labelFontWeight="bold")), spacing=34)
        .resolve_scale(x="independent")
        .configure_view(stroke=None)
        .to_dict()
    )


def compare_leaderboard(board: pd.DataFrame, metric: str) -> dict:
    """Grouped bars: one group per sample, one bar per tokenizer (long-form ``board``: sample, tokenizer, metric)."""
    labels = list(dict.fromkeys(board["tokenizer"]))
    samples = list(dict.fromkeys(board["sample"]))
    return (
        alt.Chart(board)
        .mark_bar(cornerRadiusEnd=2)
        .encode(
            x=alt.X("sample:N", sort=samples, title=None, axis=alt.Axis(labelAngle=0, labelLimit=130)),
            xOffset=alt.XOffset("tokenizer:N", sort=labels),
            y=alt.Y(f"{metric}:Q", title=metric),
            color=alt.Color("tokenizer:N", scale=_colors(labels), sort=labels, legend=alt.Legend(orient="top", title=None, labelLimit=260)),
            tooltip=["sample", "tokenizer", alt.Tooltip(f"{metric}:Q", format=",.2f"), "tokens"],
        )
        .properties(height=300)
        .to_dict()
    )


# ----------------------------------------------------------------------------- Train and Step through: merge curves


def merge_counts(df: pd.DataFrame, *, height: int = 260) -> dict:
    """Count of the merged pair against the step (``step, count, token``; Train)."""
    data = df.dropna(subset=["count"])
    base = alt.Chart(data).encode(
        x=alt.X("step:Q", title="merge step", scale=alt.Scale(domainMin=1, nice=False)),
        y=alt.Y("count:Q", title="count of the merged pair", scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip("step:Q", title="step"), alt.Tooltip("token:N", title="new token"), alt.Tooltip("count:Q", format=",")],
    )
    mark = base.mark_bar(color=ACCENT, opacity=0.85) if len(data) <= 120 else base.mark_line(color=ACCENT, interpolate="step-after")
    return mark.properties(height=height, title="How often the merged pair occurred, step by step").to_dict()


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


def _cursor_params() -> tuple[alt.Parameter, alt.Parameter]:
    return alt.param(name="cursor", value=0), alt.param(name="cursor_row", value=0)


def compression(df: pd.DataFrame, *, vocab_size: int | None = None, cursor: bool = False, height: int = 260, title: str | None = None) -> dict:
    """Bytes per token on the training text against the number of merges (``merges, vocab size, tokens, bytes per token``).

    ``vocab_size`` draws a dashed rule at ``vocab_size - 256`` merges (the chosen
    size, on Train); ``cursor=True`` adds a movable cursor (Step through; set it with
    ``at_cursor``).
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
        chart = chart.add_params(*_cursor_params())
    return chart.properties(height=height, title=title or "Compression on the training text").to_dict()


def sequence_length(df: pd.DataFrame, *, x: str = "merges", title: str = "Tokens in the text", height: int = 220) -> dict:
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
    return alt.layer(line, *_cursor_layers(df, x, "tokens")).add_params(*_cursor_params()).properties(height=height, title=title).to_dict()


def at_cursor(spec: dict, df: pd.DataFrame, cursor: int, x: str = "merges") -> dict:
    """A copy of ``spec`` with its cursor at ``cursor`` (the point at the nearest row of ``df``).

    >>> df = pd.DataFrame({"merges": [0, 10, 20], "tokens": [9, 7, 5]})
    >>> at_cursor({"mark": "line"}, df, 12)["params"]
    [{'name': 'cursor', 'value': 12}, {'name': 'cursor_row', 'value': 10}]
    """
    xs = df[x]
    row = int(xs.iloc[int((xs - cursor).abs().argmin())])
    out = dict(spec)
    out["params"] = [{"name": "cursor", "value": int(cursor)}, {"name": "cursor_row", "value": row}]
    return out


def top_pairs(df: pd.DataFrame) -> dict:
    """Horizontal bars of the top pairs at a step (``pair, count, next``); the next merge in orange.

    Written as a dict: it changes at every step, and skipping Altair's validation keeps
    a step fast.

    >>> spec = top_pairs(pd.DataFrame({"pair": ["a + b", "b + c"], "count": [5, 3], "next": [True, False]}))
    >>> [v["pair"] for v in spec["data"]["values"]], spec["encoding"]["color"]["condition"]["value"] == NEXT
    (['a + b', 'b + c'], True)
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


# ----------------------------------------------------------------------------- Vocabulary


def length_histogram(df: pd.DataFrame, *, height: int = 220) -> dict:
    """Tokens per byte length (``bytes, tokens``)."""
    return (
        alt.Chart(df)
        .mark_bar(color=ACCENT)
        .encode(
            x=alt.X("bytes:O", title="token length in bytes"),
            y=alt.Y("tokens:Q", title="tokens"),
            tooltip=[alt.Tooltip("bytes:O"), alt.Tooltip("tokens:Q", format=",")],
        )
        .properties(height=height, title="How long the tokens are")
        .to_dict()
    )

"""Altair charts for the Compare page. Pure: data frames in, chart objects out."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

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


def stats_chart(stats: pd.DataFrame) -> alt.FacetChart:
    """One small horizontal bar chart per statistic (a facet each, own x scale), tokenizers in
    the same order and colours. One faceted chart instead of five concatenated ones: Altair
    builds it in a fraction of the time, which keeps a rerun of the page fast."""
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
    )


def leaderboard_chart(board: pd.DataFrame, metric: str) -> alt.Chart:
    """Grouped bars: one group per sample, one bar per tokenizer (long-form ``board``)."""
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
    )

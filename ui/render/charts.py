"""Every chart of the app, as a Vega-Lite spec (a plain dict), one section per page.

Each function takes a DataFrame built by a page's model and returns the spec; the
page puts it on screen with ``st.vega_lite_chart(spec)``, which sends the data
(``data.values``, a DataFrame) as Arrow. The specs are written as dicts, not with
Altair, because building and validating an Altair chart costs a page open far more
than a dict (docs/performance.md). The tests validate every spec against Vega-Lite's JSON schema
(``tests/ui/render/test_charts.py``). The movable cursor of the training curves is
a Vega-Lite parameter that ``at_cursor`` sets without building the chart again.

>>> import pandas as pd
>>> spec = length_histogram(pd.DataFrame({"bytes": [1, 2], "tokens": [256, 40]}))
>>> spec["mark"]["type"], spec["encoding"]["x"]["field"]
('bar', 'bytes')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    import pyarrow as pa

ACCENT = "#7c3aed"  # the theme's primary colour
NEXT = "#f97316"  # the pair merged next (the span highlight's orange)
MUTED = "#a5b4fc"


# ----------------------------------------------------------------------------- building blocks


def _q(field: str, **extra) -> dict:
    return {"field": field, "type": "quantitative", **extra}


def _n(field: str, **extra) -> dict:
    return {"field": field, "type": "nominal", **extra}


def _color(labels: Sequence[str], **extra) -> dict:
    # the same tokenizer keeps its colour on every chart of the page; past ten, a scheme of twenty (ten would repeat)
    scheme = "tableau10" if len(labels) <= 10 else "tableau20"
    return _n("tokenizer", scale={"domain": list(labels), "scheme": scheme}, **extra)


#: The narrowest a chart of the page is drawn (px): Compare's main column at 1280 px with the sidebar open.
CHART_WIDTH = 820
#: Pixels per character of a 12 px label, on average (a generous guess, so labels fit).
CHAR_PX = 7


def _legend(labels: Sequence[str]) -> dict:
    """A legend below the chart that names every tokenizer in full: as many columns as the longest name allows.

    One row on top cut the names off after five or so ("Qwe…"), and Tekken, DeepSeek and a trained tokenizer
    could not be told apart.

    >>> _legend(["GPT-2 (r50k_base)", "Mistral Tekken (NeMo, Pixtral)", "DeepSeek V4"])["columns"]
    3
    """
    longest = max((len(str(x)) for x in labels), default=1)
    columns = max(1, min(len(labels), CHART_WIDTH // (longest * CHAR_PX + 40)))
    return {"orient": "bottom", "title": None, "columns": columns, "labelLimit": CHART_WIDTH // columns - 30}


def wrap_label(label: str, width: int) -> str:
    """``label`` cut into lines of at most ``width`` characters at spaces (a longer word stays whole), joined by
    newlines: Vega-Lite draws each on a line of its own (``labelExpr`` splits them).

    >>> wrap_label("Mistral Tekken (NeMo, Pixtral)", 13)
    'Mistral\\nTekken (NeMo,\\nPixtral)'
    """
    lines: list[str] = []
    for word in str(label).split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines) or str(label)


def _cursor_layers(x: str, y: str) -> list[dict]:
    """A rule at the ``cursor`` param and a point on the curve at the ``cursor_row`` param.

    The cursor is a Vega-Lite parameter, so moving it only changes two numbers in the
    spec (``at_cursor``): the chart itself is built once per curve.
    """
    rule = {
        "data": {"values": [{"_": 0}]},
        "transform": [{"calculate": "cursor", "as": x}],
        "mark": {"type": "rule", "color": NEXT, "strokeWidth": 2},
        "encoding": {"x": _q(x)},
    }
    point = {
        "transform": [{"filter": f"datum['{x}'] == cursor_row"}],
        "mark": {"type": "point", "color": NEXT, "filled": True, "size": 90},
        "encoding": {"x": _q(x), "y": _q(y)},
    }
    return [rule, point]


CURSOR_PARAMS = [{"name": "cursor", "value": 0}, {"name": "cursor_row", "value": 0}]


# ----------------------------------------------------------------------------- Compare

#: The statistics drawn as small bar charts, with what "better" means for each.
STAT_METRICS = {
    "tokens": "fewer tokens: shorter sequences",
    "chars/token": "more characters per token: better compression",
    "bytes/token": "more bytes per token: better compression",
    "unique tokens": "how much of the vocabulary the text uses",
    "whole words %": "share of tokens that are whole words",
}


#: The longest a tokenizer's name is drawn beside the statistics bars (px; a longer one ends in "…", its tooltip whole).
STAT_LABEL_PX = 320


def compare_stats(stats: pd.DataFrame) -> dict:
    """One small horizontal bar chart per statistic (``tokenizer`` plus the ``STAT_METRICS`` columns).

    A facet each, with its own x scale, tokenizers in the same order and colours.

    >>> spec = compare_stats(pd.DataFrame({"tokenizer": ["a", "b"], "tokens": [3, 4], "chars/token": [1.5, 2.0]}))
    >>> spec["facet"]["column"]["sort"], len(spec["data"]["values"])
    (['tokens', 'chars/token'], 4)
    """
    labels = list(stats["tokenizer"])
    metrics = [m for m in STAT_METRICS if m in stats.columns]
    # the facets share what the names leave of the page's width: the chart never runs past the column
    names = min(STAT_LABEL_PX, max((len(str(x)) for x in labels), default=1) * CHAR_PX)
    facet = max(60, min(120, (CHART_WIDTH - names - 40 * len(metrics)) // max(1, len(metrics))))
    long = stats.melt(id_vars="tokenizer", value_vars=metrics, var_name="statistic", value_name="value")
    encoding = {
        "y": _n(
            "tokenizer",
            sort=labels,
            title=None,
            axis={"labelLimit": STAT_LABEL_PX, "labelFontSize": 12, "ticks": False, "domain": False},
        ),
        "x": _q("value", title=None, axis={"labelFontSize": 10, "tickCount": 3, "format": "~s", "grid": False}),
        "tooltip": [_n("tokenizer"), _n("statistic"), _q("value", format=",.3~f")],
    }
    bars = {"mark": {"type": "bar", "cornerRadiusEnd": 3}, "encoding": {**encoding, "color": _color(labels, legend=None)}}
    text = {
        "mark": {"type": "text", "align": "left", "dx": 3, "fontSize": 11},
        "encoding": {**encoding, "text": _q("value", format=",.3~f")},
    }
    return {
        "data": {"values": long},
        "facet": {"column": _n("statistic", sort=metrics, title=None, header={"labelFontSize": 13, "labelFontWeight": "bold"})},
        "spec": {"layer": [bars, text], "width": facet, "height": 26 * len(labels) + 6},
        "resolve": {"scale": {"x": "independent"}},
        "spacing": 34,
        "config": {"view": {"stroke": None}},
    }


def compare_leaderboard(board: pd.DataFrame, metric: str) -> dict:
    """Grouped bars: one group per sample, one bar per tokenizer (long-form ``board``: sample, tokenizer, metric)."""
    labels = list(dict.fromkeys(board["tokenizer"]))
    samples = list(dict.fromkeys(board["sample"]))
    return {
        "data": {"values": board},
        "mark": {"type": "bar", "cornerRadiusEnd": 2},
        "encoding": {
            # "Chinese and Japanese" on two lines: one did not fit a group's width in presenter mode ("Chinese and Jap…")
            "x": _n(
                "sample",
                sort=samples,
                title=None,
                axis={"labelAngle": 0, "labelLimit": 130, "labelExpr": "split(replace(datum.label, ' and ', ' and\\n'), '\\n')"},
            ),
            "xOffset": _n("tokenizer", sort=labels),
            "y": _q(metric, title=metric),
            "color": _color(labels, sort=labels, legend=_legend(labels)),
            "tooltip": [_n("sample"), _n("tokenizer"), _q(metric, format=",.2f"), _q("tokens")],
        },
        "height": 300,
        "padding": {"left": 12, "top": 5, "right": 5, "bottom": 5},  # room for the y title at presenter mode's sizes
    }


# ----------------------------------------------------------------------------- Train and Step through: merge curves

#: The merge-count chart draws a bar per step up to this many steps, a line beyond.
BAR_STEPS = 120
#: A line of counts goes on a log scale when its largest count is at least this many times its smallest.
LOG_SPAN = 20


def merge_counts(df: pd.DataFrame, *, height: int = 260) -> dict:
    """Count of the merged pair against the step (``step, count, token``; Train).

    Up to ``BAR_STEPS`` steps: a bar per step on a linear scale from zero (bars on a
    log scale have no base to stand on, so a short run drew nothing). Longer runs: a
    line, on a log scale when the counts span more than ``LOG_SPAN`` times (the first
    merges are thousands of times more frequent than the last ones).

    >>> short = merge_counts(pd.DataFrame({"step": [1, 2, 3], "count": [500, 40, 3], "token": ["a", "b", "c"]}))
    >>> short["mark"]["type"], short["encoding"]["y"]["scale"]
    ('bar', {'zero': True})
    >>> steps = range(1, 1001)
    >>> long = merge_counts(pd.DataFrame({"step": steps, "count": [5000 // s + 1 for s in steps], "token": "x"}))
    >>> long["mark"]["type"], long["encoding"]["y"]["scale"]
    ('line', {'type': 'log'})
    """
    data = df.dropna(subset=["count"])[["step", "count", "token"]]
    bars = len(data) <= BAR_STEPS
    low, high = (int(data["count"].min()), int(data["count"].max())) if len(data) else (0, 0)
    log = not bars and low > 0 and high >= LOG_SPAN * low
    mark = (
        {"type": "bar", "color": ACCENT, "opacity": 0.85}
        if bars
        else {"type": "line", "color": ACCENT, "interpolate": "step-after"}
    )
    return {
        "data": {"values": data},
        "mark": mark,
        "encoding": {
            "x": _q("step", title="merge step", scale={"domainMin": 0.5 if bars else 1, "nice": False}),
            "y": _q(
                "count",
                title="count (log scale)" if log else "count of the merged pair",
                scale={"type": "log"} if log else {"zero": True},
            ),
            "tooltip": [_q("step", title="step"), _n("token", title="new token"), _q("count", format=",")],
        },
        "height": height,
        "title": "Pair counts, merge by merge",  # short: the chart is a third of the page wide
    }


def compression(
    df: pd.DataFrame, *, vocab_size: int | None = None, cursor: bool = False, height: int = 260, title: str | None = None
) -> dict:
    """Bytes per token on the training text against the number of merges (``merges, vocab size, tokens, bytes per token``).

    ``vocab_size`` draws a dashed rule at ``vocab_size - 256`` merges (the chosen
    size, on Train); ``cursor=True`` adds a movable cursor (Step through; set it with
    ``at_cursor``).
    """
    top = max(int(df["merges"].max()), (vocab_size or 0) - 256)
    line = {
        "mark": {"type": "line", "color": ACCENT, "strokeWidth": 2},
        "encoding": {
            "x": _q("merges", title="number of merges", scale={"nice": False, "domain": [0, max(1, top)]}),
            "y": _q("bytes per token", title="bytes per token", scale={"zero": False}),
            "tooltip": [
                _q("merges", format=","),
                _q("vocab size", format=","),
                _q("tokens", format=","),
                _q("bytes per token", format=".3f"),
            ],
        },
    }
    layers = [line]
    if vocab_size is not None:
        low = float(df["bytes per token"].min())
        target = {"values": [{"merges": vocab_size - 256, "label": f"vocab size {vocab_size:,}", "bytes per token": low}]}
        layers.append(
            {
                "data": target,
                "mark": {"type": "rule", "color": NEXT, "strokeDash": [6, 4], "strokeWidth": 2},
                "encoding": {"x": _q("merges")},
            }
        )
        layers.append(
            {  # bottom right: the curve is high there
                "data": target,
                "mark": {
                    "type": "text",
                    "align": "right",
                    "baseline": "bottom",
                    "dx": -6,
                    "dy": -4,
                    "color": NEXT,
                    "fontWeight": "bold",
                },
                "encoding": {"x": _q("merges"), "y": _q("bytes per token"), "text": _n("label")},
            }
        )
    if cursor:
        layers += _cursor_layers("merges", "bytes per token")
    spec = {
        "data": {"values": df[["merges", "vocab size", "tokens", "bytes per token"]]},
        "layer": layers,
        "height": height,
        "title": title or "Compression on the training text",
    }
    if cursor:
        spec["params"] = [dict(p) for p in CURSOR_PARAMS]
    return spec


def sequence_length(df: pd.DataFrame, *, x: str = "merges", title: str = "Tokens in the text", height: int = 220) -> dict:
    """Sequence length against merges (or encode steps), with a movable cursor (``at_cursor``).

    >>> spec = sequence_length(pd.DataFrame({"merges": [0, 1], "tokens": [9, 7]}))
    >>> [layer["mark"]["type"] for layer in spec["layer"]], spec["params"][0]
    (['line', 'rule', 'point'], {'name': 'cursor', 'value': 0})
    """
    line = {
        "mark": {"type": "line", "color": ACCENT, "interpolate": "step-after"},
        "encoding": {
            "x": _q(x, title=x, scale={"nice": False}),
            "y": _q("tokens", title="tokens", scale={"zero": False}),
            "tooltip": [_q(x), _q("tokens", format=",")],
        },
    }
    return {
        "data": {"values": df[[x, "tokens"]]},
        "layer": [line, *_cursor_layers(x, "tokens")],
        "params": [dict(p) for p in CURSOR_PARAMS],
        "height": height,
        "title": title,
    }


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
            "y": {
                "field": "pair",
                "type": "nominal",
                "sort": [v["pair"] for v in values],
                "title": None,
                "axis": {"labelLimit": 220, "labelFont": "monospace"},
            },
            "x": {"field": "count", "type": "quantitative", "title": "count"},
            "color": {"condition": {"test": "datum.next", "value": NEXT}, "value": MUTED},
            "tooltip": [{"field": "pair", "type": "nominal"}, {"field": "count", "type": "quantitative", "format": ","}],
        },
    }


# ----------------------------------------------------------------------------- Vocabulary


def length_histogram(df: pd.DataFrame, *, height: int = 220) -> dict:
    """Tokens per byte length (``bytes, tokens``)."""
    return {
        "data": {"values": df[["bytes", "tokens"]]},
        "mark": {"type": "bar", "color": ACCENT},
        "encoding": {
            "x": {"field": "bytes", "type": "ordinal", "title": "token length in bytes"},
            "y": _q("tokens", title="tokens"),
            "tooltip": [{"field": "bytes", "type": "ordinal"}, _q("tokens", format=",")],
        },
        "height": height,
        "title": "How long the tokens are",
    }


# ----------------------------------------------------------------------------- Compare: token tax


#: Height of one language's row in the token-tax grid (22 languages: about 530 px, one screen).
TAX_ROW = 24
#: Height of one line of a column's heading (a tokenizer's name, wrapped).
TAX_LINE = 15
#: What the token-tax grid's row names and colour legend take of its width (px): the rest is shared by the columns.
TAX_MARGINS = 170
#: The angle of column names too long for their column even wrapped (degrees): slanted, each stays whole.
SLANT = -40

#: Every name on a heatmap's axes is drawn: Streamlit's chart theme hides labels whose boxes touch (labelOverlap),
#: which dropped every other tokenizer's column, and pushes the end ones inwards (labelFlush).
ALL_LABELS = {"labelOverlap": False, "labelFlush": False, "labelBound": False}


def column_heads(labels: Sequence[str], column_px: float) -> tuple[dict[str, str], bool]:
    """Each label wrapped to fit a column ``column_px`` wide, and whether they all fit that way (if not, the caller
    slants them, unwrapped).

    >>> column_heads(["GPT-2 (r50k_base)", "Mistral Tekken (NeMo, Pixtral)"], 105)
    ({'GPT-2 (r50k_base)': 'GPT-2\\n(r50k_base)', 'Mistral Tekken (NeMo, Pixtral)': 'Mistral Tekken\\n(NeMo,\\nPixtral)'}, True)
    >>> column_heads(["GPT-4 (cl100k_base)"], 70)[1]
    False
    """
    width = max(4, int(column_px // CHAR_PX) - 1)
    heads = {label: wrap_label(label, width) for label in labels}
    fits = all(len(line) <= width for h in heads.values() for line in h.split("\n"))
    return (heads, True) if fits else ({label: str(label) for label in labels}, False)


def _positive(p) -> bool:
    return isinstance(p, (int, float)) and p > 0 and math.isfinite(p)


def token_tax(frame: pd.DataFrame, order: Sequence[str], reference: str, *, font: int = 12) -> dict:
    """The premium of each language under each tokenizer (long-form ``frame`` from ``ui.compare.token_tax.tax_frame``).

    A grid: one row per language (``order``), one column per tokenizer, headed by its full name (wrapped to the
    column's width); each cell is coloured by the premium (blue: fewer tokens than the reference, orange: more; a log
    scale, so 2× and ½× are as far from 1×) and says it ("1.81×"). It keeps one screen's height whatever the number
    of tokenizers; grouped bars, one per tokenizer and language, were 2,000 px of thin bars with eight. ``font``: the
    labels' size the heads are wrapped for (presenter mode's is larger, ``presented`` sets it).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"language": ["E", "G"], "script": "", "tokenizer": "A", "tokens": [2, 5], "premium": [1.0, 2.5]})
    >>> spec = token_tax(df, ["E", "G"], "E")
    >>> [layer["mark"]["type"] for layer in spec["layer"]], spec["height"]
    (['rect', 'text'], {'step': 24})
    """
    labels = list(dict.fromkeys(frame["tokenizer"]))
    heads, level = column_heads(labels, (CHART_WIDTH - TAX_MARGINS) / max(1, len(labels)) * 12 / font)
    line_px = round(TAX_LINE * font / 12)
    slant = SLANT
    if font > 12:  # larger heads slant less, as far as they still clear each other, so the grid keeps to one screen
        column = (CHART_WIDTH - TAX_MARGINS) / max(1, len(labels))
        slant = -round(max(15.0, min(-SLANT, math.degrees(math.asin(min(1.0, 1.2 * font / column))))))
    lines = max((h.count("\n") + 1 for h in heads.values()), default=1)
    heads = {label: "\n" * (lines - 1 - h.count("\n")) + h for label, h in heads.items()}  # all end on one line
    data = frame[["language", "script", "tokenizer", "tokens", "premium"]].copy()
    data["column"] = data["tokenizer"].map(heads)
    logs = [math.log(p) for p in data["premium"] if _positive(p)]
    # white text where the cell is dark: the far end of its side of 1× (the scale spreads each side to its own end)
    high, low = max([*logs, 0.0]) or 1.0, min([*logs, 0.0]) or -1.0
    data["dark"] = [_positive(p) and (math.log(p) > 0.55 * high or math.log(p) < 0.55 * low) for p in data["premium"]]
    data["label"] = [f"{p:.2f}×" if p == p and p is not None else "–" for p in data["premium"]]
    x = _n(
        "column",
        sort=[heads[label] for label in labels],
        title=None,
        # multi-line labels grow downwards from their first line: raised by the lines below it, they end above the grid
        axis={
            "orient": "top",
            "labelAngle": 0 if level else slant,
            **({} if level else {"labelAlign": "left", "labelBaseline": "middle"}),
            "labelExpr": "split(datum.label, '\\n')",
            "labelFontSize": 12,
            "labelLimit": 0,
            "labelPadding": 4 + (lines - 1) * line_px,
            "labelLineHeight": line_px,
            "ticks": False,
            "domain": False,
            **ALL_LABELS,
        },
    )
    y = _n(
        "language",
        sort=list(order),
        title=None,
        axis={"labelFontSize": 12, "labelLimit": 160, "ticks": False, "domain": False, **ALL_LABELS},
    )
    tooltip = [
        _n("language"),
        _n("script"),
        _n("tokenizer"),
        _q("tokens", format=","),
        _q("premium", format=".2f", title="× " + reference),
    ]
    cells = {
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 1},
        "encoding": {
            "x": x,
            "y": y,
            "color": _q(
                "premium",
                title=f"× {reference}",
                scale={"type": "log", "scheme": "blueorange", "domainMid": 1},
                legend={"orient": "right", "gradientLength": 200, "format": ".1~f"},
            ),
            "tooltip": tooltip,
        },
    }
    text = {
        "mark": {"type": "text", "fontSize": 12},
        "encoding": {
            "x": x,
            "y": y,
            "text": _n("label"),
            "color": {"condition": {"test": "datum.dark", "value": "white"}, "value": "#18181b"},
            "tooltip": tooltip,
        },
    }
    return {
        "data": {"values": data},
        "layer": [cells, text],
        "height": {"step": TAX_ROW},
        "title": f"Token tax: the same passage, relative to {reference}",
    }


# ----------------------------------------------------------------------------- Train: vocabulary size vs compression

REFERENCE_DASH = [6, 4]


def vocab_vs_compression(curve: pd.DataFrame, refs: dict[str, float], *, height: int = 320, title: str = "") -> dict:
    """Bytes per token on a held-out text against the number of merges (``curve``: merges, vocab size, tokens, bytes
    per token), with each reference tokenizer's bytes per token on the same text as a labelled dashed line."""
    top = int(curve["merges"].max())
    line = {
        "mark": {"type": "line", "color": ACCENT, "strokeWidth": 2.5},
        "encoding": {
            "x": _q(
                "merges", title="number of merges (vocabulary size − 256)", scale={"nice": False, "domain": [0, max(1, top)]}
            ),
            "y": _q("bytes per token", title="bytes per token on the held-out text", scale={"zero": True}),
            "tooltip": [
                _q("merges", format=","),
                _q("vocab size", format=","),
                _q("tokens", format=","),
                _q("bytes per token", format=".3f"),
            ],
        },
    }
    layers = [line]
    if refs:
        # labels staggered along the line, so references with nearly equal ratios stay readable
        ref = pd.DataFrame(
            {
                "tokenizer": list(refs),
                "bytes per token": list(refs.values()),
                "merges": [round(top * (1 - 0.3 * i)) for i in range(len(refs))],
            }
        )
        ref["label"] = [f"{k}: {v:.2f}" for k, v in refs.items()]
        color = _color(list(refs), legend=None)
        ref = ref.to_dict("records")  # Streamlit sends only the top-level data as a DataFrame; a layer's is JSON
        layers.append(
            {
                "data": {"values": ref},
                "mark": {"type": "rule", "strokeDash": REFERENCE_DASH, "strokeWidth": 1.5},
                "encoding": {
                    "y": _q("bytes per token"),
                    "color": color,
                    "tooltip": [_n("tokenizer"), _q("bytes per token", format=".3f")],
                },
            }
        )
        layers.append(
            {
                "data": {"values": ref},
                "mark": {"type": "text", "align": "right", "baseline": "bottom", "dx": -4, "dy": -3, "fontWeight": "bold"},
                "encoding": {"x": _q("merges"), "y": _q("bytes per token"), "text": _n("label"), "color": color},
            }
        )
    return {
        "data": {"values": curve},
        "layer": layers,
        "height": height,
        "title": title or "Compression on a held-out text, merge by merge",
    }


# ----------------------------------------------------------------------------- Train: training variants


def compression_compare(df: pd.DataFrame, *, transition: int | None = None, height: int = 400, title: str = "") -> dict:
    """Bytes per token against merges for several trainings on one text (long form: ``merges, vocab size,
    bytes per token, tokenizer``), with a dashed rule where a second stage began (``transition``, a vocab size).

    >>> df = pd.DataFrame({"merges": [0, 1, 0, 1], "vocab size": [256, 257] * 2, "bytes per token": [1, 2, 1, 1.5],
    ...                    "tokenizer": ["a", "a", "b", "b"]})
    >>> [layer["mark"]["type"] for layer in compression_compare(df, transition=257)["layer"]]
    ['line', 'rule', 'text']
    """
    labels = list(dict.fromkeys(df["tokenizer"]))
    line = {
        "mark": {"type": "line", "strokeWidth": 2.5},
        "encoding": {
            "x": _q("merges", title="merges (vocabulary size − 256)", scale={"nice": False}),
            "y": _q("bytes per token", title="bytes per token", scale={"zero": False}),
            "color": _color(labels, sort=labels, legend={"orient": "top", "title": None, "labelLimit": 260}),
            "tooltip": [_n("tokenizer"), _q("vocab size", format=","), _q("bytes per token", format=".3f")],
        },
    }
    layers = [line]
    if transition is not None:
        top = float(df["bytes per token"].max()) if len(df) else 1.0
        mark = {"values": [{"merges": transition - 256, "label": f"stage 2 from {transition:,}", "bytes per token": top}]}
        layers.append(
            {
                "data": mark,
                "mark": {"type": "rule", "color": NEXT, "strokeDash": REFERENCE_DASH, "strokeWidth": 2},
                "encoding": {"x": _q("merges")},
            }
        )
        layers.append(
            {  # top left of the rule: the curves are low there
                "data": mark,
                "mark": {"type": "text", "align": "right", "baseline": "top", "dx": -6, "color": NEXT, "fontWeight": "bold"},
                "encoding": {"x": _q("merges"), "y": _q("bytes per token"), "text": _n("label")},
            }
        )
    return {
        "data": {"values": df[["merges", "vocab size", "bytes per token", "tokenizer"]]},
        "layer": layers,
        "height": height,
        "title": title or "Compression at each vocabulary size",
    }


def language_tokens(df: pd.DataFrame, *, height: int = 260, title: str = "") -> dict:
    """Tokens per language at one step of a parity-aware training (``language, tokens, served``), the language the
    next merge serves in orange.

    >>> spec = language_tokens(pd.DataFrame({"language": ["en", "el"], "tokens": [5, 9], "served": [False, True]}))
    >>> spec["encoding"]["color"]["condition"]["value"] == NEXT
    True
    """
    values = [
        {"language": lang, "tokens": int(n), "served": bool(s)} for lang, n, s in zip(df["language"], df["tokens"], df["served"])
    ]
    return {
        "data": {"values": values},
        "mark": {"type": "bar"},
        "height": {"step": 16},
        "title": title or "Tokens per language now",
        "encoding": {
            "y": {"field": "language", "type": "nominal", "sort": "-x", "title": None, "axis": {"labelLimit": 160}},
            "x": _q("tokens", title="tokens in its text"),
            "color": {"condition": {"test": "datum.served", "value": NEXT}, "value": MUTED},
            "tooltip": [_n("language"), _q("tokens", format=",")],
        },
    }


# ----------------------------------------------------------------------------- Overlap

#: The three groups of a vocabulary's tokens, in stacking order, and their colours.
OVERLAP_GROUPS = {"shared by all": ACCENT, "shared with some": MUTED, "only here": NEXT}


def overlap_summary(long: pd.DataFrame) -> dict:
    """One stacked horizontal bar per tokenizer: its tokens that every other one holds too, some other one, none
    (long form from ``ui.overlap.model.summary_long``: tokenizer, group, tokens, share, vocabulary, order)."""
    labels = list(dict.fromkeys(long["tokenizer"]))
    groups = [g for g in OVERLAP_GROUPS if g in set(long["group"])]
    if len(labels) < 3:  # with two tokenizers "shared with some" is always empty
        groups = [g for g in groups if g != "shared with some"]
        long = long[long["group"].isin(groups)]
    return {
        "data": {"values": long},
        "mark": {"type": "bar", "cornerRadiusEnd": 2},
        "encoding": {
            "y": _n("tokenizer", sort=labels, title=None, axis={"labelFontSize": 12, "labelLimit": 320}),
            "x": _q("tokens", title="tokens in the vocabulary", axis={"format": "~s"}),
            "color": _n(
                "group",
                sort=groups,
                scale={"domain": groups, "range": [OVERLAP_GROUPS[g] for g in groups]},
                legend={"orient": "top", "title": None},
            ),
            "order": _q("order"),
            "tooltip": [_n("tokenizer"), _n("group"), _q("tokens", format=","), _q("share", format=".1%")],
        },
        "height": {"step": 34},
        "title": "Each vocabulary: tokens the others hold too, and its own",
    }


def jaccard_heatmap(pairs: pd.DataFrame) -> dict:
    """Jaccard similarity of every pair of tokenizers as a grid (``ui.overlap.model.pairs``: a, b, shared, either, jaccard)."""
    labels = list(dict.fromkeys(pairs["a"]))
    axis = {"labelFontSize": 12, "labelLimit": 0, "title": None, **ALL_LABELS}
    top = {**axis, "orient": "top", "labelAngle": SLANT, "labelAlign": "left", "labelBaseline": "middle"}
    cell = {"x": _n("b", sort=labels, axis=top), "y": _n("a", sort=labels, axis=axis)}
    return {
        "data": {"values": pairs},
        "layer": [
            {
                "mark": {"type": "rect", "stroke": "#ffffff", "strokeWidth": 2},
                "encoding": {
                    **cell,
                    "color": _q(
                        "jaccard", scale={"domain": [0, 1], "scheme": "purples"}, legend={"title": "Jaccard", "format": ".0%"}
                    ),
                    "tooltip": [
                        _n("a"),
                        _n("b"),
                        _q("shared", format=","),
                        _q("either", format=","),
                        _q("jaccard", format=".3f"),
                    ],
                },
            },
            {
                "mark": {"type": "text", "fontSize": 13},
                "encoding": {
                    **cell,
                    "text": _q("jaccard", format=".2f"),
                    "color": {"condition": {"test": "datum.jaccard > 0.55", "value": "#ffffff"}, "value": "#18181b"},
                },
            },
        ],
        "width": {"step": 64},
        "height": {"step": 40},
        # the drawing grows to hold the slanted names (the theme's "fit" left the last one past its right edge)
        "autosize": {"type": "pad"},
        "title": "Jaccard similarity: shared tokens ÷ tokens in either",
    }


def split_histogram(hist: pd.DataFrame) -> dict:
    """How many pieces one tokenizer's tokens become under another, one bar per direction and number of pieces
    (``ui.overlap.model.histogram``: direction, pieces, tokens, share)."""
    directions = list(dict.fromkeys(hist["direction"]))
    pieces = list(dict.fromkeys(hist["pieces"]))
    return {
        "data": {"values": hist},
        "mark": {"type": "bar", "cornerRadiusEnd": 2},
        "encoding": {
            "x": _n("pieces", sort=pieces, title="pieces per token", axis={"labelAngle": 0, "labelFontSize": 12}),
            "xOffset": _n("direction", sort=directions),
            "y": _q("share", title="share of the tokens", axis={"format": ".0%"}),
            "color": _n(
                "direction",
                sort=directions,
                scale={"domain": directions, "range": [ACCENT, NEXT]},
                legend={"orient": "top", "title": None, "labelLimit": 420, "direction": "vertical"},
            ),
            "tooltip": [_n("direction"), _n("pieces"), _q("tokens", format=","), _q("share", format=".1%")],
        },
        "height": 380,  # the whole chart's, legend and title included (Streamlit fits the spec to it)
        "title": "How many pieces each token becomes",
    }


# ----------------------------------------------------------------------------- Compare: vocabulary used


def vocabulary_used(usage: pd.DataFrame) -> dict:
    """The share of each tokenizer's vocabulary some texts use, one bar each, labelled with the distinct tokens
    (``ui.compare.coverage.usage_frame``: tokenizer, vocabulary, tokens, distinct tokens, vocabulary used %)."""
    labels = list(usage["tokenizer"])
    data = usage.assign(label=[f"{d:,} of {v:,}" for d, v in zip(usage["distinct tokens"], usage["vocabulary"])])
    encoding = {
        "y": _n("tokenizer", sort=labels, title=None, axis={"labelFontSize": 12, "labelLimit": 320}),
        "x": _q("vocabulary used %", title="share of the vocabulary used (%)", scale={"type": "symlog", "constant": 0.1}),
    }
    return {
        "data": {"values": data},
        "layer": [
            {
                "mark": {"type": "bar", "cornerRadiusEnd": 2},
                "encoding": {
                    **encoding,
                    "color": _color(labels, legend=None),
                    "tooltip": [
                        _n("tokenizer"),
                        _q("distinct tokens", format=","),
                        _q("vocabulary", format=","),
                        _q("vocabulary used %", format=".3f"),
                    ],
                },
            },
            {"mark": {"type": "text", "align": "left", "dx": 4, "fontSize": 12}, "encoding": {**encoding, "text": _n("label")}},
        ],
        "height": {"step": 30},
        "title": "Vocabulary used: distinct tokens ÷ vocabulary",
    }


# ----------------------------------------------------------------------------- Tokenize: pieces of N tokens


def piece_sizes(table: pa.Table, n: int) -> dict:
    """How much text each piece of ``n`` tokens holds: one bar per piece (``ui.tokenize.pieces.table``, an Arrow table:
    piece, tokens, characters, bytes, …). One mark, so Streamlit fits the title, axes and bars into the height. The
    values stay an Arrow table, which ``st.vega_lite_chart`` sends as it is (a DataFrame it converts at every rerun)."""
    data = table.select(["piece", "tokens", "characters", "bytes"])
    return {
        "data": {"values": data},
        "mark": {"type": "bar", "color": ACCENT, "cornerRadiusEnd": 2},
        "encoding": {
            "x": {"field": "piece", "type": "ordinal", "title": "piece", "axis": {"labelAngle": 0, "labelOverlap": True}},
            "y": _q("characters", title="characters"),
            "tooltip": [_q("piece"), _q("tokens"), _q("characters", format=","), _q("bytes", format=",")],
        },
        "height": 240,
        "title": f"Characters in each piece of {n:,} tokens",
    }


# ----------------------------------------------------------------------------- presenter mode

#: Presenter mode's body text (the root font size the stylesheet sets): no chart label is smaller
PRESENT_FONT = 22
_FONT_KEYS = ("labelFontSize", "titleFontSize")


def presented(spec: dict, size: int = PRESENT_FONT) -> dict:
    """The chart for presenter mode: its axis, legend and title text at least ``size`` px (a copy; the rest is left
    as it is), as large as the body text there (Vega-Lite's own config, not a zoom).

    >>> out = presented({"encoding": {"y": {"axis": {"labelFontSize": 12}}}, "height": {"step": 16}, "title": "T"})
    >>> out["encoding"]["y"]["axis"]["labelFontSize"], out["height"], out["config"]["title"]["fontSize"]
    (22, {'step': 24}, 22)
    """

    def walk(node):
        if isinstance(node, dict):
            out = {k: walk(v) for k, v in node.items()}
            for k in _FONT_KEYS:
                if isinstance(out.get(k), (int, float)):
                    out[k] = max(out[k], size)
            # a label's room grows with its text, and a legend in columns takes fewer of them, so no name is cut short
            if isinstance(out.get("labelLimit"), (int, float)) and out["labelLimit"] > 0:
                out["labelLimit"] = round(out["labelLimit"] * size / 12)
                if isinstance(out.get("columns"), int):
                    out["columns"] = max(1, out["columns"] * 12 // size)
            if isinstance(out.get("title"), dict) and isinstance(out["title"].get("fontSize"), (int, float)):
                out["title"] = {**out["title"], "fontSize": max(out["title"]["fontSize"], size)}
            if isinstance(out.get("height"), dict) and isinstance(out["height"].get("step"), (int, float)):
                # a row per label and no taller, so that a grid of many rows keeps to one screen
                out["height"] = {**out["height"], "step": max(out["height"]["step"], size + 2)}
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk(spec)
    config = dict(out.get("config") or {})
    for part in ("axis", "legend", "header"):
        config[part] = {**config.get(part, {}), "labelFontSize": size, "titleFontSize": size}
    config["title"] = {**config.get("title", {}), "fontSize": size}
    out["config"] = config
    pad = out.get("padding") if isinstance(out.get("padding"), dict) else {"left": 5, "right": 5, "bottom": 5}
    out["padding"] = {**pad, "top": max(pad.get("top", 5), size // 2)}  # room for the larger title above the plot
    return out

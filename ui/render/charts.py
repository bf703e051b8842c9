"""Every chart of the app, as a Vega-Lite spec (a plain dict), one section per page.

Each function takes a DataFrame built by a page's model and returns the spec; the
page puts it on screen with ``st.vega_lite_chart(spec)``, which sends the data
(``data.values``, a DataFrame) as Arrow. The specs are written as dicts, not with
Altair: building and validating an Altair chart took 0.05-0.15 s each, several per
page open, measured in the load test's scenario; building a dict takes well under a
millisecond. The tests validate every spec against Vega-Lite's JSON schema
(``tests/ui/render/test_charts.py``). The movable cursor of the training curves is
a Vega-Lite parameter that ``at_cursor`` sets without building the chart again.

>>> import pandas as pd
>>> spec = length_histogram(pd.DataFrame({"bytes": [1, 2], "tokens": [256, 40]}))
>>> spec["mark"]["type"], spec["encoding"]["x"]["field"]
('bar', 'bytes')
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

ACCENT = "#7c3aed"  # the theme's primary colour
NEXT = "#f97316"  # the pair merged next (the span highlight's orange)
MUTED = "#a5b4fc"


# ----------------------------------------------------------------------------- building blocks


def _q(field: str, **extra) -> dict:
    return {"field": field, "type": "quantitative", **extra}


def _n(field: str, **extra) -> dict:
    return {"field": field, "type": "nominal", **extra}


def _color(labels: Sequence[str], **extra) -> dict:
    # the same tokenizer keeps its colour on every chart of the page
    return _n("tokenizer", scale={"domain": list(labels), "scheme": "tableau10"}, **extra)


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


def compare_stats(stats: pd.DataFrame) -> dict:
    """One small horizontal bar chart per statistic (``tokenizer`` plus the ``STAT_METRICS`` columns).

    A facet each, with its own x scale, tokenizers in the same order and colours.

    >>> spec = compare_stats(pd.DataFrame({"tokenizer": ["a", "b"], "tokens": [3, 4], "chars/token": [1.5, 2.0]}))
    >>> spec["facet"]["column"]["sort"], len(spec["data"]["values"])
    (['tokens', 'chars/token'], 4)
    """
    labels = list(stats["tokenizer"])
    metrics = [m for m in STAT_METRICS if m in stats.columns]
    long = stats.melt(id_vars="tokenizer", value_vars=metrics, var_name="statistic", value_name="value")
    encoding = {
        "y": _n(
            "tokenizer", sort=labels, title=None, axis={"labelLimit": 200, "labelFontSize": 12, "ticks": False, "domain": False}
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
        "spec": {"layer": [bars, text], "width": 120, "height": 26 * len(labels) + 6},
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
            "x": _n("sample", sort=samples, title=None, axis={"labelAngle": 0, "labelLimit": 130}),
            "xOffset": _n("tokenizer", sort=labels),
            "y": _q(metric, title=metric),
            "color": _color(labels, sort=labels, legend={"orient": "top", "title": None, "labelLimit": 260}),
            "tooltip": [_n("sample"), _n("tokenizer"), _q(metric, format=",.2f"), _q("tokens")],
        },
        "height": 300,
    }


# ----------------------------------------------------------------------------- Train and Step through: merge curves


def merge_counts(df: pd.DataFrame, *, height: int = 260) -> dict:
    """Count of the merged pair against the step (``step, count, token``; Train)."""
    data = df.dropna(subset=["count"])[["step", "count", "token"]]
    mark = (
        {"type": "bar", "color": ACCENT, "opacity": 0.85}
        if len(data) <= 120
        else {"type": "line", "color": ACCENT, "interpolate": "step-after"}
    )
    return {
        "data": {"values": data},
        "mark": mark,
        "encoding": {
            "x": _q("step", title="merge step", scale={"domainMin": 1, "nice": False}),
            "y": _q("count", title="count of the merged pair", scale={"type": "log"}),
            "tooltip": [_q("step", title="step"), _n("token", title="new token"), _q("count", format=",")],
        },
        "height": height,
        "title": "How often the merged pair occurred, step by step",
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


def token_tax(frame: pd.DataFrame, order: Sequence[str], reference: str) -> dict:
    """The premium of each language under each tokenizer (long-form ``frame`` from ``ui.compare.tax.tax_frame``).

    Horizontal bars, one group per language (``order``), one bar per tokenizer, and a
    rule at 1× (the reference language).
    """
    labels = list(dict.fromkeys(frame["tokenizer"]))
    per_lang = max(1, len(labels))
    bars = {
        "mark": {"type": "bar", "cornerRadiusEnd": 2},
        "encoding": {
            "y": _n("language", sort=list(order), title=None, axis={"labelFontSize": 12, "labelLimit": 160}),
            "yOffset": _n("tokenizer", sort=labels),
            "x": _q("premium", title=f"tokens relative to {reference} (1 = as many tokens as {reference})"),
            "color": _color(labels, sort=labels, legend={"orient": "top", "title": None, "labelLimit": 260}),
            "tooltip": [
                _n("language"),
                _n("script"),
                _n("tokenizer"),
                _q("tokens", format=","),
                _q("premium", format=".2f", title="× " + reference),
            ],
        },
    }
    rule = {
        "data": {"values": [{"premium": 1.0}]},
        "mark": {"type": "rule", "color": "#18181b", "strokeDash": [4, 3], "strokeWidth": 1.5},
        "encoding": {"x": _q("premium")},
    }
    return {
        "data": {"values": frame},
        "layer": [bars, rule],
        "height": {"step": max(6, 22 // per_lang)},
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

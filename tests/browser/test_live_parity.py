"""The browser encoder in real Chromium gives the Python core's ids, for every rank-based encoding and a trained tokenizer.

The page imports the very modules and model files the app serves: the test publishes
them with the app's own functions (``ui.web.model``) into the static folder of the
test server (a real ``streamlit run``) and imports them from its address. Texts: our
multilingual and code samples (every script, emoji, combining marks, CRLF, long runs
of whitespace, special-token look-alikes), long and generated ones, under both
special-token modes; the split patterns also on every code point at the edges of the
classes they use, with the RegExp written out and with the browser's own ``\\p{…}``
(after the page's check against regex's tables).
"""

from __future__ import annotations

import json

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from texts import C_LIKE, MULTILINGUAL, code_and_prose

from tests.tier import examples
from tokenizer import load_encoding, registry, train
from tokenizer.pretokenize.pattern_syntax import class_ranges, parse
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS
from ui.web import model as web
from ui.web.jsregex import pattern_spec

pytestmark = pytest.mark.browser

RANK_BASED = [n for n in registry.names() if not registry.spec(n).staged and registry.spec(n).kind == "bpe"]  # what bpe.js runs
TEXTS = [
    MULTILINGUAL,
    "".join(C_LIKE.format(n=n) for n in range(3)),
    "",
    " ",
    "\r\n\r\n  \t\n" * 3 + " " * 500 + "x" + "\n" * 300,
    "<|endoftext|>x<|endoftext|<|im_start|>user<|im_sep|><|im_end|><|endofprompt|><s></s>[INST]<|begin_of_text|>",
    "<|reserved_special_token_5|><|eot_id|><|start|>assistant<|message|><|return|><SPECIAL_20><|fim_prefix|>",
    "e\u0301 n\u0303 Z\u0351\u0358a\u0344l\u0346g\u0350o\u0352 \u0888\u1acf\U000323af ꟍ ʕ \U0001fae8",
    "lone \ud83d surrogate \udc00 and 😄",
    # NFC as Python's Unicode 14 does it (Qwen): decomposed text, U+2000, Hangul jamo, and pairs later
    # Unicode versions compose (Kirat Rai, Tulu-Tigalari) that Python, which has them unassigned, leaves alone
    "e\u0301 \u2000\u2001x A\u030a\u0301 \u1100\u1161\u11a8 \U00016d67\U00016d67 \U000113c2\U000113c9 \U00011382\U000113c9",
    "1234567890 ١٢٣٤٥ ४५६ Ⅻ ½ 3.14159 " * 4,
    "camelCaseWords HTTPServerError parseJSON DON'T don't I'M we'LL 'S 'ſ " * 3,
    "a" * 3000 + "😄" * 200 + "你" * 700,
]
LONG = code_and_prose(60_000)


@pytest.fixture(scope="module")
def lab(browser, server):
    """A page of the test server's origin with the app's modules imported and a function that loads a model."""
    base = server.url + "/" + web.publish_assets()
    page = browser.new_page()
    page.set_default_timeout(120_000)
    page.goto(server.url + "/_stcore/health")
    page.evaluate(
        """async (base) => {
            const bpe = await import(base + "bpe.js");
            const pattern = await import(base + "pattern.js");
            window.lab = { bpe, pattern, encoders: {}, diffs: {} };
            window.lab.load = async (name, url) => {
                const buffer = await (await fetch(url)).arrayBuffer();
                window.lab.encoders[name] = new bpe.Encoder(bpe.parseModel(buffer));
            };
            window.lab.native = (name) => {
                const enc = window.lab.encoders[name];
                for (const [p, r] of Object.entries(enc.pattern.props)) window.lab.diffs[p] ??= pattern.finish(pattern.checkProperty(p, r));
                enc.useNative(window.lab.diffs);
            };
            window.lab.encode = (name, texts, recognise) => texts.map((t) => Array.from(window.lab.encoders[name].encode(t, { recognise }).ids));
        }""",
        base,
    )
    yield page, server
    page.close()


def load(lab, name: str, tok) -> None:
    page, server = lab
    url = server.url + "/" + web.publish_model(web.model_file(tok, check_shortcuts=False))
    page.evaluate("([name, url]) => window.lab.load(name, url)", [name, url])


def encode(lab, name: str, texts: list[str], recognise: bool) -> list[list[int]]:
    # texts travel as JSON escapes, so lone surrogates arrive as they are (the page must clean them as the core does)
    return lab[0].evaluate(
        "([name, texts, rec]) => window.lab.encode(name, JSON.parse(texts), rec)", [name, json.dumps(texts), recognise]
    )


def check(lab, name: str, tok, texts: list[str]) -> None:
    for recognise in (False, True):
        got = encode(lab, name, texts, recognise)
        for text, ids in zip(texts, got):
            expected = tok.encode(text, allowed_special="all") if recognise else tok.encode(text, disallowed_special=())
            assert ids == expected, f"{name}, recognise={recognise}: {text[:80]!r}"


@pytest.mark.parametrize("name", RANK_BASED)
def test_every_rank_based_encoding_gives_the_cores_ids(lab, name):
    tok = load_encoding(name)
    load(lab, name, tok)
    check(lab, name, tok, TEXTS + [LONG])
    lab[0].evaluate("(name) => window.lab.native(name)", name)  # the browser's own \p{…}, checked and corrected
    assert lab[0].evaluate("(name) => window.lab.encoders[name].native", name)
    check(lab, name, tok, TEXTS + [LONG])


@pytest.fixture(scope="module")
def trained():
    return train(
        MULTILINGUAL * 4 + C_LIKE.format(n=1) * 3, 700, pattern="o200k", special_tokens=["<|endoftext|>", "<|im_start|>"]
    )


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(max_size=200)
    | st.lists(st.sampled_from(TEXTS[7:12] + [" ", "\n", "<|endoftext|>", "'s"]), max_size=8).map("".join)
)
def test_generated_text_gives_the_cores_ids_with_a_trained_tokenizer_and_o200k(lab, trained, text):
    if "trained" not in lab[0].evaluate("Object.keys(window.lab.encoders)"):
        load(lab, "trained", trained)
        load(lab, "o200k_base", load_encoding("o200k_base"))
    check(lab, "trained", trained, [text])
    check(lab, "o200k_base", load_encoding("o200k_base"), [text])


def edge_text(pattern: str) -> str:
    """Every code point at the edge of each class the pattern uses, each next to letters, digits, spaces and itself."""
    points = set()
    for ranges in class_ranges(parse(pattern).atoms):
        for lo, hi in ranges:
            points.update(c for c in (lo - 1, lo, hi, hi + 1) if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF)
    return "".join(f"{chr(c)}a{chr(c)}{chr(c)} 1{chr(c)}\n'{chr(c)}s" for c in sorted(points))


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_every_pattern_splits_like_regex_at_every_class_edge(lab, name):
    pattern = BUILTIN_PATTERNS[name]
    text = edge_text(pattern)
    expected = regex.findall(pattern, text)
    got = lab[0].evaluate(
        """([spec, text]) => {
            const { bpe, pattern } = window.lab;
            const explicit = bpe.splitText(new RegExp(pattern.explicitSource(spec), "gu"), text);
            const diffs = {};
            for (const [p, r] of Object.entries(spec.props)) diffs[p] = window.lab.diffs[p] ??= pattern.finish(pattern.checkProperty(p, r));
            const native = bpe.splitText(new RegExp(pattern.nativeSource(spec, diffs), "gu"), text);
            return { explicit, native };
        }""",
        [pattern_spec(pattern), text],
    )
    assert got["explicit"] == expected
    assert got["native"] == expected

"""The browser encoders in real Chromium give the Python core's ids: bpe.js for every rank-based encoding and a trained
tokenizer, spm.js for every SentencePiece-style one (Llama 2, Phi-3, Gemma 4), the latter also typed into the page.

The page imports the very modules and model files the app serves: the test publishes
them with the app's own functions (``ui.web.model``) into the static folder of the
test server (a real ``streamlit run``) and imports them from its address. Texts: our
multilingual and code samples (every script, emoji, combining marks, CRLF, long runs
of whitespace, special-token look-alikes), long and generated ones, under both
special-token modes; the split patterns also on every code point at the edges of the
classes they use, with the RegExp written out and with the browser's own ``\\p{…}``
(after the page's check against regex's tables). The SentencePiece-style models also on llama.cpp's own test
vectors for their vocabularies, on generated text (hypothesis), and typed into the Tokenize page, where the ids it
draws are the core's.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

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

from .conftest import wait_idle

pytestmark = pytest.mark.browser

RANK_BASED = [n for n in registry.names() if not registry.spec(n).staged and registry.spec(n).kind == "bpe"]  # what bpe.js runs
# what spm.js runs: a GGUF's SentencePiece-style models (a .model file's rules are the server's)
SENTENCEPIECE = [n for n in registry.names() if registry.spec(n).source.format == "gguf-spm"]
#: our encoding -> llama.cpp's vocabulary whose test vectors it passes (tests/tokenizer/models/test_llama_cpp.py)
VECTORS = {"llama2": "llama-spm", "phi3": "phi-3", "gemma4": "gemma-4"}
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
            const spm = await import(base + "spm.js");
            window.lab = { bpe, pattern, spm, encoders: {}, diffs: {} };
            window.lab.load = async (name, url) => {
                const buffer = await (await fetch(url)).arrayBuffer();
                window.lab.encoders[name] = spm.isSpmModel(buffer) ? new spm.SpmEncoder(spm.parseSpmModel(buffer)) : new bpe.Encoder(bpe.parseModel(buffer));
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


# ----------------------------------------------------------------------------- SentencePiece-style BPE (spm.js)

#: What SentencePiece-style text handling hinges on: spaces and typed ▁, runs of newlines (Gemma 4 cuts at them),
#: each model's special and user-defined pieces, a byte token's spelling, characters no vocabulary has (byte fallback).
SPM_TEXTS = [
    "Hello world",
    " Hello world",
    "  leading and trailing  ",
    "\u2581typed\u2581\u2581▁ and spaces  ",
    "a\n\nb\n\n\n\nc \n \r\n\t\n",
    "<s>x</s><unk> <s> a</s>b<|user|>hi<|end|><|assistant|><|endoftext|>",
    '<bos><eos><pad><|turn>user\n<turn|><|tool_call><tool_call|><|"|><|channel>',
    "<0x41> 𓀀 \U0001fae8 \u0888 ꙮ \x00 \ufeff 🦙",
]


@pytest.mark.parametrize("name", SENTENCEPIECE)
def test_every_sentencepiece_model_gives_the_cores_ids(lab, name):
    from tokenizer.formats import gguf
    from tokenizer.models import fetch
    from tokenizer.models.provision import LLAMA_CPP_TESTS

    tok = load_encoding(name)
    load(lab, name, tok)
    check(lab, name, tok, TEXTS + SPM_TEXTS + [LONG])
    vocab = VECTORS[name]
    inp = LLAMA_CPP_TESTS.get(f"{vocab}-inp", LLAMA_CPP_TESTS["inp"])  # Gemma 4's inputs are its own
    cases = gguf.read_vocab_tests(fetch.read_verified(inp), fetch.read_verified(LLAMA_CPP_TESTS[vocab]))
    assert len(cases) == 46
    got = encode(lab, name, [t for t, _ in cases], False)
    assert got == [ids for _, ids in cases]  # llama.cpp's own answers


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(max_size=200)
    | st.lists(
        st.sampled_from(SPM_TEXTS + TEXTS[7:12] + [" ", "\n", "\n\n", "\u2581", "<s>", "<|end|>", "<|turn>"]), max_size=8
    ).map("".join)
)
def test_generated_text_gives_the_cores_ids_with_every_sentencepiece_model(lab, text):
    for name in SENTENCEPIECE:
        if name not in lab[0].evaluate("Object.keys(window.lab.encoders)"):
            load(lab, name, load_encoding(name))
        check(lab, name, load_encoding(name), [text])


def _open_tokenize(page, server, name: str) -> None:
    page.goto(server.url + "/?" + urlencode({"tokenizer": name, "text": "x"}))
    wait_idle(page, timeout=90_000)
    page.locator(".bpe-live .bpe-spans").first.wait_for(timeout=90_000)


def _typed(page, text: str) -> list[int]:
    """Type ``text`` at the end of the box, key by key, and read the ids the view draws once it has drawn the last."""
    box = page.get_by_label("Text", exact=True)
    box.click()
    box.press("Control+End")
    page.keyboard.type(text, delay=5)
    page.wait_for_function(
        "() => { const v = document.querySelector('.bpe-live'); return v.dataset.seq === v.dataset.typed && v.dataset.source === 'browser'; }",
        timeout=30_000,
    )
    body = page.locator(".bpe-live-ids").inner_text().strip()
    return [int(x) for x in body.strip("[]").split(",") if x.strip()]


@pytest.mark.parametrize("name", SENTENCEPIECE)
def test_typing_into_the_tokenize_page_gives_the_cores_ids(page, server, name):
    """The page's own path: the model file the app publishes, the worker, the live view's drawing."""
    tok = load_encoding(name)
    _open_tokenize(page, server, name)
    typed = "x"
    for piece in ["  Hello wörld", "\n\n\ndef f():\n    return 1\n", " 你好 🦙 𓀀", "\u2581▁ <s> </s> <|end|> <|turn>", " end "]:
        typed += piece
        assert _typed(page, piece) == tok.encode(typed, disallowed_special=()), (name, typed)
    page.wait_for_timeout(1500)  # the server hears the text (COMMIT_DELAY), so the rerun below keeps it
    wait_idle(page, timeout=60_000)
    page.get_by_role("radio", name="Recognise special tokens").click()
    page.wait_for_timeout(300)
    wait_idle(page, timeout=60_000)
    assert _typed(page, "!") == tok.encode(typed + "!", allowed_special="all")

"""The SentencePiece-style models (Llama 2 / CodeLlama, Phi-3, Gemma 4) on the pages, in AppTest: Tokenize (the server's spans,
since the browser's encoder is byte-level only, and the page says how this kind differs), Compare and its token tax,
Vocabulary (pieces, byte-fallback tokens, merge trees down to characters); no exception anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from drawn import drawn
from live_view import payload, table_ids, type_text
from model_packages import reference_encode
from streamlit.testing.v1 import AppTest

from tokenizer import load_encoding, registry
from tokenizer.spm import difference
from ui.compare import languages
from ui.vocabulary import model as vocab_model

ROOT = Path(__file__).resolve().parents[2]
SPM = [s.name for s in registry.specs() if s.kind == "sentencepiece"]
MIXED = "Hello 你好 — tokenization! 🤚🏾 x = 1234567890\n\tdef f():  return 'ok'\n"


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return " ".join(e.value for kind in ("caption", "markdown", "info") for e in getattr(at, kind))


@pytest.mark.parametrize("name", SPM)
def test_tokenize_runs_them_live_and_says_how_this_kind_differs(workspace, name):
    at = page("tokenize")
    at.selectbox(key="tokenize.tokenizer").set_value(name)
    type_text(at, MIXED)
    at.run()
    assert not at.exception, at.exception
    # the browser encodes a GGUF's model of this kind (ui/web/spm.js, held to the core by tests/web/spm.test.mjs and
    # Chromium); a .model file's follows the sentencepiece package's rules, which only the server has
    assert payload(at)["kind"] == ("server" if registry.spec(name).source.format == "spm-model" else "bpe")
    assert table_ids(at) == reference_encode(name)(MIXED)
    tok = load_encoding(name)
    prefix = " " if tok.model.add_space_prefix else ""
    assert difference(load_encoding(name)) in texts(at)
    tokens = at.dataframe[0].value
    byte_rows = tokens[tokens["id"].map(tok.is_byte_token)]
    # the characters with no piece (Llama 2's emoji, tab and newlines): their bytes, each a <0x..> token shown as its byte
    lacking = "".join(ch for ch in MIXED if ch != " " and ch not in tok.model.piece_to_id).encode()
    assert len(byte_rows) == len(lacking) and set(byte_rows["bytes"]) == {f"{b:02X}" for b in lacking}
    assert name != "llama2" or len(lacking) == len("🤚🏾\t\n\n".encode())
    # the piece ▁Hello: its ▁ is the space the whitespace view shows as ·
    assert tokens["text"].iloc[0] == ("·Hello" if prefix else "Hello")


@pytest.mark.parametrize("name", SPM)
def test_compare_counts_them_as_sentencepiece_does(workspace, name):
    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=120)
    at.run()
    at.multiselect(key="compare.tokenizers").set_value(["cl100k_base", name])
    at.text_area(key="compare.text").set_value(MIXED)
    at.run()
    assert not at.exception, at.exception
    df = next(d.value for d in at.dataframe if "tokenizer" in d.value.columns and "whole words %" in d.value.columns)
    label = registry.spec(name).label
    row = df.set_index("tokenizer").loc[label]
    assert row["tokens"] == len(reference_encode(name)(MIXED))
    [tax] = [t.value for t in at.table if "language" in t.value.columns and "bytes" in t.value.columns]
    counts = tax.set_index("language")[label].to_dict()
    assert counts == {lang: len(reference_encode(name)(text)) for lang, text in languages.texts().items()}


@pytest.mark.parametrize("name", SPM)
def test_vocabulary_lists_pieces_and_byte_tokens(workspace, name):
    at = page("vocabulary")
    at.selectbox(key="vocab.tokenizer").set_value(name).run()
    assert not at.exception, at.exception
    tok = load_encoding(name)
    assert at.metric[0].value == f"{len(tok.vocab):,}"
    df = at.dataframe[0].value.set_index("id")
    a = tok.model.byte_ids[0x41]
    assert (df.loc[a, "token"], df.loc[a, "piece"], df.loc[a, "kind"]) == ("A", "<0x41>", "byte")
    full = vocab_model.vocab_frame(tok)  # the page's whole table, of which it shows the first thousand rows
    assert full.loc[tok.encode_single_token("A"), "kind"] == "character"
    the = "the" if tok.model.add_space_prefix else " the"  # ▁the: after the dummy prefix's space, or a typed one
    assert full.loc[tok.encode_ordinary(the)[0], ["piece", "token", "kind"]].tolist() == ["▁the", "·the", "merged"]
    assert difference(load_encoding(name)) in texts(at)
    # a merged piece's tree ends at characters
    tid = tok.encode_ordinary(the)[0]
    at.number_input(key="vocab.tree_id").set_value(tid).run()
    assert not at.exception, at.exception
    trees = [h for h in drawn(at) if '<div class="bpe-tree">' in h]
    assert any(h.count('class="node') == 2 * len(tok.merge_tree(tid).leaves()) - 1 for h in trees)


@pytest.mark.parametrize("name", SPM)
def test_step_through_replays_the_merges_by_score_to_the_encoding(workspace, name):
    import json

    from tests.step_reference import Replay

    text = "Hello 你好 🤚🏾 x  y"
    at = AppTest.from_file(str(ROOT / "pages" / "step.py"), default_timeout=120)
    at.query_params.update({"mode": "encoding", "tokenizer": name, "step": "0", "text": text})
    at.run()
    assert not at.exception, at.exception
    tok = load_encoding(name)
    core = tok.encode_trace(text)
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_stepper"]
    r = Replay(json.loads(el.proto.bytes)["trace"])
    # step 0: the characters (the dummy prefix's space first, where it has one), a character with no piece its bytes,
    # each its own <0x..> token (Llama 2's emoji)
    view = (" " if tok.model.add_space_prefix else "") + text
    at_start = sum(1 if ch == " " or ch in tok.model.piece_to_id else len(ch.encode()) for ch in view)
    assert len(r.spans(0)) == len(core.tokens_at(0)) == at_start
    assert name != "llama2" or at_start == len(view) - 2 + 2 * 4
    assert [s.id for s in r.spans(r.n)] == tok.encode(text) == core.final
    assert r.n == len(core.steps) > 0
    ranks = [s.rank for s in core.steps]
    assert ranks == sorted(ranks)  # by score: the best-scored piece first
    assert difference(load_encoding(name)) in texts(at)


def test_overlap_compares_a_sentencepiece_vocabulary_with_cl100k(workspace):
    """Pieces compared by the bytes they stand for (▁ as a space): the shared count is the sets' intersection."""
    at = AppTest.from_file(str(ROOT / "pages" / "overlap.py"), default_timeout=300)
    at.run()
    at.multiselect(key="overlap.tokenizers").set_value(["llama2", "cl100k_base"]).run()
    assert not at.exception, at.exception
    llama, cl100k = (
        {b for i, b in load_encoding(n).vocab.items() if i not in load_encoding(n).special_ids} for n in ("llama2", "cl100k_base")
    )
    shown = " ".join(str(m.value) for m in at.metric)
    assert f"{len(llama & cl100k):,}" in shown

"""The Overlap page in AppTest: its default, its empty states, links, the user's own tokenizers (trained and uploaded),
the searchable table and one tokenizer's tokens as another's pieces; counts checked against the reference libraries."""

from __future__ import annotations

from pathlib import Path

import regex
from model_packages import tiktoken_reference
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import registry, train
from ui.render.markdown import md

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "overlap.py")
LABELS = {s.name: s.label for s in registry.specs()}


def app(query: dict | None = None, keys: list[str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    if keys is not None:
        at.multiselect(key="overlap.tokenizers").set_value(keys).run()
        assert not at.exception, at.exception
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def frame(at, column: str):
    [df] = [d.value for d in at.dataframe if column in d.value.columns]
    return df


def reference_sets(*names: str) -> list[set[bytes]]:
    return [set(tiktoken_reference(n).token_byte_values()) for n in names]


def test_it_opens_with_gpt4o_and_llama3_and_their_overlap_is_the_references():
    at = app()
    assert at.multiselect(key="overlap.tokenizers").value == ["o200k_base", "llama3"]
    a, b = reference_sets("o200k_base", "llama3")
    got = metrics(at)
    assert got["Jaccard similarity"] == f"{len(a & b) / len(a | b):.3f}"
    assert got["Shared tokens"] == f"{len(a & b):,}"
    assert got[f"Only in {md(LABELS['o200k_base'])}"] == f"{len(a - b):,}"
    assert got[f"Only in {md(LABELS['llama3'])}"] == f"{len(b - a):,}"
    heads = [s.value for s in at.subheader]
    assert heads == [
        "Shared and own tokens",
        "The longest tokens only one of them has",
        "One tokenizer's tokens as another's pieces",
        "Every token, searchable",
    ]
    # the split: a share kept whole for each direction, at most the share the other vocabulary holds
    whole = [float(m.value.rstrip("%")) / 100 for m in at.metric if m.label == "kept whole"]
    assert len(whole) == 2 and whole[0] <= len(a & b) / len(a) + 1e-3 and whole[1] <= len(a & b) / len(b) + 1e-3
    assert len(at.get("vega_lite_chart")) == 2  # the stacked bars and the pieces (a grid only from three on)
    assert any("No special token is common" in c.value for c in at.caption)


def test_empty_states():
    at = app(keys=[])
    assert any("Choose two or more tokenizers" in i.value for i in at.info)
    assert not at.subheader
    at.multiselect(key="overlap.tokenizers").set_value(["r50k_base"]).run()
    assert any("at least one more" in i.value for i in at.info)


def test_a_link_with_three_tokenizers_draws_the_grid_and_warns_about_the_unknown():
    at = app(query={"tokenizers": "r50k_base,p50k_base,cl100k_base,chars,nope"})
    assert at.multiselect(key="overlap.tokenizers").value == ["r50k_base", "p50k_base", "cl100k_base"]
    assert any("not available here: chars, nope" in w.value for w in at.warning)
    r50k, p50k, cl100k = reference_sets("r50k_base", "p50k_base", "cl100k_base")
    assert metrics(at)["Shared by all"] == f"{len(r50k & p50k & cl100k):,}"
    assert metrics(at)["Most alike"] == f"{len(r50k & p50k) / len(r50k | p50k):.3f}"
    assert len(at.get("vega_lite_chart")) == 3  # + the Jaccard grid
    summary = frame(at, "only here").set_index("tokenizer")
    assert summary.loc[LABELS["p50k_base"], "only here"] == len(p50k - r50k - cl100k)  # runs of spaces GPT-4 lacks
    assert summary.loc[LABELS["r50k_base"], "only here"] == 0  # p50k has all of GPT-2


def test_the_searchable_table_filters_and_a_bad_regex_is_a_message():
    at = app(keys=["r50k_base", "p50k_base"])
    at.selectbox(key="overlap.where").set_value("only:1").run()
    at.text_input(key="overlap.search").set_value(r"^ +$")  # the search reads the token's text: a space, shown as ·.run()
    table = frame(at, "in")
    assert len(table) == 24 and (table["in"] == 1).all()  # p50k's runs of 2 to 25 spaces
    assert table[f"{LABELS['r50k_base']} id"].isna().all()
    at.text_input(key="overlap.search").set_value("(unclosed").run()
    assert not at.exception
    assert any("not a valid regex" in e.value for e in at.error)


def test_the_pieces_table_and_its_filter():
    at = app(keys=["r50k_base", "cl100k_base"])
    table = frame(at, "pieces")
    assert (table["pieces"] >= 2).all()  # the default: the tokens that split
    pieces_col = [c for c in table.columns if c.startswith("as ")][0]
    assert pieces_col == f"as {LABELS['cl100k_base']} tokens"
    enc = tiktoken_reference("cl100k_base")
    gpt2 = tiktoken_reference("r50k_base")
    for row in table.head(50).to_dict("records"):  # GPT-2's token, as cl100k encodes its text
        text = gpt2.decode([int(row["id"])])
        if "\ufffd" not in text:
            assert row["pieces"] == len(enc.encode_ordinary(text))
    at.segmented_control(key="overlap.pieces").set_value("1").run()
    assert (frame(at, "pieces")["pieces"] == 1).all()
    at.selectbox(key="overlap.source").set_value("cl100k_base").run()  # swap: cl100k's tokens under GPT-2
    assert at.selectbox(key="overlap.target").value == "r50k_base"
    table = frame(at, "pieces")
    assert [c for c in table.columns if c.startswith("as ")] == [f"as {LABELS['r50k_base']} tokens"]
    at.text_input(key="overlap.split_search").set_value("ing$").run()
    assert all(regex.search("ing$", t) for t in frame(at, "pieces")["token"])


def test_a_trained_and_an_uploaded_tokenizer(workspace):
    """Yours: one trained here and a tokenizer.json written by HF tokenizers and uploaded (kept in the workspace like any
    upload); GPT-2's tokens under the upload are what tokenizers itself encodes for them."""
    from hf_files import build, hf_ids, normalizers, pair, pre_tokenizers

    store = FolderStore(workspace)
    mine = train("the cat sat on the mat with the hat " * 20, 300, pattern="gpt4", name="mine", special_tokens=["<|endoftext|>"])
    store.add(mine, corpus="x")
    uploaded, ref = pair(
        build(
            normalizer=normalizers.NFC(),
            pre_tokenizer=pre_tokenizers.Sequence(
                [pre_tokenizers.Digits(True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
            ),
        )
    )
    uploaded.name = "uploaded"
    store.add(uploaded, source="uploaded")
    keys = ["user:" + e.key for e in store.entries()]
    at = app(keys=[*keys, "r50k_base"])
    assert not at.error
    summary = frame(at, "only here")
    assert summary["tokens"].tolist() == [
        len({b for i, b in mine.vocab.items() if i not in mine.special_ids}),
        len({b for i, b in uploaded.vocab.items() if i not in uploaded.special_ids}),
        len(set(tiktoken_reference("r50k_base").token_byte_values())),
    ]
    assert any("Special tokens" in c.value and "mine" in c.value for c in at.caption)
    at.selectbox(key="overlap.source").set_value("r50k_base").run()
    at.selectbox(key="overlap.target").set_value(keys[1]).run()
    table = frame(at, "pieces")
    gpt2 = tiktoken_reference("r50k_base")
    for row in table.head(60).to_dict("records"):
        text = gpt2.decode([int(row["id"])])
        if "\ufffd" not in text:
            assert row["pieces"] == len(hf_ids(ref, text, specials=False)), text


def test_a_result_about_official_encodings_is_computed_once_when_sessions_ask_together():
    """A class opening the page at once on a fresh server: one computation, the others wait for it and share it."""
    import threading
    import time

    from ui.common import cache
    from ui.overlap import model, view

    class Tok:
        pass

    toks = [cache.share(Tok()), cache.share(Tok())]
    chosen = [view.Chosen(f"k{i}", t, model.Vocab(f"k{i}", {})) for i, t in enumerate(toks)]
    calls, results = [], []

    def compute():
        calls.append(1)
        time.sleep(0.3)
        return object()

    threads = [threading.Thread(target=lambda: results.append(view._kept("test.once", chosen, (), compute))) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 5 and len({id(r) for r in results}) == 1

"""The training variants on the Train page and Step through, in AppTest: each trains from the page with its
defaults, shows what it changed, saves how it was trained, and steps through like any training."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawn import drawn
from streamlit.testing.v1 import AppTest
from texts import stdlib_sample

from classroom.stores import FolderStore
from tests import step_reference as reference
from tokenizer import formats, load_encoding, train
from tokenizer.bpe.continued import train_continued
from tokenizer.bpe.parity import join_parallel, train_parity
from tokenizer.bpe.superwords import train_superwords
from ui.compare import languages
from ui.render.markdown import md
from ui.step import model

ROOT = Path(__file__).resolve().parents[2]
TRAIN = str(ROOT / "pages" / "train.py")
STEP = str(ROOT / "pages" / "step.py")
TEXT = ("of the cat and of the dog, in the house of the king; " * 30) + "the end of the day.\n"
# code: GPT-2 cuts its names and indentation into pieces, so continued training has pairs to merge
DOMAIN = stdlib_sample(6_000)


def page() -> AppTest:
    at = AppTest.from_file(TRAIN, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def method(at, name: str) -> AppTest:
    at.segmented_control(key="variants.method").set_value(name).run()
    assert not at.exception
    return at


def train_button(at) -> AppTest:
    at.button(key="variants.go").click().run()
    assert not at.exception and not [e.value for e in at.error]
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def chart_titles(at) -> list[str]:
    """Each Vega-Lite chart's title (AppTest has no element for charts: read the spec from the proto)."""
    return [str(json.loads(c.proto.spec).get("title", "")) for c in at.get("vega_lite_chart")]


def saved(workspace):
    store = FolderStore(workspace)
    [entry] = store.entries()
    return store, entry.key, store.get(entry.key)


def test_every_method_says_what_it_does_and_where_it_comes_from(workspace):
    at = page()
    assert at.segmented_control(key="variants.method").value == "bpe"  # plain BPE stays the default
    for name, paper in (("parity", "2508.04796"), ("superwords", "2503.13423"), ("continued", "2512.03989")):
        method(at, name)
        assert any(paper in c.value for c in at.markdown), name


@pytest.mark.slow
def test_parity_with_its_defaults_shows_the_token_tax_of_both(workspace):
    at = method(page(), "parity")
    assert at.multiselect(key="variants.languages").value == list(languages.texts())  # every built-in language
    train_button(at)
    store, key, tok = saved(workspace)
    record = tok.metadata["training"]
    assert record["method"] == "parity" and record["languages"] == list(languages.texts())
    m = metrics(at)
    plain, fair = record["plain_language_tokens"], record["language_tokens"]
    assert (
        m["Spread, plain BPE"] == f"{max(plain) / min(plain):.2f}×"
        and m["Spread, parity-aware"] == f"{max(fair) / min(fair):.2f}×"
    )
    assert max(fair) / min(fair) < max(plain) / min(plain)  # on its own training texts, parity narrows the spread
    assert any("Token tax" in t for t in chart_titles(at))  # the side-by-side chart
    # the page trained what the core trains
    texts = languages.texts()
    want = train_parity(texts, 512, pattern="gpt4")
    assert tok.merge_list == want.merge_list
    assert store.corpus(key) == join_parallel(texts)


def test_parity_needs_two_languages_and_says_how_to_give_them(workspace):
    at = method(page(), "parity")
    at.multiselect(key="variants.languages").set_value(["English"]).run()
    assert any("at least two languages" in i.value for i in at.info)
    assert at.button(key="variants.go").disabled
    at.segmented_control(key="variants.source").set_value("paste").run()
    at.text_area(key="variants.paste").input("just one sentence").run()
    assert any("no language name" in e.value for e in at.error)
    at.text_area(key="variants.paste").input('{"English": "The cat sat.", "German": "Die Katze saß."}').run()
    assert not at.error and not at.button(key="variants.go").disabled
    train_button(at)
    _, _, tok = saved(workspace)
    assert tok.metadata["training"]["languages"] == ["English", "German"]


def test_tokens_across_words_from_the_page(workspace):
    at = method(page(), "superwords")
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(TEXT)
    at.number_input(key="train.vocab_size").set_value(320).run()
    at.slider(key="variants.share").set_value(50).run()
    assert any("Merges 1 to 32 within words" in c.value for c in at.caption)
    train_button(at)
    _, _, tok = saved(workspace)
    want = train_superwords(TEXT, 320, "gpt4", transition=288)
    assert tok.merge_list == want.merge_list and tok.metadata["training"]["transition"] == 288
    m = metrics(at)
    assert m["Tokens, across words"] == f"{tok.metadata['tokens_after']:,}"
    assert m["Tokens, plain BPE"] == f"{train(TEXT, 320, 'gpt4').metadata['tokens_after']:,}"
    assert int(m["Tokens that cross words"]) > 0
    # the same text under both, tokens that cross words outlined
    outlined = [h for h in drawn(at) if "bpe-spans" in h and re.search(r'class="t[^"]*\bhl\b', h)]
    assert outlined


@pytest.mark.slow
def test_continue_gpt2_keeps_its_ids(workspace):
    at = method(page(), "continued")
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(DOMAIN).run()
    assert at.selectbox(key="variants.base").value == "r50k_base"
    assert any("split pattern (**gpt2**) is kept" in c.value for c in at.caption)
    at.number_input(key="variants.new_merges").set_value(20).run()
    train_button(at)
    _, _, tok = saved(workspace)
    base = load_encoding("r50k_base")
    assert tok.n_vocab == base.n_vocab + 20 and tok.special_tokens == base.special_tokens
    assert tok.merge_list[: base.num_merges] == base.merge_list
    m = metrics(at)
    assert m[f"Tokens, {md('r50k_base')}"] == f"{len(base.encode_ordinary(DOMAIN)):,}"
    assert m["Tokens, continued"] == f"{len(tok.encode_ordinary(DOMAIN)):,}"
    assert m["New tokens"] == "20"
    assert any("ids 50,257 to 50,276" in c.value for c in at.caption)


def test_continue_your_own_tokenizer(workspace):
    own = train(TEXT, 300, pattern="gpt2", name="mine")
    FolderStore(workspace).add(own, corpus=TEXT)
    at = method(page(), "continued")
    options = at.selectbox(key="variants.base").options
    assert any("mine" in o for o in options)
    key = next(k for k in FolderStore(workspace).keys())
    at.selectbox(key="variants.base").set_value(f"user:{key}").run()
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input("completely different words, different words").run()
    at.number_input(key="variants.new_merges").set_value(5).run()
    train_button(at)
    store = FolderStore(workspace)
    new = [store.get(e.key) for e in store.entries() if e.key != key]
    assert new and new[0].merge_list[: own.num_merges] == own.merge_list and new[0].n_vocab == own.n_vocab + 5


def test_a_variant_saved_in_the_workspace_loads_back_and_downloads(workspace):
    texts = {"English": "the cat sat on the mat", "German": "die Katze sitzt auf der Matte"}
    tok = train_parity(texts, 280, baseline=True, name="fair")
    FolderStore(workspace).add(tok, corpus=join_parallel(texts))
    at = page()  # a new session: the tokenizer comes from the file
    assert any("Parity-aware: what changed" in s.value for s in at.subheader)
    back = formats.load(next(workspace.glob("*.json")))
    assert back.metadata["training"] == tok.metadata["training"]


# ----------------------------------------------------------------------------- Step through
# The stepping runs in the page (ui/step/stepper.js, tests/browser/test_train_variants.py): here, what the server
# sends it, read back with ui/step/payload.py's Replay, and the top pairs it sends for a window of steps.


def step(key: str, k: int) -> AppTest:
    at = AppTest.from_file(STEP, default_timeout=120)
    at.query_params.update({"mode": "training", "tokenizer": f"user:{key}", "step": str(k)})
    at.run()
    assert not at.exception and not at.error
    return at


def _component(at, name: str):
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    return el


def sent(at) -> reference.Replay:
    return reference.Replay(json.loads(_component(at, "bpe_lab_stepper").proto.bytes)["trace"])


def top_pairs(at) -> dict:
    """The window of top pairs the server sent: ``{"from": k, "pairs": [[left, right, count, ...], ...]}``."""
    return json.loads(_component(at, "bpe_lab_step_pairs").proto.json)


def test_step_through_a_parity_training_sends_the_language_each_merge_serves(workspace):
    texts = {lang: languages.texts()[lang] for lang in ("English", "Greek", "Hindi")}
    tok = train_parity(texts, 300, pattern="gpt4", name="fair")
    key = FolderStore(workspace).add(tok, corpus=join_parallel(texts))
    for k in (0, 10, 40):
        at = step(key, k)
        r = sent(at)
        assert r.served(k) == list(texts)[tok.training.served[k]]
        assert r.language_tokens(k) == tok.training.language_tokens_at(k)
        window = top_pairs(at)
        assert window["from"] == k
        for i, row in enumerate(window["pairs"]):
            # the served language's top pair is the merge that step took, with its count there
            assert (row[0], row[1], row[2]) == (*tok.merge_list[k + i].pair, tok.merge_list[k + i].count)


def test_step_through_tokens_across_words_shows_each_stage_as_it_cut_the_text(workspace):
    sup = train_superwords(TEXT, 300, "gpt4", transition=280, name="sup")
    t = sup.training.stage1_merges
    key = FolderStore(workspace).add(sup, corpus=TEXT)
    at = step(key, t + 5)
    r = sent(at)
    assert r.variant["stage1"] == t
    excerpt = TEXT[: len(r.data.decode("utf-8"))]
    for k in (0, t - 1, t, t + 5, sup.num_merges):
        cut = model.excerpt_trace(model.stage_tokenizer(sup, sup.training, k), excerpt)
        assert r.spans(k) == reference.training_view(sup, sup.training, cut, k).spans, k
    # before the transition no token crosses a word; after it "of the"-like tokens do
    assert not any(b" " in s.bytes.strip() for s in r.spans(t - 1))
    assert any(b" " in s.bytes.strip() for s in r.spans(sup.num_merges))
    assert [tuple(top_pairs(at)["pairs"][0][:2])] == [sup.merge_list[t + 5].pair]


def test_step_through_a_continued_training_marks_the_base_merges(workspace):
    base = train(TEXT, 290, "gpt4", name="base")
    new = "the king of the house, the house of the king " * 10
    cont = train_continued(new, base.n_vocab + 10, base=base, name="cont")
    key = FolderStore(workspace).add(cont, corpus=new)
    at = step(key, base.num_merges)
    r = sent(at)
    assert r.variant == {"kind": "continued", "firstLearned": base.num_merges, "base": "base"}
    assert tuple(top_pairs(at)["pairs"][0][:2]) == cont.merge_list[base.num_merges].pair  # its own: the top pair
    at = step(key, 2)
    assert top_pairs(at)["from"] == 2  # the base's merges replayed: counted on this text too


def test_step_through_a_continued_gpt2_replays_its_bytes(workspace):
    """GPT-2's byte tokens have ids of their own (not the byte's value): the page is sent them."""
    gpt2 = load_encoding("r50k_base")
    cont = train_continued(DOMAIN, gpt2.n_vocab + 20, base=gpt2, name="gpt2 on code")
    key = FolderStore(workspace).add(cont, corpus=DOMAIN)
    at = step(key, gpt2.num_merges + 3)
    r = sent(at)
    excerpt = DOMAIN[: len(r.data.decode("utf-8"))]
    etrace = model.excerpt_trace(cont, excerpt)
    for k in (0, 1000, gpt2.num_merges, cont.num_merges):
        assert r.spans(k) == reference.training_view(cont, cont.training, etrace, k).spans, k

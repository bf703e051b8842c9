"""The Vocabulary page in AppTest: browse, filter, jump, merge trees, longest and unused tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from drawn import drawn
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import load_encoding, train

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "vocabulary.py")
CORPUS = "Honolulu honolulu lulu " * 20 + "the cat in the hat sat on the mat " * 20


@pytest.fixture
def mine(workspace):
    tok = train(CORPUS, 300, pattern="gpt2", name="hula")
    return "user:" + FolderStore(workspace).add(tok, corpus=CORPUS), tok


def run() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def table(at):
    return at.dataframe[0].value


def tree_html(at) -> str:
    [html] = [h for h in drawn(at) if '<div class="bpe-tree">' in h]
    return html


def test_page_runs_on_its_own(workspace):
    at = run()
    assert at.selectbox(key="vocab.tokenizer").value == "cl100k_base"
    assert at.metric[0].value == f"{len(load_encoding('cl100k_base').vocab):,}"
    assert len(table(at)) == 1000  # the first thousand of 100k
    assert "tree" in tree_html(at)


def test_seed_001_gpt2_ids_240_to_270(workspace):
    at = run()
    at.button(key="vocab.seed001").click().run()
    assert at.selectbox(key="vocab.tokenizer").value == "r50k_base"
    df = table(at)
    assert df["id"].tolist() == list(range(240, 271))
    row = df.set_index("id").loc[256]
    assert (row["token"], row["GPT-2 form"], row["merged from"]) == ("·t", "Ġt", "· + t")
    assert df.set_index("id").loc[240, "token"].startswith("<")  # a byte that is not a character alone
    assert at.number_input(key="vocab.tree_id").value == 256
    html = tree_html(at)
    assert html.count('class="node') == 3  # ' t' from ' ' and 't'


def test_filters_by_length_kind_and_regex(mine):
    key, tok = mine
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    assert at.metric[0].value == f"{len(tok.vocab):,}"
    at.selectbox(key="vocab.kind").set_value("merged").run()
    assert len(table(at)) == tok.num_merges
    longest = max(len(b) for b in tok.vocab.values())
    at.slider(key="vocab.lengths").set_value((4, longest)).run()
    assert (table(at)["bytes"] >= 4).all()
    at.text_input(key="vocab.regex").input(r"^\slu").run()
    df = table(at)
    assert len(df) > 0 and df["token"].str.startswith("·lu").all()
    at.number_input(key="vocab.id_from").set_value(290).run()
    assert (table(at)["id"] >= 290).all()
    at.button(key="vocab.reset").click().run()
    assert len(table(at)) == len(tok.vocab)


def test_bad_regexes_are_messages(mine):
    key, tok = mine
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    at.text_input(key="vocab.regex").input("(oops").run()
    assert any("not a valid regex" in e.value for e in at.error)
    at.text_input(key="vocab.regex").input("").run()
    assert not at.error and len(table(at)) == len(tok.vocab)


def test_merge_tree_by_id_and_by_text(mine):
    key, tok = mine
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    longest = max((m.new_id for m in tok.merge_list), key=lambda i: len(tok.vocab[i]))
    at.number_input(key="vocab.tree_id").set_value(longest).run()
    html = tree_html(at)
    assert html.count('class="node') == 2 * len(tok.vocab[longest]) - 1
    assert html.count("node leaf") == len(tok.vocab[longest])
    at.text_input(key="vocab.tree_text").input(" honolulu").run()
    tid = tok.encode_single_token(" honolulu")
    assert at.number_input(key="vocab.tree_id").value == tid
    assert f"id {tid} · rank " in tree_html(at)
    at.text_input(key="vocab.tree_text").input("not a token at all").run()
    assert any("is not one token" in w.value for w in at.warning)


def test_longest_and_never_produced_on_the_training_text(mine):
    key, tok = mine
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    at.segmented_control(key="vocab.usage_source").set_value("training").run()
    ids = tok.encode(CORPUS)
    produced = {i for i in ids if i >= 256}
    never_df = at.dataframe[2].value
    assert set(never_df["id"]) == {m.new_id for m in tok.merge_list} - produced
    assert next(m for m in at.metric if m.label == "Never produced").value == f"{tok.num_merges - len(produced):,}"
    longest = at.dataframe[1].value
    assert longest["bytes"].iloc[0] == max(len(b) for b in tok.vocab.values())


@pytest.mark.slow
def test_o200k_vocabulary_browses(workspace):
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value("o200k_base").run()
    assert at.metric[0].value == f"{len(load_encoding('o200k_base').vocab):,}"
    at.number_input(key="vocab.id_from").set_value(199_990).run()
    assert table(at)["id"].min() >= 199_990


def test_filters_survive_a_switch_to_another_page_and_back(mine):
    key, tok = mine
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/vocabulary.py").run()
    assert not at.exception
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    longest = max(len(b) for b in tok.vocab.values())
    at.selectbox(key="vocab.kind").set_value("merged")
    at.number_input(key="vocab.id_from").set_value(260)
    at.number_input(key="vocab.id_to").set_value(295)
    at.slider(key="vocab.lengths").set_value((2, longest))
    at.text_input(key="vocab.regex").input("u")
    at.segmented_control(key="vocab.usage_source").set_value("training")
    at.number_input(key="vocab.rare_max").set_value(5)
    at.run()
    before = table(at)
    assert 0 < len(before) < 36
    for page in ("pages/tokenize.py", "pages/step.py"):
        at.switch_page(page).run()
        assert not at.exception
        at.switch_page("pages/vocabulary.py").run()
        assert not at.exception
        assert at.selectbox(key="vocab.tokenizer").value == key
        assert at.selectbox(key="vocab.kind").value == "merged"
        assert (at.number_input(key="vocab.id_from").value, at.number_input(key="vocab.id_to").value) == (260, 295)
        assert at.slider(key="vocab.lengths").value == (2, longest)
        assert at.text_input(key="vocab.regex").value == "u"
        assert at.segmented_control(key="vocab.usage_source").value == "training"
        assert at.number_input(key="vocab.rare_max").value == 5
        assert table(at)["id"].tolist() == before["id"].tolist()


# ----------------------------------------------------------------------------- the open models


@pytest.mark.slow
@pytest.mark.parametrize("name", ["p50k_base", "o200k_harmony", "llama3", "llama4", "qwen2.5", "qwen3.6", "tekken"])
def test_every_open_model_browses_with_its_special_tokens(workspace, name):
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value(name).run()
    assert not at.exception
    tok = load_encoding(name)
    assert at.metric[0].value == f"{len(tok.vocab):,}"
    assert at.metric[2].value == f"{len(tok.special_tokens):,}"
    specials = next(d.value for d in at.dataframe if list(d.value.columns) == ["id", "token", "use"])
    assert dict(zip(specials["token"], specials["id"])) == tok.special_tokens
    fmt = __import__("tokenizer").registry.spec(name).chat
    if fmt is not None:
        assert set(specials.loc[specials["use"] == "chat format", "token"]) == {
            p for p in fmt.tokens() if p in tok.special_tokens
        }


def test_llama3_whole_chunk_tokens_are_listed_and_explained(workspace):
    at = run()
    at.selectbox(key="vocab.tokenizer").set_value("llama3").run()
    at.selectbox(key="vocab.kind").set_value("whole").run()
    assert any("588 tokens are built by no merge" in c.value for c in at.caption)
    assert "merged from" in table(at).columns and set(table(at)["merged from"]) == {""}
    tok = load_encoding("llama3")
    assert set(table(at)["id"]) == set(tok.whole_tokens)
    at.text_input(key="vocab.tree_text").input(" việc").run()
    assert at.number_input(key="vocab.tree_id").value == tok.encode_single_token(" việc")
    assert any("whole-chunk token" in c.value for c in at.caption)

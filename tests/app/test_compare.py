"""The Compare page, driven with Streamlit's AppTest: counts equal tiktoken's, nothing crashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken
from drawn import page_html, render
from live_view import payload, type_text
from merge_trees import core_labels, tree_labels
from model_packages import package_reference, reference_encode
from streamlit.testing.v1 import AppTest

from tokenizer import load_encoding, registry
from ui.common.user_text import MAX_CHARS
from ui.compare import model, rows
from ui.content import samples

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "compare.py")
OFFICIAL = ["r50k_base", "cl100k_base", "o200k_base"]
DEFAULT = ["r50k_base", "o200k_base", "llama3"]  # GPT-2, GPT-4o and an open model
LABELS = {s.name: s.label for s in registry.specs()}
MIXED = "Hello 你好 — tokenization! 🤚🏾 x = 1234567890\n\tdef f():  return 'ok'\n"


def enc(name: str) -> tiktoken.Encoding:
    """The model's own reference (bench/model_packages.py): tiktoken's registry for OpenAI's, the packages' for the others."""
    return package_reference(name)


def app(text: str | None = None, keys: list[str] | None = None, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    if keys is not None:
        at.multiselect(key="compare.tokenizers").set_value(keys)
    if text is not None:
        at.text_area(key="compare.text").set_value(text)
    if keys is not None or text is not None:
        at.run()
        assert not at.exception, at.exception
    return at


def stats(at: AppTest):
    df = next(d.value for d in at.dataframe if "tokenizer" in d.value.columns and "whole words %" in d.value.columns)
    return df.set_index("tokenizer")


def rows_sent(at: AppTest) -> dict:
    """What the rows' component (ui/compare/rows.py) was given: ``{"sig", "tokens", "rows", "tree"}``."""
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_compare_rows"]
    return json.loads(el.proto.json)


def rows_html(at: AppTest) -> str:
    """The page's HTML: what st.html shows and the rows (and the panel under a clicked token) the browser draws."""
    return page_html(at)


@pytest.mark.slow
def test_default_compares_gpt2_gpt4o_and_llama3():
    at = app()
    assert at.multiselect(key="compare.tokenizers").value == DEFAULT
    df = stats(at)
    for key in DEFAULT:
        assert df.loc[LABELS[key], "tokens"] == len(enc(key).encode(samples.DEFAULT_TEXT))
    html_text = rows_html(at)
    assert html_text.count('class="bpe-row"') == 3
    assert len(at.get("vega_lite_chart")) == 4  # statistics, token tax, vocabulary used and leaderboard


def test_default_starts_with_your_latest_tokenizer(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    store = FolderStore(workspace)
    store.add(train(samples.SAMPLES["English prose"], 280, name="older"))
    tok = train(samples.SAMPLES["Python code"] * 3, 300, name="newest")
    key = "user:" + store.add(tok)
    at = app(MIXED)
    assert at.multiselect(key="compare.tokenizers").value == [key, *DEFAULT]
    df = stats(at)
    label = next(i for i in df.index if i.startswith("newest"))
    assert df.loc[label, "tokens"] == len(tok.encode(MIXED))


@pytest.mark.slow
@pytest.mark.parametrize("sample", samples.names())
def test_counts_equal_tiktoken_and_baselines(sample):
    text = samples.SAMPLES[sample]
    at = app(text, [*OFFICIAL, "bytes", "chars"])
    df = stats(at)
    for key in OFFICIAL:
        n = len(enc(key).encode(text, disallowed_special=()))
        assert df.loc[LABELS[key], "tokens"] == n
        assert df.loc[LABELS[key], "bytes/token"] == round(len(text.encode()) / n, 3)
    assert df.loc["UTF-8 bytes", "tokens"] == len(text.encode())
    assert df.loc["Characters", "tokens"] == len(text)
    assert df.loc["Characters", "chars/token"] == 1.0


def test_special_tokens_toggle():
    text = "a<|endoftext|>b <|endoftext|>"
    at = app(text, OFFICIAL)
    for key in OFFICIAL:
        assert stats(at).loc[LABELS[key], "tokens"] == len(enc(key).encode(text, disallowed_special=()))
    at.toggle(key="compare.special").set_value(True).run()
    assert not at.exception
    for key in OFFICIAL:
        assert stats(at).loc[LABELS[key], "tokens"] == len(enc(key).encode(text, allowed_special="all"))
    assert 'class="t sp' in rows_html(at)


def test_whitespace_and_difference_toggles():
    at = app("Hello world\n\n  indentation", ["r50k_base", "cl100k_base"])
    assert 'class="cut"' in rows_html(at) and " dim" in rows_html(at)
    assert 'class="ws"' not in rows_html(at)
    at.toggle(key="compare.whitespace").set_value(True)
    at.toggle(key="compare.diff").set_value(False)
    at.run()
    assert not at.exception
    assert 'class="ws"' in rows_html(at)
    assert 'class="cut"' not in rows_html(at) and " dim" not in rows_html(at)


def pieces(key: str, text: str) -> str:
    e = enc(key)
    return " | ".join(e.decode_single_token_bytes(t).decode().replace(" ", "·") for t in e.encode(text))


def test_boundary_diff_table():
    at = app("I don't", ["cl100k_base", "o200k_base"])
    assert pieces("cl100k_base", " don't") != pieces("o200k_base", " don't")
    table = next(d.value for d in at.table if "bytes" in d.value.columns and "text" in d.value.columns)
    row = table.iloc[0]
    assert row["text"] == "·don't"
    for key in ["cl100k_base", "o200k_base"]:
        assert row[LABELS[key]] == pieces(key, " don't")
    assert any("**1 of 2**" in m.value for m in at.markdown)


def test_boundary_diff_when_all_agree():
    at = app("indivisible", OFFICIAL)
    assert any("**0 of 3**" in m.value and "100%" in m.value for m in at.markdown)
    assert 'class="cut"' not in rows_html(at)


def test_leaderboard_matches_tiktoken():
    at = app(keys=["cl100k_base", "chars"])
    board = next(d.value for d in at.table if "best" in d.value.columns)
    for name, text in samples.SAMPLES.items():
        n = len(enc("cl100k_base").encode(text))
        assert board.loc[name, LABELS["cl100k_base"]] == round(len(text.encode()) / n, 3)
        assert board.loc[name, "Characters"] == round(len(text.encode()) / len(text), 3)
    at.segmented_control(key="compare.metric").set_value("tokens").run()
    board = next(d.value for d in at.table if "best" in d.value.columns)
    assert board.loc["Emoji", LABELS["cl100k_base"]] == len(enc("cl100k_base").encode(samples.SAMPLES["Emoji"]))
    assert board.loc["Emoji", "best"] == LABELS["cl100k_base"]


def test_html_in_text_and_in_tokenizer_names_is_escaped(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    key = "user:" + FolderStore(workspace).add(train("aaab" * 20, 260, name='<img src=x onerror="alert(1)">'))
    text = "<script>alert(1)</script><img src=x onerror=\"document.title='pwned'\">"
    at = app(text, [key, "cl100k_base"])
    body = rows_html(at)
    assert "<script" not in body and "<img" not in body
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in body
    assert not at.exception


def test_empty_text_and_no_tokenizers():
    at = app("", OFFICIAL)
    assert any("Nothing to compare" in i.value for i in at.info)
    assert any("best" in d.value.columns for d in at.table), "the leaderboard does not need the text"
    at.multiselect(key="compare.tokenizers").set_value([]).run()
    assert not at.exception
    assert any("Choose one or more tokenizers" in i.value for i in at.info)


@pytest.mark.slow
def test_big_paste_is_cut_at_the_limit():
    unit = "Tokenizers compress text into tokens, some better than others. "
    text = unit * (MAX_CHARS // len(unit) + 100)
    at = app(text, ["cl100k_base", "bytes"])
    assert any(f"{MAX_CHARS:,}" in w.value for w in at.warning)
    df = stats(at)
    assert df.loc[LABELS["cl100k_base"], "tokens"] == len(enc("cl100k_base").encode(text[:MAX_CHARS]))
    assert df.loc["UTF-8 bytes", "tokens"] == MAX_CHARS
    assert f"at most {model.SPAN_LIMIT:,}" in "".join(c.value for c in at.caption)


def test_a_link_restores_tokenizers_and_text():
    at = app(query={"tokenizers": "o200k_base,chars,nope", "text": "Hello 你好"})
    assert at.multiselect(key="compare.tokenizers").value == ["o200k_base", "chars"]
    assert at.text_area(key="compare.text").value == "Hello 你好"
    assert any("nope" in w.value for w in at.warning)
    assert stats(at).loc[LABELS["o200k_base"], "tokens"] == len(enc("o200k_base").encode("Hello 你好"))
    assert at.query_params == {"tokenizers": "o200k_base,chars", "text": "Hello 你好"}


@pytest.mark.parametrize(
    "raw", ["cl100k_base,cl100k_base", "cl100k_base,chars,cl100k_base", ",cl100k_base,,cl100k_base,", "chars,chars,chars"]
)
def test_a_link_naming_a_tokenizer_twice_compares_it_once(raw):
    at = app(query={"tokenizers": raw, "text": "Hello 你好"})
    assert not at.exception, at.exception
    wanted = list(dict.fromkeys(k for k in raw.split(",") if k))
    assert at.multiselect(key="compare.tokenizers").value == wanted
    table = stats(at)
    assert len(table) == len(wanted) and table.index.is_unique
    if "cl100k_base" in wanted:
        assert table.loc[LABELS["cl100k_base"], "tokens"] == len(enc("cl100k_base").encode("Hello 你好"))
    assert at.query_params["tokenizers"] == ",".join(wanted)


def test_sample_menu_loads_a_sample():
    at = app()
    at.selectbox(key="compare.sample").set_value("Numbers").run()
    assert at.text_area(key="compare.text").value == samples.SAMPLES["Numbers"]


def test_text_survives_a_switch_between_pages():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    type_text(at, "shared between pages").run()  # what the live view's box tells the server
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.text_area(key="compare.text").value == "shared between pages"
    at.text_area(key="compare.text").set_value("and back again").run()
    at.switch_page("pages/tokenize.py").run()
    assert payload(at)["text"] == "and back again"


def test_whole_words_share():
    at = app("the cat sat on the mat", ["cl100k_base", "chars"])
    df = stats(at)
    assert df.loc[LABELS["cl100k_base"], "whole words %"] == 100.0
    assert df.loc["Characters", "whole words %"] == 0.0


def test_choices_survive_a_switch_between_pages():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.toggle(key="tokenize.whitespace").set_value(True)
    at.segmented_control(key="tokenize.special").set_value("recognise")
    at.selectbox(key="tokenize.tokenizer").set_value("o200k_base")
    at.run()
    at.switch_page("pages/compare.py").run()
    at.toggle(key="compare.diff").set_value(False)
    at.multiselect(key="compare.tokenizers").set_value(["chars", "r50k_base"])
    at.run()
    at.switch_page("pages/tokenize.py").run()
    assert at.toggle(key="tokenize.whitespace").value is True
    assert at.segmented_control(key="tokenize.special").value == "recognise"
    assert at.selectbox(key="tokenize.tokenizer").value == "o200k_base"
    at.switch_page("pages/compare.py").run()
    assert at.toggle(key="compare.diff").value is False
    assert at.multiselect(key="compare.tokenizers").value == ["chars", "r50k_base"]
    assert not at.exception


def test_a_deleted_tokenizer_drops_out_of_the_choice(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    store = FolderStore(workspace)
    key = store.add(train("abababab" * 10, 260, name="short-lived"))
    at = app("abab")
    assert at.multiselect(key="compare.tokenizers").value == ["user:" + key, *DEFAULT]
    store.delete(key)
    at.run()
    assert not at.exception
    assert at.multiselect(key="compare.tokenizers").value == DEFAULT


# ----------------------------------------------------------------------------- the open models


FAMILIES = ["o200k_base", "llama3", "qwen2.5", "tekken", "deepseek_v4"]  # OpenAI, Meta, Qwen, Mistral, DeepSeek; and yours


@pytest.mark.slow
def test_every_family_side_by_side_counts_as_its_reference(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    mine = train(samples.SAMPLES["English prose"] * 2, 400, name="mine")
    key = "user:" + FolderStore(workspace).add(mine)
    at = app(MIXED, [*FAMILIES, key])
    df = stats(at)
    for name in FAMILIES[:3]:
        assert df.loc[LABELS[name], "tokens"] == len(enc(name).encode(MIXED))
    assert df.loc[LABELS["tekken"], "tokens"] == len(load_encoding("tekken").encode_ordinary(MIXED))
    assert df.loc[LABELS["deepseek_v4"], "tokens"] == len(reference_encode("deepseek_v4")(MIXED))
    assert df.loc[next(i for i in df.index if i.startswith("mine")), "tokens"] == len(mine.encode(MIXED))
    assert rows_html(at).count('class="bpe-row"') == 6


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in registry.names() if n not in OFFICIAL])
def test_every_open_model_compares(name):
    at = app("Tokenizers differ: 你好, 1234567, don't\n", [name, "cl100k_base"])
    assert stats(at).loc[LABELS[name], "tokens"] == len(reference_encode(name)("Tokenizers differ: 你好, 1234567, don't\n"))


@pytest.mark.slow
def test_the_leaderboard_can_cover_every_model():
    at = app(keys=["cl100k_base"])
    at.segmented_control(key="compare.board").set_value("every").run()
    assert not at.exception
    board = next(d.value for d in at.table if "best" in d.value.columns)
    expected = ["cl100k_base"] + [n for n in registry.names() if n != "cl100k_base"]  # the chosen first, then every other
    assert [c for c in board.columns if c != "best"] == [LABELS[n] for n in expected]
    text = samples.SAMPLES["Python code"]
    assert board.loc["Python code", LABELS["qwen3.6"]] == round(len(text.encode()) / len(enc("qwen3.6").encode(text)), 3)


def test_the_menu_groups_by_family_and_marks_a_missing_model(tmp_path, monkeypatch):
    at = app()
    ms = at.multiselect(key="compare.tokenizers")
    assert ms.options[:5] == [f"OpenAI · {LABELS[n]}" for n in registry.names()[:5]]
    assert "Meta · Llama 4" in ms.options and "Mistral · Mistral Tekken (NeMo, Pixtral)" in ms.options
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))  # the open models' files are not there
    at = app()
    assert at.multiselect(key="compare.tokenizers").value == ["r50k_base", "o200k_base"]  # the default leaves Llama 3 out
    assert "Meta · Llama 3 (3.1, 3.2, 3.3) (not installed)" in at.multiselect(key="compare.tokenizers").options
    at.multiselect(key="compare.tokenizers").set_value(["llama3", "o200k_base"]).run()
    assert not at.exception
    [err] = [e.value for e in at.error]
    assert "Llama 3 (3.1, 3.2, 3.3) is not installed" in err and "python -m tokenizer provision llama3" in err
    assert any("Left out, not installed on this server: Llama 3" in c.value for c in at.caption)  # token tax: no second error
    assert rows_html(at).count('class="bpe-row"') == 1


# ---------------------------------------------------------------- a click on a token: how it was built


def pick(at: AppTest, row: int, index: int, tid: int, *, sig: str | None = None) -> dict | None:
    """Report a click as the page does (rows.js sets the component's state; the callback copies it) and rerun."""
    at.session_state["compare.picked"] = {"row": row, "index": index, "id": tid, "sig": sig or rows_sent(at)["tokens"]}
    at.run()
    assert not at.exception, at.exception
    tree = rows_sent(at)["tree"]  # with the panel's HTML as the browser draws it
    return None if tree is None else tree | {"html": render([{"kind": "panel", "panel": tree["panel"]}])[0]}


def test_a_click_shows_how_the_token_was_built_for_every_kind_of_tokenizer(workspace):
    """A click in each row, for OpenAI's, an open model, a tokenizer.json (DeepSeek V4) and one of yours: the tree's
    leaves are the token's bytes and its boxes name the core's ranks. (Every token of such texts is
    checked against the core without the page in tests/ui/render/test_trees.py.)"""
    from classroom.stores import FolderStore
    from tokenizer import train

    text = "Tokenization of internationalization: 你好世界, 🤚🏾, x = 1234567890;\n\tdef f(): return 'ok'"
    mine = train(text * 5 + " internationalization" * 30, 400, name="mine")
    key = "user:" + FolderStore(workspace).add(mine)
    keys = ["r50k_base", "llama3", "deepseek_v4", key]
    at = app(text, keys)
    assert rows_sent(at)["tree"] is None  # nothing until a click
    assert any("Click a token to see how it was built" in c.value for c in at.caption)
    toks = [load_encoding(k) for k in keys[:3]] + [mine]
    for row, tok in enumerate(toks):
        ids = tok.encode(text)
        by_length = sorted(range(len(ids)), key=lambda i: -len(tok.decode_single_token_bytes(ids[i])))
        for index in [*by_length[:2], by_length[-1]]:  # the two longest tokens and a shortest
            tid = ids[index]
            tree = pick(at, row, index, tid)
            assert (tree["row"], tree["index"], tree["id"]) == (row, index, tid)
            merged, leaves = tree_labels(tree["html"])
            assert (merged, leaves) == core_labels(tok, tid), (keys[row], tid)
            assert f"id {tid} ·" in tree["html"]
        assert len(core_labels(tok, ids[by_length[0]])[0]) >= 3  # a token with a real tree in each row


def test_a_stale_or_wrong_click_shows_nothing():
    at = app("Hello world, hello tokens", ["r50k_base", "o200k_base"])
    ids = load_encoding("o200k_base").encode("Hello world, hello tokens")
    assert pick(at, 1, 1, ids[1])["id"] == ids[1]
    assert pick(at, 1, 1, ids[1] + 1) is None  # another id at that place
    assert pick(at, 2, 0, ids[0]) is None  # no third row
    assert pick(at, 1, len(ids), ids[0]) is None  # past the row's end
    assert pick(at, 1, 1, ids[1], sig="from other rows") is None
    sig = rows_sent(at)["tokens"]
    sent = rows_sent(at)  # the rows' signature, kept with their HTML in the session's cache: that of the HTML sent
    assert sent["sig"] == rows.signature((sent["rows"], sent["options"]["showWhitespace"]))
    at.text_area(key="compare.text").set_value("Another text entirely").run()  # the old click is about other tokens
    assert rows_sent(at)["tokens"] != sig and rows_sent(at)["tree"] is None
    assert rows_sent(at)["sig"] == rows.signature((rows_sent(at)["rows"], False)) != sent["sig"]
    at.session_state["compare.picked"] = {"row": "0", "index": None, "id": -1, "sig": rows_sent(at)["tokens"]}
    at.run()
    assert not at.exception and rows_sent(at)["tree"] is None


def test_showing_whitespace_keeps_the_click():
    at = app("Hello world", ["r50k_base"])
    ids = load_encoding("r50k_base").encode("Hello world")
    assert pick(at, 0, 1, ids[1]) is not None
    at.toggle(key="compare.whitespace").set_value(True).run()
    assert rows_sent(at)["tree"]["id"] == ids[1]


def test_a_special_token_and_a_byte_say_why_they_have_no_merges():
    text = "a<|endoftext|>\x00"
    at = app(text, ["cl100k_base"])
    at.toggle(key="compare.special").set_value(True).run()
    tok = load_encoding("cl100k_base")
    ids = tok.encode(text, allowed_special="all")
    assert ids[1] == tok.eot_token
    assert "A special token" in pick(at, 0, 1, ids[1])["html"]
    tree = pick(at, 0, 2, ids[2])
    assert "A single byte" in tree["html"] and tree_labels(tree["html"]) == ([], ["byte 00"])


def test_the_tree_escapes_the_tokens_it_shows(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    text = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    mine = train(text * 20, 330, name="<b>mine</b>")
    key = "user:" + FolderStore(workspace).add(mine)
    at = app(text, [key])
    ids = mine.encode(text)
    for index, tid in enumerate(ids):
        html_text = pick(at, 0, index, tid)["html"]
        assert "<img" not in html_text and "<script" not in html_text and "<b>mine" not in html_text

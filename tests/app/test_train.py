"""The Train page in AppTest: train a tiny corpus, every bad input, the workspace actions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawn import drawn
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import formats, train
from ui.common.upload import MAX_UPLOAD_BYTES
from ui.content import corpora
from ui.render.markdown import md

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "train.py")


def page(**kwargs) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception
    return at


def errors(at) -> list[str]:
    """The error messages as the student reads them (the page escapes what they quote from the student's input)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]


def paste(at, text: str, vocab: int, pattern: str = "none") -> AppTest:
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(text)
    at.selectbox(key="train.pattern").set_value(pattern)
    at.number_input(key="train.vocab_size").set_value(vocab)
    return at.run()


def press_train(at) -> AppTest:
    return at.button(key="train.go").click().run()


def test_page_runs_on_its_own(workspace):
    at = page()
    assert at.title[0].value.endswith("Train")
    assert at.segmented_control(key="train.source").value == "sample"
    assert any("Nothing trained yet" in i.value for i in at.info)
    assert not at.button(key="train.go").disabled


def test_train_a_tiny_corpus(workspace):
    at = paste(page(), "aaabdaaabac", 259)
    press_train(at)
    assert not at.exception and not errors(at)
    assert any("3 merges" in s.value for s in at.success)
    df = at.dataframe[0].value
    assert df[["step", "left", "right", "new token", "count"]].values.tolist() == [
        [1, "a", "a", "aa", 4],
        [2, "aa", "a", "aaa", 2],
        [3, "aaa", "b", "aaab", 2],
    ]
    assert len(at.get("vega_lite_chart")) == 3  # merge counts, compression, vocabulary size vs compression
    [entry] = FolderStore(workspace).entries()
    assert entry.vocab_size == 259 and entry.has_corpus
    assert at.session_state["shared.tokenizer"] == f"user:{entry.key}"
    assert [m.value for m in at.metric][:2] == ["259", "3"]


def test_training_the_default_sample(workspace):
    at = press_train(page())
    assert not at.exception
    assert any("744 merges" in s.value for s in at.success)
    assert at.metric[0].value == "1,000"


def test_a_sample_suggests_its_settings_and_never_overwrites_them(workspace):
    """Picking a sample keeps the vocab size the user typed (2,000 must not become 1,000)."""
    at = page()
    at.number_input(key="train.vocab_size").set_value(2000).run()
    for sample in ("honolulu", "stdlib-source", "aaabdaaabac"):
        at.selectbox(key="train.sample").set_value(sample).run()
        assert at.number_input(key="train.vocab_size").value == 2000
        assert at.selectbox(key="train.pattern").value == "gpt4"
    c = corpora.CORPORA["aaabdaaabac"]
    assert any(f"suggests {c.vocab_size:,} tokens and no split pattern" in x.value for x in at.caption)
    at.button(key="train.suggest").click().run()  # "Use the suggested 259 · no split"
    assert at.number_input(key="train.vocab_size").value == c.vocab_size
    assert at.selectbox(key="train.pattern").value == "none"
    assert not any("The sample *" in x.value for x in at.caption)  # taken: nothing left to suggest
    press_train(at)
    assert at.dataframe[0].value["new token"].tolist() == ["aa", "aaa", "aaab"]


def test_a_sample_that_fits_the_settings_suggests_nothing(workspace):
    at = page()  # the default sample with its own settings
    assert not any("The sample *" in x.value for x in at.caption)
    assert not [b for b in at.button if b.key == "train.suggest"]


def test_split_pattern_and_special_tokens(workspace):
    at = paste(page(), "the cat<|endoftext|>the hat<|endoftext|>the mat", 270, pattern="gpt2")
    at.text_input(key="train.specials").input("<|endoftext|>").run()
    at.text_input(key="train.name").input("cats").run()
    press_train(at)
    tok = FolderStore(workspace).get(FolderStore(workspace).entries()[0].key)
    assert tok.name == "cats" and tok.pattern_name == "gpt2"
    assert tok.special_tokens == {"<|endoftext|>": 256 + tok.num_merges}
    assert all(b"<|" not in tok.vocab[m.new_id] for m in tok.merge_list)


def test_empty_corpus_is_a_message(workspace):
    at = paste(page(), "   ", 300)
    press_train(at)
    assert any("corpus is empty" in e for e in errors(at))
    assert FolderStore(workspace).entries() == []


@pytest.mark.parametrize("vocab, message", [(100, "at least 256"), (60_000, "too large")])
def test_vocab_size_out_of_range(workspace, vocab, message):
    at = page()
    at.number_input(key="train.vocab_size").set_value(vocab).run()
    assert any(message in e for e in errors(at))
    assert at.button(key="train.go").disabled


def test_invalid_custom_regex(workspace):
    at = page()
    at.selectbox(key="train.pattern").set_value("custom").run()
    assert not errors(at)  # the default custom pattern is fine
    assert "bpe-spans" in "".join(drawn(at))  # its chunks of a test sentence
    at.text_input(key="train.custom_pattern").input("(unclosed").run()
    assert any("not a valid regex" in e for e in errors(at))
    assert at.button(key="train.go").disabled


@pytest.mark.slow
def test_catastrophic_custom_regex_is_stopped(workspace):
    at = page()
    at.selectbox(key="train.pattern").set_value("custom").run()
    at.text_input(key="train.custom_pattern").input(r"(a|aa)+$").run()
    assert any("longer than" in e for e in errors(at))
    assert at.button(key="train.go").disabled


def upload(at, name: str, data: bytes) -> AppTest:
    at.segmented_control(key="train.source").set_value("upload").run()
    at.file_uploader(key="train.corpus_file").upload(name, data, "text/plain")
    return at.run()


def test_utf8_upload_trains(workspace):
    at = upload(page(), "notes.txt", ("héllo wörld " * 50).encode())
    assert not errors(at)
    at.number_input(key="train.vocab_size").set_value(270).run()
    press_train(at)
    assert any("merges" in s.value for s in at.success)


def test_non_utf8_upload_offers_replacement(workspace):
    at = upload(page(), "latin.txt", ("café crème " * 40).encode("latin-1"))
    assert any("not UTF-8" in e for e in errors(at))
    at.checkbox(key="train.replace").check().run()
    assert not errors(at)
    assert any("replaced by �" in c.value for c in at.caption)
    at.number_input(key="train.vocab_size").set_value(262).run()
    press_train(at)
    assert len(FolderStore(workspace).entries()) == 1


def test_binary_upload_is_refused(workspace):
    at = upload(page(), "cat.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)  # any file name is taken
    assert any("cat.png is not UTF-8 text: it looks like a PNG image" in e for e in errors(at))
    assert len(at.checkbox) == 0
    press_train(at)
    assert any("corpus is empty" in e for e in errors(at))


def test_upload_above_the_limit(workspace):
    at = upload(page(), "big.txt", b"a" * (MAX_UPLOAD_BYTES + 1))
    assert any("limited to 10 MB" in e for e in errors(at))


def test_corrupt_saved_tokenizer_is_reported_and_nothing_else_lost(workspace):
    store = FolderStore(workspace)
    key = store.add(train("hello hello world", 260, name="kept"), corpus="hello hello world")
    (workspace / "broken-000000.json").write_text('{"format": "bpe-lab/tokenizer", "vers', encoding="utf-8")
    at = page()
    assert any("broken-000000.json cannot be read" in w.value for w in at.warning)
    assert at.selectbox(key="train.selected").value == key
    at.button(key="train.drop.broken-000000").click().run()
    assert not at.warning and not (workspace / "broken-000000.json").exists()
    assert [e.key for e in FolderStore(workspace).entries()] == [key]


def test_rename_download_delete(workspace):
    at = press_train(paste(page(), "low lower lowest " * 5, 265))
    key = FolderStore(workspace).entries()[0].key
    at.text_input(key="train.rename").input("my lows").run()
    at.button(key="train.rename_go").click().run()
    assert FolderStore(workspace).entries()[0].name == "my lows"
    assert any("Renamed" in s.value for s in at.success)
    labels = [d.label for d in at.get("download_button")]
    assert labels == ["Download everything (.zip)", "BPE Lab JSON", "tiktoken", "HF tokenizer.json"]
    at.button(key="train.delete").click().run()
    assert any("cannot be undone" in w.value for w in at.warning)
    assert FolderStore(workspace).entries()  # not yet
    at.button(key="train.delete_yes").click().run()
    assert FolderStore(workspace).entries() == []
    assert any("Deleted" in s.value for s in at.success)
    assert not (workspace / f"{key}.json").exists()


@pytest.mark.parametrize("fmt", ["json", "tiktoken", "hf"])
def test_upload_a_tokenizer_file(workspace, fmt):
    tok = train("the cat in the hat " * 30, 270, pattern="gpt2", name="hats")
    if fmt == "json":
        name, data = "hats.json", formats.dumps(tok).encode()
    elif fmt == "tiktoken":
        name, data = "hats.tiktoken", formats.dumps_tiktoken(tok)
    else:
        name, data = "hats.tokenizer.json", json.dumps(formats.to_hf_json(tok)).encode()
    at = page()
    at.file_uploader(key="train.tokenizer_file").upload(name, data, "application/octet-stream").run()
    assert not at.exception and not errors(at)
    [entry] = FolderStore(workspace).entries()
    assert entry.source == "uploaded" and entry.vocab_size == 256 + tok.num_merges
    assert FolderStore(workspace).get(entry.key).encode("the cat") == tok.encode("the cat")
    assert any(f"Uploaded {md(name)} as **hats**" in s.value for s in at.success)
    notes = " ".join(c.value for c in at.caption)
    assert "No training text is stored with hats" in notes
    counts = at.dataframe[0].value["count"]
    if fmt == "json":  # BPE Lab JSON keeps the pair counts
        assert counts.tolist() == [m.count for m in tok.merge_list]
        assert "no compression curve" in notes
    else:  # tiktoken and tokenizer.json do not: said in words, never a column of "None"
        assert counts.isna().all()
        assert "No pair counts" in notes and "no merge-count chart or compression curve" in notes
        assert json.loads(at.dataframe[0].proto.columns)["count"] == {"hidden": True}


def test_bad_tokenizer_upload_is_a_message(workspace):
    at = page()
    at.file_uploader(key="train.tokenizer_file").upload(
        "notes.json", b'{"format": "bpe-lab/tokenizer", "version": 1', "application/json"
    ).run()
    assert any("notes.json cannot be read as a tokenizer" in e for e in errors(at))
    assert FolderStore(workspace).entries() == []


def test_a_failed_training_keeps_what_was_trained(workspace):
    at = press_train(paste(page(), "aaabdaaabac", 259))
    paste(at, "", 300)
    press_train(at)
    assert any("corpus is empty" in e for e in errors(at))
    assert len(FolderStore(workspace).entries()) == 1
    assert at.dataframe[0].value["new token"].tolist() == ["aa", "aaa", "aaab"]


def test_trained_tokenizer_is_offered_on_every_page(workspace):
    press_train(paste(page(), "aaabdaaabac", 259))
    [entry] = FolderStore(workspace).entries()
    label = f"Yours · {entry.name} (yours, 259 tokens)"  # menus put the family first
    for path, widget in [("tokenize.py", "tokenize.tokenizer"), ("vocabulary.py", "vocab.tokenizer")]:
        at = AppTest.from_file(str(ROOT / "pages" / path), default_timeout=60).run()
        assert label in at.selectbox(key=widget).options, path
    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=60).run()
    assert label in at.multiselect(key="compare.tokenizers").options
    at = AppTest.from_file(str(ROOT / "pages" / "step.py"), default_timeout=60).run()
    at.segmented_control(key="step.mode").set_value("training").run()
    assert at.selectbox(key="step.training.tokenizer").value == f"user:{entry.key}"


def test_shared_mode_sessions_do_not_see_each_other(workspace, monkeypatch):
    from classroom import workspaces

    monkeypatch.setenv("BPE_LAB_SHARED", "1")
    workspaces.configure(shared=True)  # AppTest sends no cookie: each session is a browser without one
    first = press_train(paste(page(), "aaabdaaabac", 259))
    assert any("3 merges" in s.value for s in first.success)
    second = page()
    assert any("Nothing trained yet" in i.value for i in second.info)
    assert not workspace.exists() or not list(workspace.glob("*.json"))


def test_settings_survive_a_switch_to_another_page_and_back(workspace):
    # Through app.py, AppTest starts every run in Streamlit's "pages folder" mode, so a linked page
    # reruns through app.py first and a button click is lost; widgets are set, not clicked, here.
    store = FolderStore(workspace)
    older = store.add(train("aaabdaaabac", 259, pattern=None, name="older"))
    store.add(train("the cat in the hat", 262, pattern=None, name="newer"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/train.py").run()
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input("aaabdaaabac " * 3)
    at.number_input(key="train.vocab_size").set_value(300)
    at.selectbox(key="train.pattern").set_value("custom").run()
    at.text_input(key="train.custom_pattern").input(r"\w+|\s+")
    at.text_input(key="train.specials").input("<|end|>")
    at.text_input(key="train.name").input("kept")
    at.selectbox(key="train.upload_pattern").set_value("o200k")
    at.selectbox(key="train.selected").set_value(older)
    at.run()
    at.switch_page("pages/compare.py").run()
    at.switch_page("pages/train.py").run()
    assert not at.exception
    assert at.segmented_control(key="train.source").value == "paste"
    assert at.text_area(key="train.paste").value == "aaabdaaabac " * 3
    assert at.number_input(key="train.vocab_size").value == 300
    assert at.selectbox(key="train.pattern").value == "custom"
    assert at.text_input(key="train.custom_pattern").value == r"\w+|\s+"
    assert (at.text_input(key="train.specials").value, at.text_input(key="train.name").value) == ("<|end|>", "kept")
    assert at.selectbox(key="train.upload_pattern").value == "o200k"
    assert at.selectbox(key="train.selected").value == older  # not the newest, which it shows first


NAMES = ["**bold**", "[a link](http://example.com)", "![img](http://example.com/x.png)", "_x_ `code` # h", "a.b-c <i>"]


@pytest.mark.parametrize("name", NAMES)
def test_tokenizer_names_are_shown_as_typed_not_as_markdown(workspace, name):
    at = paste(page(), "low lower lowest " * 5, 262)
    at.text_input(key="train.name").input(name).run()
    press_train(at)
    assert not at.exception and not errors(at)
    assert any(f"Trained **{md(name)}**:" in s.value for s in at.success), [s.value for s in at.success]
    at.text_input(key="train.rename").input(name + " 2").run()
    at.button(key="train.rename_go").click().run()
    assert any(f"Renamed to {md(name + ' 2')}." in s.value for s in at.success)
    at.button(key="train.delete").click().run()
    assert any(f"Delete **{md(name + ' 2')}** from" in w.value for w in at.warning)
    at.button(key="train.delete_yes").click().run()
    assert any(f"Deleted {md(name + ' 2')}." in s.value for s in at.success)


def test_an_uploaded_tokenizers_name_and_file_name_are_shown_as_typed(workspace):
    tok = train("the cat in the hat " * 30, 270, pattern="gpt2", name="**hats** [x](http://example.com)")
    at = page()
    at.file_uploader(key="train.tokenizer_file").upload("*a*_b_.json", formats.dumps(tok).encode(), "application/json").run()
    assert not at.exception and not errors(at)
    assert any(f"Uploaded {md('*a*_b_.json')} as **{md(tok.name)}**" in s.value for s in at.success)


def test_an_upload_that_fails_quotes_its_file_name_as_typed(workspace):
    at = page()
    name = "[click me](http://example.com) **x**.json"
    at.file_uploader(key="train.tokenizer_file").upload(
        name, b'{"format": "bpe-lab/tokenizer", "version": 1', "application/json"
    ).run()
    [message] = [e.value for e in at.error]
    assert md(name) in message and f"{name} cannot be read as a tokenizer" in errors(at)[0]


def test_a_vocab_size_with_special_tokens_says_why_it_differs_from_the_menus(workspace):
    """The menus count a tokenizer's bytes and merges ("N tokens"); its vocab size adds its special tokens: the page
    says so with both numbers, and says nothing when they are the same."""
    from ui.common import tokenizers as tk

    at = paste(page(), "the cat<|endoftext|>the hat<|endoftext|>the mat " * 3, 270, pattern="gpt2")
    at.text_input(key="train.specials").input("<|endoftext|>, <|pad|>").run()
    press_train(at)
    [entry] = FolderStore(workspace).entries()
    tok = FolderStore(workspace).get(entry.key)
    menu = tk.options()[tk.USER + entry.key]
    built = 256 + tok.num_merges
    assert f"{built:,} tokens" in menu
    assert at.metric[0].value == f"{built + 2:,}"
    [note] = [c.value for c in at.caption if c.value.startswith("Vocab size")]
    assert f"Vocab size {built + 2:,} counts every token" in note and "2 special tokens" in note
    assert f"“{built:,} tokens”" in note

    at = paste(page(), "the cat sat on the mat " * 5, 270)
    press_train(at)
    assert not [c.value for c in at.caption if c.value.startswith("Vocab size")]


@pytest.mark.parametrize("fmt", ["json", "tiktoken", "tokenizer.json"])
def test_the_same_tokenizer_uploaded_again_is_kept_once(workspace, fmt):
    """A file uploaded a second time (or the file of a tokenizer trained here) is the same tokenizer: the page says
    which one it is and keeps one, not "(2)", "(3)" copies; another tokenizer is added."""
    tok = train("the cat in the hat " * 30, 270, pattern="gpt4", name="hats")
    other = train("the dog on the log " * 30, 270, pattern="gpt4", name="logs")

    def data(t):
        if fmt == "json":
            return formats.dumps(t).encode()
        if fmt == "tiktoken":
            return formats.dumps_tiktoken(t)
        return json.dumps(formats.to_hf_json(t)).encode()

    name = f"hats.{fmt}"
    at = page()
    at.file_uploader(key="train.tokenizer_file").upload(name, data(tok), "application/octet-stream").run()
    [first] = FolderStore(workspace).entries()
    at.file_uploader(key="train.tokenizer_file").upload(name, data(tok), "application/octet-stream").run()
    assert not at.exception and not errors(at)
    assert [e.key for e in FolderStore(workspace).entries()] == [first.key]
    assert any(f"{md(name)} is the same tokenizer as **{md(first.name)}**" in i.value for i in at.info)
    at.file_uploader(key="train.tokenizer_file").upload(f"logs.{fmt}", data(other), "application/octet-stream").run()
    assert len(FolderStore(workspace).entries()) == 2


def test_the_file_of_a_tokenizer_trained_here_is_that_tokenizer(workspace):
    at = paste(page(), "the cat sat on the mat " * 8, 280, pattern="gpt4")
    press_train(at)
    [trained] = FolderStore(workspace).entries()
    data = formats.dumps(FolderStore(workspace).get(trained.key)).encode()
    at.file_uploader(key="train.tokenizer_file").upload("mine.json", data, "application/json").run()
    assert [e.key for e in FolderStore(workspace).entries()] == [trained.key]
    assert any("is the same tokenizer as" in i.value for i in at.info)

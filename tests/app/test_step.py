"""The Step through page in AppTest: both modes, every control, the URL, agreement with the core."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import load_encoding, train
from ui.content import corpora

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "step.py")
CORPUS = (
    "Byte pair encoding merges the most frequent pair of tokens into a new token, again and again. "
    "Hello 你好! Honolulu, aaabdaaabac, the cat in the hat.\n"
) * 40
TOKEN = re.compile(r'<span class="t[ "]')


@pytest.fixture
def trained(workspace):
    tok = train(CORPUS, 400, pattern="gpt4", name="pairs")
    key = FolderStore(workspace).add(tok, corpus=CORPUS)
    return key, tok


def run(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


def step_metric(at) -> str:
    return at.metric[0].value


def spans_html(at) -> str:
    [html] = [h.value for h in at.html if 'class="bpe-spans"' in h.value]
    return html


def n_spans(at) -> int:
    return len(TOKEN.findall(spans_html(at)))


def n_highlighted(at) -> int:
    return len(re.findall(r'<span class="t[^"]*\bhl\b', spans_html(at)))


def click(at, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception
    return at


# ----------------------------------------------------------------------------- encoding mode


def test_encoding_mode_runs_on_its_own(workspace):
    at = run()
    assert at.segmented_control(key="step.mode").value == "encoding"
    assert step_metric(at).startswith("0 of ")
    text = at.session_state["shared.text"]
    assert n_spans(at) == len(text.encode())  # step 0: one token per byte
    assert at.query_params["mode"] == "encoding" and at.query_params["step"] == "0"


def test_forward_back_first_last_agree_with_the_core(workspace):
    at = run()
    tok = load_encoding("cl100k_base")
    trace = tok.encode_trace(at.session_state["shared.text"])
    n = len(trace.steps)
    for _ in range(3):
        click(at, "step.next")
    assert step_metric(at) == f"3 of {n}"
    assert n_spans(at) == len(trace.tokens_at(3))
    assert n_highlighted(at) == trace.steps[2].count
    assert at.query_params["step"] == "3"
    click(at, "step.prev")
    assert step_metric(at) == f"2 of {n}" and n_spans(at) == len(trace.tokens_at(2))
    click(at, "step.last")
    assert step_metric(at) == f"{n} of {n}"
    assert n_spans(at) == len(tok.encode(at.session_state["shared.text"]))
    assert at.button(key="step.next").disabled and at.button(key="step.last").disabled
    click(at, "step.first")
    assert step_metric(at) == f"0 of {n}" and at.button(key="step.prev").disabled


def test_slider_moves_to_any_step(workspace):
    at = run()
    at.slider(key="step.slider").set_value(10).run()
    assert step_metric(at).startswith("10 of") and at.session_state["step.k"] == 10


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base"])
def test_every_official_encoding(workspace, name):
    at = run(mode="encoding", tokenizer=name, step="5")
    tok = load_encoding(name)
    trace = tok.encode_trace(at.session_state["shared.text"])
    assert step_metric(at) == f"5 of {len(trace.steps)}"
    assert n_spans(at) == len(trace.tokens_at(5))


def test_tokenization_is_built_up_word_by_word(workspace):
    at = run(tokenizer="r50k_base")
    assert at.text_input(key="step.word").value == "tokenization"
    [ladder] = [h.value for h in at.html if '<table class="bpe-ladder">' in h.value]
    tok = load_encoding("r50k_base")
    trace = tok.encode_trace("tokenization")
    assert ladder.count("<tr>") == len(trace.steps) + 1
    assert f"{len(tok.encode('tokenization'))} tokens</td></tr></table>" in ladder
    at.text_input(key="step.word").input("<b>bold</b>").run()
    [ladder] = [h.value for h in at.html if '<table class="bpe-ladder">' in h.value]
    assert "<b>" not in ladder and "&lt;" in ladder


def test_a_long_text_works(workspace):
    at = run()
    click(at, "step.long")
    text = at.session_state["shared.text"]
    assert len(text) >= 5000
    tok = load_encoding("cl100k_base")
    trace = tok.encode_trace(text)
    click(at, "step.next")
    assert n_spans(at) == len(trace.tokens_at(1))
    at.slider(key="step.slider").set_value(len(trace.steps)).run()
    assert n_spans(at) == len(tok.encode(text))
    assert "text" not in at.query_params  # too long for the URL


def test_short_text_goes_into_the_url_and_comes_back(workspace):
    at = run(mode="encoding", tokenizer="r50k_base", step="2", text="Honolulu")
    assert at.session_state["shared.text"] == "Honolulu"
    assert step_metric(at).startswith("2 of")
    assert at.query_params["text"] == "Honolulu"


def test_play_advances_and_pause_stops(workspace):
    at = run()
    click(at, "step.play")
    assert at.session_state["step.playing"] is True
    assert step_metric(at).startswith("1 of")  # each run of the fragment is one tick
    assert at.button(key="step.next").disabled  # manual controls wait while playing
    click(at, "step.play")
    assert at.session_state["step.playing"] is False and not at.button(key="step.next").disabled


def test_play_at_the_end_starts_again(workspace):
    at = run(step="9999")
    n = int(step_metric(at).split(" of ")[1])
    assert step_metric(at) == f"{n} of {n}"  # a step beyond the end is clamped
    click(at, "step.play")
    assert step_metric(at) == f"1 of {n}"


# ----------------------------------------------------------------------------- training mode


def test_training_mode_without_own_tokenizers_offers_a_demo(workspace):
    at = run(mode="training")
    assert any("Training mode replays" in i.value for i in at.info)
    click(at, "step.demo")
    [entry] = FolderStore(workspace).entries()
    assert entry.has_corpus and entry.vocab_size == corpora.CORPORA["stdlib-docstrings"].vocab_size
    assert step_metric(at) == f"0 of {entry.vocab_size - 256}"


def test_training_mode_steps_agree_with_the_core(trained):
    key, tok = trained
    at = run(mode="training", tokenizer=f"user:{key}")
    excerpt = CORPUS[: at.session_state["step.excerpt"]]
    for k in (0, 1, 2, 3):
        assert step_metric(at) == f"{k} of {tok.num_merges}"
        assert n_spans(at) == len(tok.truncated(k).encode(excerpt))
        nxt = tok.encode_trace(excerpt)
        occurrences = next((s.count for s in nxt.steps if s.rank == k), 0)
        assert n_highlighted(at) == 2 * occurrences
        assert at.metric[2].value == f"{tok.training.length_at(k):,}"
        click(at, "step.next")
    click(at, "step.prev")
    assert step_metric(at) == f"3 of {tok.num_merges}"
    assert n_spans(at) == len(tok.truncated(3).encode(excerpt))
    top = at.dataframe[0].value
    assert top["count"].iloc[0] == tok.merge_list[3].count
    assert len(at.get("vega_lite_chart")) == 3  # top pairs, length, bytes per token


def test_training_mode_link_to_step_12(trained):
    key, tok = trained
    at = run(mode="training", tokenizer=f"user:{key}", step="12")
    assert step_metric(at) == f"12 of {tok.num_merges}"
    assert n_spans(at) == len(tok.truncated(12).encode(CORPUS[: at.session_state["step.excerpt"]]))
    assert any("Step 13 merges" in h.value for h in at.html)
    assert any("Step 12 minted" in h.value for h in at.html)
    assert at.query_params["tokenizer"] == f"user:{key}"


def test_chunk_boundaries_are_drawn_only_for_a_split_pattern(trained, workspace):
    key, _ = trained
    at = run(mode="training", tokenizer=f"user:{key}")
    assert 'class="cut"' in spans_html(at)
    whole = FolderStore(workspace).add(train(CORPUS, 300, pattern=None, name="no split"), corpus=CORPUS)
    at = run(mode="training", tokenizer=f"user:{whole}")
    assert 'class="cut"' not in spans_html(at)


def test_the_last_step_says_training_ended(trained):
    key, tok = trained
    at = run(mode="training", tokenizer=f"user:{key}", step=str(tok.num_merges))
    assert any("Training ended here" in h.value for h in at.html)
    assert n_highlighted(at) == 0


def test_a_new_link_in_the_same_session_is_followed(trained):
    key, tok = trained
    at = run(mode="encoding", tokenizer="r50k_base", step="3")
    click(at, "step.next")
    assert step_metric(at).startswith("4 of")
    at.query_params.update({"mode": "training", "tokenizer": f"user:{key}", "step": "7"})  # e.g. the Train page's link
    at.run()
    assert at.segmented_control(key="step.mode").value == "training"
    assert step_metric(at) == f"7 of {tok.num_merges}"
    click(at, "step.next")  # the page's own URL does not pull it back
    assert step_metric(at) == f"8 of {tok.num_merges}"


def test_unknown_tokenizer_in_the_link_is_a_warning(trained):
    at = run(mode="training", tokenizer="user:gone-000000")
    assert any("not here" in w.value for w in at.warning)
    assert step_metric(at).startswith("0 of")


def test_switching_mode_resets_the_step(trained):
    key, _ = trained
    at = run(mode="training", tokenizer=f"user:{key}", step="5")
    at.segmented_control(key="step.mode").set_value("encoding").run()
    assert step_metric(at).startswith("0 of") and at.query_params["mode"] == "encoding"


def test_settings_survive_a_switch_to_another_page_and_back(trained):
    # through app.py every run starts in Streamlit's "pages folder" mode (see test_train's twin): set, don't click
    key, tok = trained
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/step.py").run()
    at.segmented_control(key="step.mode").set_value("training").run()
    at.selectbox(key="step.excerpt").set_value(1_000)
    at.select_slider(key="step.speed").set_value("fast")
    at.run()
    at.slider(key="step.slider").set_value(2).run()
    assert step_metric(at) == f"2 of {tok.num_merges}"
    at.switch_page("pages/vocabulary.py").run()
    at.switch_page("pages/step.py").run()
    assert not at.exception
    assert at.segmented_control(key="step.mode").value == "training"
    assert at.selectbox(key="step.excerpt").value == 1_000
    assert at.select_slider(key="step.speed").value == "fast"
    assert step_metric(at) == f"2 of {tok.num_merges}"
    at.segmented_control(key="step.mode").set_value("encoding").run()
    at.toggle(key="step.show_chunks").set_value(False)
    at.text_input(key="step.word").input("Honolulu")
    at.run()
    at.switch_page("pages/train.py").run()
    at.switch_page("pages/step.py").run()
    assert at.toggle(key="step.show_chunks").value is False
    assert at.text_input(key="step.word").value == "Honolulu"


# ----------------------------------------------------------------------------- the open models


@pytest.mark.slow
@pytest.mark.parametrize("name", ["p50k_base", "o200k_harmony", "llama3", "llama4", "qwen2.5", "qwen3.6", "tekken"])
def test_every_open_model_steps_through_its_own_merges(workspace, name):
    at = run(mode="encoding", tokenizer=name, step="5")
    tok = load_encoding(name)
    text = at.session_state["shared.text"]
    trace = tok.encode_trace(text)
    assert step_metric(at) == f"5 of {len(trace.steps)}"
    assert n_spans(at) == len(trace.tokens_at(5))
    click(at, "step.last")
    assert n_spans(at) == len(tok.encode(text))


def test_whole_chunks_and_merges_built_on_later_ones_replay_to_the_encoding(workspace):
    """Llama 3: ' việc' is a token no merge builds (taken whole at step 0); '.:.:' is built on a later merge."""
    text = "Tôi làm việc ở đây .:.: và việc khác"
    at = run(mode="encoding", tokenizer="llama3", step="0", text=text)
    tok = load_encoding("llama3")
    trace = tok.encode_trace(text)
    assert len(trace.wholes) == 2
    assert n_spans(at) == len(trace.tokens_at(0)) == len(text.encode()) - 2 * (len(" việc".encode()) - 1)
    click(at, "step.last")
    assert n_spans(at) == len(tok.encode(text))

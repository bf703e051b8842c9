"""The Step through page in AppTest: both modes, the trace it hands to the browser, the URL, agreement with the core.

The stepping itself runs in the page (ui/step/stepper.js; tests/browser/test_step.py drives it in
Chromium). Here: what the server sends it (``trace``: the payload read back with ui/step/payload.py's
``Replay``, the step it opens at), which must show what the core computes, at any step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drawn import drawn
from reading import read
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tests import step_reference as reference
from tokenizer import load_encoding, train
from ui.content import corpora
from ui.step import payload

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "step.py")
CORPUS = (
    "Byte pair encoding merges the most frequent pair of tokens into a new token, again and again. "
    "Hello 你好! Honolulu, aaabdaaabac, the cat in the hat.\n"
) * 40


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


def component(at, name: str = "bpe_lab_stepper"):
    found = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    return found[0] if found else None


def sent(at) -> dict:
    """The stepper's data: ``{"goto": [epoch, k], "chunks": bool, "trace": payload}``."""
    el = component(at)
    assert el is not None, "no stepper on the page"
    return json.loads(el.proto.bytes)


def trace(at) -> reference.Replay:
    return reference.Replay(sent(at)["trace"])


def opened_at(at) -> int:
    """The step the page opens at (where the server put it)."""
    return sent(at)["goto"][1]


def pairs_sent(at) -> dict:
    return json.loads(component(at, "bpe_lab_step_pairs").proto.json)


def click(at, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception
    return at


# ----------------------------------------------------------------------------- encoding mode


def test_encoding_mode_runs_on_its_own(workspace):
    at = run()
    assert at.segmented_control(key="step.mode").value == "encoding"
    text = at.session_state["shared.text"]
    r = trace(at)
    assert r.mode == "encoding" and opened_at(at) == 0
    assert len(r.spans(0)) == len(text.encode())  # step 0: one token per byte
    assert at.query_params["mode"] == "encoding" and at.query_params["step"] == "0"


def test_the_trace_sent_shows_what_the_core_computes_at_every_step(workspace):
    at = run()
    text = at.session_state["shared.text"]
    tok = load_encoding("cl100k_base")
    core = tok.encode_trace(text)
    r = trace(at)
    assert r.n == len(core.steps)
    for j in range(r.n + 1):
        assert [s.id for s in r.spans(j)] == core.tokens_at(j)
    assert [s.id for s in r.spans(r.n)] == tok.encode(text, disallowed_special=())
    assert len(r.highlight(3)) == core.steps[2].count


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base"])
def test_a_link_opens_every_official_encoding_at_its_step(workspace, name):
    at = run(mode="encoding", tokenizer=name, step="5")
    core = load_encoding(name).encode_trace(at.session_state["shared.text"])
    r = trace(at)
    assert opened_at(at) == 5 and r.n == len(core.steps)
    assert [s.id for s in r.spans(5)] == core.tokens_at(5)


def test_a_step_beyond_the_end_is_clamped(workspace):
    at = run(step="9999")
    n = trace(at).n
    assert opened_at(at) == n and at.query_params["step"] == str(n)


def test_tokenization_is_built_up_word_by_word(workspace):
    at = run(tokenizer="r50k_base")
    assert at.text_input(key="step.word").value == "tokenization"
    [ladder] = [h for h in drawn(at) if '<table class="bpe-ladder">' in h]
    tok = load_encoding("r50k_base")
    core = tok.encode_trace("tokenization")
    assert ladder.count("<tr>") == len(core.steps) + 1
    assert f"{len(tok.encode('tokenization'))} tokens</td></tr></table>" in ladder
    at.text_input(key="step.word").input("<b>bold</b>").run()
    [ladder] = [h for h in drawn(at) if '<table class="bpe-ladder">' in h]
    assert "<b>" not in ladder and "&lt;" in ladder


def test_the_steps_table_lists_every_step(workspace):
    at = run(tokenizer="r50k_base", text="Honolulu honolulu")
    core = load_encoding("r50k_base").encode_trace("Honolulu honolulu")
    df = at.dataframe[0].value
    assert list(df["rank"]) == [s.rank for s in core.steps] and list(df["tokens after"]) == [s.n_tokens for s in core.steps]


def test_a_long_text_works_and_stays_out_of_the_url(workspace):
    at = run(step="7")
    click(at, "step.long")
    text = at.session_state["shared.text"]
    assert len(text) >= 5000
    tok = load_encoding("cl100k_base")
    r = trace(at)
    assert opened_at(at) == 0  # a new text starts from its bytes
    assert [s.id for s in r.spans(r.n)] == tok.encode(text, disallowed_special=())
    assert "text" not in at.query_params  # too long for the URL


def test_short_text_goes_into_the_url_and_comes_back(workspace):
    at = run(mode="encoding", tokenizer="r50k_base", step="2", text="Honolulu")
    assert at.session_state["shared.text"] == "Honolulu"
    assert opened_at(at) == 2
    assert at.query_params["text"] == "Honolulu"


def test_markup_in_the_text_reaches_the_page_only_as_bytes(workspace):
    at = run(tokenizer="r50k_base", text="<script>alert('x')</script>")
    data = component(at).proto.bytes
    assert b"<script>" not in data and b"alert" not in data  # the text travels base64-encoded; the page escapes it
    assert trace(at).data == b"<script>alert('x')</script>"


def test_a_text_too_big_to_send_is_refused_with_what_to_shorten(workspace, monkeypatch):
    monkeypatch.setattr(payload, "MAX_BYTES", 20_000)
    at = run(tokenizer="r50k_base")
    click(at, "step.long")
    assert component(at) is None
    [error] = [read(e.value) for e in at.error]
    assert re.search(
        r"steps come to \d+ kB, more than the 20 kB the page sends to your browser: shorten the text to about [\d,]+ characters \(it has 6,000\)",
        error,
    )
    assert at.text_input(key="step.word").value == "tokenization"  # the rest of the page goes on


def test_the_same_trace_is_sent_the_same_way_on_every_rerun(workspace):
    at = run()
    first = component(at).proto.bytes
    at.text_input(key="step.word").input("Honolulu").run()
    assert component(at).proto.bytes == first  # unchanged: Streamlit sends it again as a reference only


# ----------------------------------------------------------------------------- training mode


def test_training_mode_without_own_tokenizers_offers_a_demo(workspace):
    at = run(mode="training")
    assert any("Training mode replays" in i.value for i in at.info)
    click(at, "step.demo")
    [entry] = FolderStore(workspace).entries()
    assert entry.has_corpus and entry.vocab_size == corpora.CORPORA["stdlib-docstrings"].vocab_size
    r = trace(at)
    assert r.mode == "training" and r.n == entry.vocab_size - 256 and opened_at(at) == 0


def test_training_mode_sends_what_the_core_computes(trained):
    key, tok = trained
    at = run(mode="training", tokenizer=f"user:{key}")
    excerpt = CORPUS[: at.session_state["step.excerpt"]]
    r = trace(at)
    assert r.n == tok.num_merges
    for k in (0, 1, 2, 3, 50, tok.num_merges):
        assert [s.id for s in r.spans(k)] == tok.truncated(k).encode(excerpt)
        assert r.length_at(k) == tok.training.length_at(k)
    occurrences = next((s.count for s in tok.encode_trace(excerpt).steps if s.rank == 3), 0)
    assert len(r.highlight(3)) == 2 * occurrences
    window = pairs_sent(at)
    assert window["id"] == sent(at)["trace"]["id"] and window["from"] == 0
    assert window["pairs"][0][:3] == [*tok.merge_list[0].pair, tok.merge_list[0].count]  # after 0 merges, merge 1's pair first


def test_training_mode_link_to_step_12(trained):
    key, tok = trained
    at = run(mode="training", tokenizer=f"user:{key}", step="12")
    assert opened_at(at) == 12
    assert pairs_sent(at)["from"] == 12  # the top pairs from step 12 on
    assert at.query_params["tokenizer"] == f"user:{key}" and at.query_params["step"] == "12"


def test_chunk_boundaries_only_for_a_split_pattern(trained, workspace):
    key, _ = trained
    assert trace(run(mode="training", tokenizer=f"user:{key}")).cuts(0)
    whole = FolderStore(workspace).add(train(CORPUS, 300, pattern=None, name="no split"), corpus=CORPUS)
    assert trace(run(mode="training", tokenizer=f"user:{whole}")).cuts(0) == set()


def test_a_new_link_in_the_same_session_is_followed(trained):
    key, tok = trained
    at = run(mode="encoding", tokenizer="r50k_base", step="3")
    epoch = sent(at)["goto"][0]
    at.query_params.update({"mode": "training", "tokenizer": f"user:{key}", "step": "7"})  # e.g. the Train page's link
    at.run()
    assert at.segmented_control(key="step.mode").value == "training"
    assert opened_at(at) == 7 and sent(at)["goto"][0] > epoch
    at.query_params.update({"step": "9"})  # the same trace, a new step: the page moves there
    at.run()
    assert opened_at(at) == 9 and trace(at).mode == "training"


def test_unknown_tokenizer_in_the_link_is_a_warning(trained):
    at = run(mode="training", tokenizer="user:gone-000000")
    assert any("not here" in w.value for w in at.warning)
    assert opened_at(at) == 0


def test_switching_mode_resets_the_step(trained):
    key, _ = trained
    at = run(mode="training", tokenizer=f"user:{key}", step="5")
    at.segmented_control(key="step.mode").set_value("encoding").run()
    assert opened_at(at) == 0 and at.query_params["mode"] == "encoding" and at.query_params["step"] == "0"


def test_settings_survive_a_switch_to_another_page_and_back(trained):
    # through app.py every run starts in Streamlit's "pages folder" mode (see test_train's twin): set, don't click
    key, tok = trained
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/step.py").run()
    at.segmented_control(key="step.mode").set_value("training").run()
    at.selectbox(key="step.excerpt").set_value(1_000).run()
    assert trace(at).mode == "training" and trace(at).n == tok.num_merges
    at.switch_page("pages/vocabulary.py").run()
    at.switch_page("pages/step.py").run()
    assert not at.exception
    assert at.segmented_control(key="step.mode").value == "training"
    assert at.selectbox(key="step.excerpt").value == 1_000
    assert len(trace(at).data) == len(CORPUS[:1000].encode())
    at.segmented_control(key="step.mode").set_value("encoding").run()
    at.toggle(key="step.show_chunks").set_value(False)
    at.text_input(key="step.word").input("Honolulu")
    at.run()
    assert sent(at)["chunks"] is False
    at.switch_page("pages/train.py").run()
    at.switch_page("pages/step.py").run()
    assert at.toggle(key="step.show_chunks").value is False and sent(at)["chunks"] is False
    assert at.text_input(key="step.word").value == "Honolulu"


# ----------------------------------------------------------------------------- the open models


@pytest.mark.slow
@pytest.mark.parametrize("name", ["p50k_base", "o200k_harmony", "llama3", "llama4", "qwen2.5", "qwen3.6", "tekken"])
def test_every_open_model_steps_through_its_own_merges(workspace, name):
    at = run(mode="encoding", tokenizer=name, step="5")
    tok = load_encoding(name)
    text = at.session_state["shared.text"]
    core = tok.encode_trace(text)
    r = trace(at)
    assert opened_at(at) == 5 and r.n == len(core.steps)
    assert [s.id for s in r.spans(5)] == core.tokens_at(5)
    assert [s.id for s in r.spans(r.n)] == tok.encode(text, disallowed_special=())


def test_whole_chunks_and_merges_built_on_later_ones_replay_to_the_encoding(workspace):
    """Llama 3: ' việc' is a token no merge builds (taken whole at step 0); '.:.:' is built on a later merge."""
    text = "Tôi làm việc ở đây .:.: và việc khác"
    at = run(mode="encoding", tokenizer="llama3", step="0", text=text)
    tok = load_encoding("llama3")
    core = tok.encode_trace(text)
    assert len(core.wholes) == 2
    r = trace(at)
    assert len(r.spans(0)) == len(core.tokens_at(0)) == len(text.encode()) - 2 * (len(" việc".encode()) - 1)
    assert [s.id for s in r.spans(r.n)] == tok.encode(text)

"""The Tokenize page, driven with Streamlit's AppTest: what the live view is given, the tables, nothing crashes.

The live view encodes in the browser (tests/browser/test_tokenize.py and
test_live_parity.py check what it draws and that its ids are the core's); here: the
page gives it the right tokenizer, model file, text and switches, tokenizes on the
server what the browser cannot (and says why), and its tables count as tiktoken does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tiktoken
from drawn import drawn
from live_view import payload, table_ids, type_text
from model_packages import llama_tokenizer, reference_encode
from reading import read
from streamlit.testing.v1 import AppTest

from tokenizer import load_encoding, registry
from tokenizer.models import chat
from tokenizer.models.pretrained import CHAT_SPECIAL_TOKENS
from ui.common.user_text import MAX_CHARS
from ui.content import samples
from ui.tokenize import model
from ui.web import model as web
from ui.web.payload import LIVE_LIMIT

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "tokenize.py")
OFFICIAL = ["r50k_base", "cl100k_base", "o200k_base"]
MIXED = "Hello 你好 — tokenization! 🤚🏾 x = 1234567890\n\tdef f():  return 'ok'\n"


def enc(name: str) -> tiktoken.Encoding:
    return tiktoken.get_encoding(name)


def chat_enc(name: str) -> tiktoken.Encoding:
    base = enc(name)
    return tiktoken.Encoding(
        name=f"{name}-chat",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, **CHAT_SPECIAL_TOKENS[name]},
    )


def app(text: str | None = None, tokenizer_key: str | None = None, query: dict | None = None) -> AppTest:
    """The page after a first run (with ``query`` as the URL's parameters), then ``text`` and ``tokenizer_key`` chosen."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    if tokenizer_key is not None:
        at.selectbox(key="tokenize.tokenizer").set_value(tokenizer_key)
    if text is not None:
        type_text(at, text)
    if tokenizer_key is not None or text is not None:
        at.run()
        assert not at.exception, at.exception
    return at


def model_file(at: AppTest, tmp: Path) -> bytes:
    """The model file the view was pointed at (the tests' static folder is ``tmp``/static)."""
    url = payload(at)["model"]["url"]
    assert url.startswith("app/static/bpe/")
    return (tmp / "static" / url.removeprefix("app/static/")).read_bytes()


def test_first_load_sends_the_default_sample_and_cl100ks_model_to_the_browser(workspace):
    at = app()
    data = payload(at)
    assert data["text"] == samples.DEFAULT_TEXT and data["version"] >= 1
    assert at.selectbox(key="tokenize.tokenizer").value == "cl100k_base"
    assert data["kind"] == "bpe" and data["server"] is None and data["reason"] is None
    assert model_file(at, workspace.parent) == web.model_file(load_encoding("cl100k_base"), check_shortcuts=False)
    assert data["model"]["size"] == len(model_file(at, workspace.parent))
    assert data["assets"].startswith("app/static/bpe/web-")
    assert table_ids(at) == enc("cl100k_base").encode(samples.DEFAULT_TEXT)
    assert data["limits"] == {"live": LIVE_LIMIT, "spans": model.SPAN_LIMIT}


@pytest.mark.parametrize("name", OFFICIAL)
@pytest.mark.parametrize("sample", ["mixed", *samples.names()])
def test_the_tables_count_as_tiktoken(name, sample):
    text = MIXED if sample == "mixed" else samples.SAMPLES[sample]
    at = app(text, name)
    expected = enc(name).encode(text, disallowed_special=())
    assert table_ids(at) == expected
    assert payload(at)["text"] == text and payload(at)["kind"] == "bpe"


def test_switching_tokenizer_switches_the_model():
    at = app(MIXED, "r50k_base")
    seen = set()
    for name in ["o200k_base", "cl100k_base", "r50k_base"]:
        at.selectbox(key="tokenize.tokenizer").set_value(name).run()
        assert not at.exception
        assert table_ids(at) == enc(name).encode(MIXED)
        data = payload(at)
        assert data["label"] == registry.spec(name).label and data["text"] == MIXED
        seen.add(data["model"]["id"])
    assert len(seen) == 3


def test_baselines_run_in_the_browser(workspace):
    at = app(MIXED, "chars")
    assert payload(at)["kind"] == "chars" and payload(at)["model"] is None
    assert table_ids(at) == [ord(c) for c in MIXED]
    at = app(MIXED, "bytes")
    assert payload(at)["kind"] == "bpe"
    assert len(model_file(at, workspace.parent)) == 4 * (8 + 256)  # no merges, no pattern, no specials
    assert table_ids(at) == list(MIXED.encode())


@pytest.mark.parametrize("name", OFFICIAL)
def test_special_tokens_switch(name):
    text = "Hello <|endoftext|> world<|endoftext|>"
    at = app(text, name)
    data = payload(at)
    assert table_ids(at) == enc(name).encode(text, disallowed_special=())
    assert not data["recognise"] and data["specials"] is None
    assert "<|endoftext|>" in data["specialNames"], "the view says the text holds a special token"
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert not at.exception
    data = payload(at)
    assert data["recognise"] and data["specials"]["<|endoftext|>"] == enc(name).eot_token and data["specialsId"]
    assert table_ids(at) == enc(name).encode(text, allowed_special="all")


def test_an_old_address_from_a_rerun_asked_for_before_the_last_write_does_not_undo_the_text():
    """Every rerun brings the browser's address; one asked for before the browser heard the page drop the text from
    the link still carries the link's text. It is not a new link: the long text the user pasted stays."""
    at = app(query={"tokenizer": "o200k_base", "text": "x"})
    long = "The quick brown fox. " * 300
    type_text(at, long).run()
    assert at.query_params == {"tokenizer": "o200k_base"}
    at.query_params.update({"tokenizer": "o200k_base", "text": "x"})  # the stale address
    at.run()
    assert not at.exception, at.exception
    assert payload(at)["text"] == long and at.query_params == {"tokenizer": "o200k_base"}
    at.query_params.update({"tokenizer": "r50k_base", "text": "A new link"})  # an address the page never wrote
    at.run()
    assert payload(at)["text"] == "A new link" and at.selectbox(key="tokenize.tokenizer").value == "r50k_base"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_recognised_chat_tokens_count_as_in_tiktokenizer(name):
    text = "<|im_start|>user<|im_sep|>Hi there<|im_end|>"
    at = app(text, name)
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert table_ids(at) == chat_enc(name).encode(text, allowed_special="all")
    assert len(table_ids(at)) == 6
    assert payload(at)["specials"] == {**enc(name)._special_tokens, **CHAT_SPECIAL_TOKENS[name]}


def test_special_token_strings_never_crash_any_tokenizer():
    text = "<|endoftext|><|im_start|><|fim_prefix|><|endofprompt|> <|unknown|>"
    at = app(text)
    for key in [*OFFICIAL, "bytes", "chars"]:
        for mode in ["text", "recognise"]:
            at.selectbox(key="tokenize.tokenizer").set_value(key)
            at.segmented_control(key="tokenize.special").set_value(mode)
            at.run()
            assert not at.exception
            assert not at.error
            assert table_ids(at)


def test_whitespace_toggle_reaches_the_view():
    at = app("a b\n\tc", "cl100k_base")
    assert payload(at)["whitespace"] is False
    at.toggle(key="tokenize.whitespace").set_value(True).run()
    assert payload(at)["whitespace"] is True


def test_partial_characters_show_their_bytes_in_the_table():
    at = app("🤚", "r50k_base")
    texts = list(at.dataframe[0].value["text"])
    assert any(t.startswith("<F0") for t in texts) and "\ufffd" not in "".join(texts)


def test_empty_text_sends_an_empty_box_and_no_table():
    at = app("", "cl100k_base")
    assert not at.exception
    assert payload(at)["text"] == ""
    assert not at.dataframe


def test_whitespace_only_text_is_tokenized():
    at = app("   \n\n ", "cl100k_base")
    assert table_ids(at) == enc("cl100k_base").encode("   \n\n ")


def test_a_text_past_the_live_limit_is_tokenized_on_the_server_and_cut_there():
    unit = "The quick brown fox jumps over the lazy dog 1234. "
    text = unit * (MAX_CHARS // len(unit) + 400)
    assert len(text) > MAX_CHARS == LIVE_LIMIT
    at = app(text, "cl100k_base")
    server = payload(at)["server"]
    expected = enc("cl100k_base").encode(text[:MAX_CHARS])
    assert server["ids"] == expected and server["dropped"] == len(text) - MAX_CHARS
    assert server["text"] == text[:MAX_CHARS] and sum(server["lens"]) == MAX_CHARS
    assert table_ids(at) == expected


def test_sample_menu_loads_a_sample_as_a_new_version_of_the_text():
    at = app()
    before = payload(at)["version"]
    at.selectbox(key="tokenize.sample").set_value("Emoji").run()
    assert payload(at)["text"] == samples.SAMPLES["Emoji"]
    assert payload(at)["version"] > before, "the box replaces what it holds"
    assert table_ids(at) == enc("cl100k_base").encode(samples.SAMPLES["Emoji"])
    assert at.selectbox(key="tokenize.sample").value is None


def test_a_text_typed_in_the_box_is_not_a_new_version():
    """What the box sent must not come back as a change from the server (it would undo the user's next keys)."""
    at = app()
    version = payload(at)["version"]
    at.session_state["tokenize.synced"] = "typed"  # what the component's callback records with the text
    type_text(at, "typed").run()
    assert payload(at)["version"] == version and payload(at)["text"] == "typed"


def test_a_link_restores_tokenizer_and_text():
    at = app(query={"tokenizer": "r50k_base", "text": "Hello 你好"})
    assert at.selectbox(key="tokenize.tokenizer").value == "r50k_base"
    assert payload(at)["text"] == "Hello 你好"
    assert table_ids(at) == enc("r50k_base").encode("Hello 你好")


def test_a_link_to_an_unknown_tokenizer_says_so():
    at = app(query={"tokenizer": "user:gone-123", "text": "Hi"})
    assert any("not available" in w.value for w in at.warning)
    assert payload(at)["text"] == "Hi"


def test_the_page_keeps_the_link_up_to_date():
    at = app("Hello", "o200k_base")
    assert at.query_params == {"tokenizer": "o200k_base", "text": "Hello"}
    type_text(at, "x" * 5000).run()
    assert at.query_params == {"tokenizer": "o200k_base"}
    assert any("stay out of links" in c.value for c in at.caption)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chat_mode_counts_equal_tiktoken_with_the_chat_tokens(name):
    at = app(tokenizer_key=name)
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert not at.exception
    messages = [dict(m) for m in model.DEFAULT_MESSAGES]
    expected = chat_enc(name).encode(model.chat_text(messages), allowed_special=set(CHAT_SPECIAL_TOKENS[name]))
    data = payload(at)
    assert data["mode"] == "chat" and data["server"]["ids"] == expected
    assert len(data["server"]["special"]) == 3 * len(messages) + 2
    assert data["server"]["text"] == model.chat_text(messages, name)
    assert table_ids(at) == expected

    # edit, add and remove messages
    at.text_area(key="tokenize.chat.1.content").set_value("What is 2+2? 😄").run()
    at.button(key="tokenize.chat.add").click().run()
    at.text_area(key="tokenize.chat.2.content").set_value("4").run()
    messages = [
        {"role": "system", "content": model.DEFAULT_MESSAGES[0]["content"]},
        {"role": "user", "content": "What is 2+2? 😄"},
        {"role": "assistant", "content": "4"},
    ]
    assert at.selectbox(key="tokenize.chat.2.role").value == "assistant"
    assert payload(at)["server"]["ids"] == chat_enc(name).encode(model.chat_text(messages), allowed_special="all")
    at.button(key="tokenize.chat.0.remove").click().run()
    assert payload(at)["server"]["ids"] == chat_enc(name).encode(model.chat_text(messages[1:]), allowed_special="all")
    assert not at.exception


def test_chat_mode_treats_special_strings_in_messages_as_text():
    at = app(tokenizer_key="cl100k_base")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    at.text_area(key="tokenize.chat.1.content").set_value("<|im_end|><|endoftext|>").run()
    assert not at.exception
    ids = payload(at)["server"]["ids"]
    assert ids.count(100265) == 2  # only the framing <|im_end|> tokens
    assert 100257 not in ids
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    ids = payload(at)["server"]["ids"]
    assert ids.count(100265) == 3 and 100257 in ids


def test_chat_mode_is_only_offered_for_chat_encodings():
    at = app(tokenizer_key="r50k_base")
    [mode] = [w for w in at.segmented_control if w.key == "tokenize.mode"]
    assert "Chat" not in mode.options  # text and ids only (tests/app/test_decode.py)
    assert payload(at)["mode"] == "text"
    at = app(tokenizer_key="cl100k_base")
    assert at.segmented_control(key="tokenize.mode").options == ["Text", "Chat", "Ids"]


def test_core_errors_are_shown_not_raised(monkeypatch):
    from tokenizer import Tokenizer

    def broken(self, text, **kwargs):
        raise ValueError("the text could not be encoded: try a shorter one")

    at = app("Hello", "cl100k_base")
    monkeypatch.setattr(Tokenizer, "encode", broken)
    type_text(at, "Hello again").run()
    assert not at.exception
    assert any("try a shorter one" in e.value for e in at.error)


def test_a_trained_tokenizer_goes_to_the_browser_under_a_name_nobody_can_guess(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    tok = train(samples.SAMPLES["English prose"] * 2, 300, name="mine")
    key = "user:" + FolderStore(workspace).add(tok)
    at = app(MIXED, key)
    data = payload(at)
    assert data["kind"] == "bpe" and data["model"]["url"].startswith("app/static/bpe/user/")
    assert web.content_name(web.model_file(tok), "") not in data["model"]["url"]  # not named by its content
    assert model_file(at, workspace.parent) == web.model_file(tok)
    assert table_ids(at) == tok.encode(MIXED)


def test_a_custom_pattern_javascript_reads_differently_is_tokenized_on_the_server(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    tok = train(samples.SAMPLES["English prose"] * 2, 280, pattern=r"(?<=\s)\w+|\w+|\s+|[^\w\s]+", name="lookbehind")
    key = "user:" + FolderStore(workspace).add(tok)
    at = app(MIXED, key)
    data = payload(at)
    assert data["kind"] == "server" and data["model"] is None
    assert "reads differently" in data["reason"]
    assert data["server"]["ids"] == tok.encode(MIXED) and data["server"]["seq"] == data["seq"]
    assert sum(data["server"]["lens"]) == len(MIXED.encode())


def test_deepseek_v4_is_tokenized_on_the_server_and_says_why():
    at = app(MIXED, "deepseek_v4")
    data = payload(at)
    assert data["kind"] == "server" and "tokenizer.json pipeline" in data["reason"]
    assert data["server"]["ids"] == reference_encode("deepseek_v4")(MIXED)
    assert data["server"]["error"] is None


# ----------------------------------------------------------------------------- the open models

OPEN_MODELS = [n for n in registry.names() if n not in OFFICIAL]


@pytest.mark.slow
@pytest.mark.parametrize("name", OPEN_MODELS)
def test_every_open_model_tokenizes_as_its_reference(name):
    at = app(MIXED, name)
    ours = load_encoding(name)
    expected = reference_encode(name)(MIXED)
    assert table_ids(at) == expected == ours.encode(MIXED)
    data = payload(at)
    # a tokenizer.json pipeline and a .model file's rules are the server's (ui/web/model.browser_reason); a GGUF's
    # SentencePiece-style model is the browser's
    on_server = ours.pipeline is not None or registry.spec(name).source.format == "spm-model"
    assert data["kind"] == ("server" if on_server else "bpe")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in OPEN_MODELS if registry.spec(n).chat is not None])
def test_chat_mode_of_every_open_model_is_its_format(name):
    at = app(tokenizer_key=name)
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert not at.exception
    fmt = registry.spec(name).chat
    # a role the format does not take (Phi-3's template has no system turn) becomes the user's, as the editor says
    messages = [{**m, "role": m["role"] if m["role"] in fmt.roles else "user"} for m in model.DEFAULT_MESSAGES]
    assert payload(at)["server"]["ids"] == chat.encode(load_encoding(name), messages, fmt)
    assert any(fmt.label in c.value for c in at.caption)
    [what] = [c.value for c in at.code if c.value.startswith(chat.text(messages, fmt, load_encoding(name).special_tokens)[:12])]
    assert "You are a helpful assistant" in what


def test_llama3_chat_mode_equals_llama_models_chat_format():
    from llama_models.datatypes import RawMessage
    from llama_models.llama3.chat_format import ChatFormat

    at = app(tokenizer_key="llama3")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    raw = [RawMessage(role=m["role"], content=m["content"]) for m in model.DEFAULT_MESSAGES]
    assert payload(at)["server"]["ids"] == ChatFormat(llama_tokenizer("llama3")).encode_dialog_prompt(raw).tokens


def test_a_chat_the_models_package_refuses_is_an_error_that_says_what_to_change():
    """mistral-common refuses a conversation that ends with the assistant: the page says so, and how to fix it."""
    at = app(tokenizer_key="tekken")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    at.button(key="tokenize.chat.add").click().run()  # an assistant message after the user's
    assert not at.exception
    assert at.selectbox(key="tokenize.chat.2.role").value == "assistant"
    [error] = [read(e.value) for e in at.error]
    assert "Mistral's chat format" in error and "add a user message after it" in error
    server = payload(at)["server"]
    assert server["ids"] == [] and server["error"] == error  # the view says it too, and shows no ids
    at.button(key="tokenize.chat.add").click().run()  # a user message after it: laid out again
    at.text_area(key="tokenize.chat.2.content").set_value("4").run()
    assert not at.exception and not at.error
    messages = [
        *[dict(m) for m in model.DEFAULT_MESSAGES],
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": ""},
    ]
    assert payload(at)["server"]["ids"] == chat.encode(load_encoding("tekken"), messages, registry.spec("tekken").chat)


def test_the_role_menu_offers_the_formats_roles():
    at = app(tokenizer_key="llama3")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert "tool" in at.selectbox(key="tokenize.chat.1.role").options
    at.selectbox(key="tokenize.chat.1.role").set_value("tool").run()
    at.selectbox(key="tokenize.tokenizer").set_value("tekken").run()  # Mistral's format has no tool results
    assert not at.exception
    assert at.selectbox(key="tokenize.chat.1.role").options == ["system", "user", "assistant"]
    assert at.selectbox(key="tokenize.chat.1.role").value == "user"


def test_special_token_help_summarises_placeholders():
    at = app("<|eot_id|> and <|reserved_special_token_5|>", "llama3")
    help_text = at.segmented_control(key="tokenize.special").help
    assert "`<|eot_id|>` = 128009" in help_text and "placeholders" in help_text
    assert "reserved_special_token_200" not in help_text  # 244 numbered placeholders are counted, not listed
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert table_ids(at)[0] == 128009


def test_a_model_that_is_not_installed_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))  # no open model's file there
    at = app(tokenizer_key="qwen3.6")
    assert not at.exception
    assert "Qwen · Qwen 3.5, 3.6 (not installed)" in at.selectbox(key="tokenize.tokenizer").options
    assert any("python -m tokenizer provision qwen3.6" in read(e.value) for e in at.error)


def tree_html(at: AppTest) -> str:
    found = [h for h in drawn(at) if 'class="bpe-tree"' in h]
    return found[0] if found else ""


@pytest.mark.parametrize("name", ["cl100k_base", "llama3"])
def test_a_clicked_token_shows_how_it_was_built_down_to_its_bytes(name):
    text = " tokenization"
    ids = reference_encode(name)(text)
    tid = max(ids, key=lambda i: len(load_encoding(name).vocab[i]))  # the longest of its tokens
    at = app(text, name)
    assert tree_html(at) == ""  # nothing clicked yet
    at.session_state["tokenize.tree"] = tid  # what the view's click sends (the Chromium test clicks)
    at.run()
    body = tree_html(at)
    leaves = re.findall(r'class="node leaf"[^>]*>.*?<span class="meta">byte ([0-9A-F ]+)</span>', body, flags=re.S)
    assert bytes.fromhex("".join(leaves)) == load_encoding(name).vocab[tid]  # the leaves spell the token, byte by byte
    assert f"id {tid} · rank {load_encoding(name).rank_of[tid]:,}" in body
    assert any(f"How token {tid} was built" in m.value for m in at.markdown)
    assert any(c.value.startswith("Built in ") for c in at.caption)
    at.button(key="tokenize.tree_close").click().run()
    assert tree_html(at) == "" and at.session_state["tokenize.tree"] is None


def test_a_clicked_id_the_next_tokenizer_lacks_is_forgotten():
    at = app("Hello", "o200k_base")
    at.session_state["tokenize.tree"] = 199_000
    at.run()
    assert "id 199000" in tree_html(at)
    at.selectbox(key="tokenize.tokenizer").set_value("r50k_base").run()
    assert not at.exception and tree_html(at) == "" and at.session_state["tokenize.tree"] is None

"""The Tokenize page, driven with Streamlit's AppTest: counts equal tiktoken's, nothing crashes."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import tiktoken
from model_packages import llama_tokenizer, reference_encode
from streamlit.testing.v1 import AppTest

from tokenizer import load_encoding, registry
from tokenizer.models import chat
from tokenizer.models.pretrained import CHAT_SPECIAL_TOKENS
from ui.common.text import MAX_CHARS
from ui.content import samples
from ui.tokenize import model

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
        at.text_area(key="tokenize.text").set_value(text)
    if tokenizer_key is not None or text is not None:
        at.run()
        assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def tokens(at: AppTest) -> int:
    return int(metric(at, "Tokens").replace(",", ""))


def ids_shown(at: AppTest) -> list[int]:
    body = next(c.value for c in at.code if c.value.startswith("["))
    return [int(x) for x in body.strip("[]").split(",") if x.strip()]


def spans_html(at: AppTest) -> str:
    """The page's spans (not the same tokens again in the pieces of N tokens below them)."""
    return "".join(h.proto.body for h in at.get("html") if 'class="bpe-piece' not in h.proto.body)


def shown_text(html_text: str) -> str:
    """What a reader sees in the spans: tags (and the tooltips inside them) removed, entities decoded;
    the visually hidden screen-reader table left out."""
    body = re.sub(r"\s*<style>.*?</style>\s*", "", html_text, flags=re.S)
    body = re.sub(r'<div class="bpe-more">.*?</div>|<table class="bpe-sr">.*?</table>', "", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_first_load_shows_the_default_sample_under_cl100k():
    at = app()
    assert at.text_area(key="tokenize.text").value == samples.DEFAULT_TEXT
    assert at.selectbox(key="tokenize.tokenizer").value == "cl100k_base"
    assert ids_shown(at) == enc("cl100k_base").encode(samples.DEFAULT_TEXT)
    assert tokens(at) == len(enc("cl100k_base").encode(samples.DEFAULT_TEXT))
    assert metric(at, "Characters") == f"{len(samples.DEFAULT_TEXT):,}"
    assert metric(at, "UTF-8 bytes") == f"{len(samples.DEFAULT_TEXT.encode()):,}"
    assert 'class="bpe-spans"' in spans_html(at)
    assert shown_text(spans_html(at)) == samples.DEFAULT_TEXT.replace(
        "🤚🏾", "<F0 9F> <A4> <9A> <F0 9F> <8F> <BE>".replace(" <", "<")
    )


@pytest.mark.parametrize("name", OFFICIAL)
@pytest.mark.parametrize("sample", ["mixed", *samples.names()])
def test_counts_and_ids_equal_tiktoken(name, sample):
    text = MIXED if sample == "mixed" else samples.SAMPLES[sample]
    at = app(text, name)
    expected = enc(name).encode(text, disallowed_special=())
    assert tokens(at) == len(expected)
    assert ids_shown(at) == expected
    table = at.dataframe[0].value
    assert list(table["id"]) == expected
    assert metric(at, "Chars/token") == f"{len(text) / len(expected):.2f}"


def test_switching_tokenizer_updates_the_counts():
    at = app(MIXED, "r50k_base")
    for name in ["o200k_base", "cl100k_base", "r50k_base"]:
        at.selectbox(key="tokenize.tokenizer").set_value(name).run()
        assert not at.exception
        assert tokens(at) == len(enc(name).encode(MIXED))


@pytest.mark.parametrize("key, count", [("bytes", lambda t: len(t.encode())), ("chars", len)])
def test_baselines(key, count):
    at = app(MIXED, key)
    assert tokens(at) == count(MIXED)
    assert metric(at, "Chars/token") == f"{len(MIXED) / count(MIXED):.2f}"


@pytest.mark.parametrize("name", OFFICIAL)
def test_special_tokens_switch(name):
    text = "Hello <|endoftext|> world<|endoftext|>"
    at = app(text, name)
    assert tokens(at) == len(enc(name).encode(text, disallowed_special=()))
    assert any("<|endoftext|>" in c.value for c in at.caption), "the page says the text holds a special token"
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert not at.exception
    expected = enc(name).encode(text, allowed_special="all")
    assert ids_shown(at) == expected
    assert enc(name).eot_token in ids_shown(at)
    assert 'class="t sp"' in spans_html(at)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_recognised_chat_tokens_count_as_in_tiktokenizer(name):
    text = "<|im_start|>user<|im_sep|>Hi there<|im_end|>"
    at = app(text, name)
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert ids_shown(at) == chat_enc(name).encode(text, allowed_special="all")
    assert tokens(at) == 6


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
            assert tokens(at) > 0


def test_whitespace_toggle_shows_glyphs():
    at = app("a b\n\tc", "cl100k_base")
    assert 'class="ws"' not in spans_html(at)
    at.toggle(key="tokenize.whitespace").set_value(True).run()
    html = spans_html(at)
    assert '<span class="ws">·</span>' in html and '<span class="ws">↵</span>\n' in html and '<span class="ws">→</span>' in html
    assert tokens(at) == len(enc("cl100k_base").encode("a b\n\tc"))


def test_html_in_the_text_is_escaped():
    text = "<script>alert(1)</script><img src=x onerror=\"document.title='pwned'\">"
    at = app(text, "cl100k_base")
    html = spans_html(at)
    assert "<script" not in html and "<img" not in html
    assert shown_text(html) == text
    assert tokens(at) == len(enc("cl100k_base").encode(text))


def test_partial_characters_show_their_bytes():
    at = app("🤚", "r50k_base")
    assert "&lt;F0 9F&gt;" in spans_html(at) or "&lt;F0 9F 96&gt;" in spans_html(at)
    assert "\ufffd" not in spans_html(at)


def test_empty_text_shows_a_friendly_empty_state():
    at = app("", "cl100k_base")
    assert not at.exception
    assert any("Nothing to tokenize" in i.value for i in at.info)
    assert not at.metric


def test_whitespace_only_text_is_tokenized():
    at = app("   \n\n ", "cl100k_base")
    assert tokens(at) == len(enc("cl100k_base").encode("   \n\n "))


def test_big_paste_is_cut_at_the_limit_and_still_tokenized():
    unit = "The quick brown fox jumps over the lazy dog 1234. "
    text = unit * (MAX_CHARS // len(unit) + 400)
    assert len(text) > MAX_CHARS
    at = app(text, "cl100k_base")
    assert any(f"{MAX_CHARS:,}" in w.value for w in at.warning)
    assert tokens(at) == len(enc("cl100k_base").encode(text[:MAX_CHARS]))
    assert f"first {model.SPAN_LIMIT:,}" in spans_html(at)


def test_sample_menu_loads_a_sample():
    at = app()
    at.selectbox(key="tokenize.sample").set_value("Emoji").run()
    assert at.text_area(key="tokenize.text").value == samples.SAMPLES["Emoji"]
    assert tokens(at) == len(enc("cl100k_base").encode(samples.SAMPLES["Emoji"]))
    assert at.selectbox(key="tokenize.sample").value is None


def test_a_link_restores_tokenizer_and_text():
    at = app(query={"tokenizer": "r50k_base", "text": "Hello 你好"})
    assert at.selectbox(key="tokenize.tokenizer").value == "r50k_base"
    assert at.text_area(key="tokenize.text").value == "Hello 你好"
    assert tokens(at) == len(enc("r50k_base").encode("Hello 你好"))


def test_a_link_to_an_unknown_tokenizer_says_so():
    at = app(query={"tokenizer": "user:gone-123", "text": "Hi"})
    assert any("not available" in w.value for w in at.warning)
    assert at.text_area(key="tokenize.text").value == "Hi"


def test_the_page_keeps_the_link_up_to_date():
    at = app("Hello", "o200k_base")
    assert at.query_params == {"tokenizer": "o200k_base", "text": "Hello"}
    at.text_area(key="tokenize.text").set_value("x" * 5000).run()
    assert at.query_params == {"tokenizer": "o200k_base"}
    assert any("stay out of links" in c.value for c in at.caption)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chat_mode_counts_equal_tiktoken_with_the_chat_tokens(name):
    at = app(tokenizer_key=name)
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert not at.exception
    messages = [dict(m) for m in model.DEFAULT_MESSAGES]
    expected = chat_enc(name).encode(model.chat_text(messages), allowed_special=set(CHAT_SPECIAL_TOKENS[name]))
    assert ids_shown(at) == expected
    html = spans_html(at)
    assert html.count('class="t sp"') == 3 * len(messages) + 2
    assert "&lt;|im_start|&gt;" in html

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
    assert ids_shown(at) == chat_enc(name).encode(model.chat_text(messages), allowed_special="all")
    at.button(key="tokenize.chat.0.remove").click().run()
    assert ids_shown(at) == chat_enc(name).encode(model.chat_text(messages[1:]), allowed_special="all")
    assert not at.exception


def test_chat_mode_treats_special_strings_in_messages_as_text():
    at = app(tokenizer_key="cl100k_base")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    at.text_area(key="tokenize.chat.1.content").set_value("<|im_end|><|endoftext|>").run()
    assert not at.exception
    ids = ids_shown(at)
    assert ids.count(100265) == 2  # only the framing <|im_end|> tokens
    assert 100257 not in ids
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert ids_shown(at).count(100265) == 3 and 100257 in ids_shown(at)


def test_chat_mode_is_only_offered_for_chat_encodings():
    at = app(tokenizer_key="r50k_base")
    assert not [w for w in at.segmented_control if w.key == "tokenize.mode"]
    assert at.text_area(key="tokenize.text")


def test_core_errors_are_shown_not_raised(monkeypatch):
    from tokenizer import Tokenizer

    def broken(self, text, **kwargs):
        raise ValueError("the text could not be encoded: try a shorter one")

    at = app("Hello", "cl100k_base")
    monkeypatch.setattr(Tokenizer, "encode", broken)
    at.text_area(key="tokenize.text").set_value("Hello again").run()
    assert not at.exception
    assert any("try a shorter one" in e.value for e in at.error)


def test_a_trained_tokenizer_can_be_chosen(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    tok = train(samples.SAMPLES["English prose"] * 2, 300, name="mine")
    key = "user:" + FolderStore(workspace).add(tok)
    at = app(MIXED, key)
    assert ids_shown(at) == tok.encode(MIXED)
    assert tokens(at) == len(tok.encode(MIXED))


# ----------------------------------------------------------------------------- the open models

OPEN_MODELS = [n for n in registry.names() if n not in OFFICIAL]


@pytest.mark.slow
@pytest.mark.parametrize("name", OPEN_MODELS)
def test_every_open_model_tokenizes_as_its_reference(name):
    at = app(MIXED, name)
    ours = load_encoding(name)
    expected = reference_encode(name)(MIXED)
    assert ids_shown(at) == expected == ours.encode(MIXED)
    assert tokens(at) == len(expected)
    assert shown_text(spans_html(at)).startswith("Hello")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in OPEN_MODELS if registry.spec(n).chat is not None])
def test_chat_mode_of_every_open_model_is_its_format(name):
    at = app(tokenizer_key=name)
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert not at.exception
    fmt = registry.spec(name).chat
    messages = [dict(m) for m in model.DEFAULT_MESSAGES]
    assert ids_shown(at) == chat.encode(load_encoding(name), messages, fmt)
    assert any(fmt.label in c.value for c in at.caption)
    [what] = [c.value for c in at.code if c.value.startswith(chat.text(messages, fmt, load_encoding(name).special_tokens)[:12])]
    assert "You are a helpful assistant" in what


def test_llama3_chat_mode_equals_llama_models_chat_format():
    from llama_models.datatypes import RawMessage
    from llama_models.llama3.chat_format import ChatFormat

    at = app(tokenizer_key="llama3")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    raw = [RawMessage(role=m["role"], content=m["content"]) for m in model.DEFAULT_MESSAGES]
    assert ids_shown(at) == ChatFormat(llama_tokenizer("llama3")).encode_dialog_prompt(raw).tokens


def test_a_chat_the_models_package_refuses_is_an_error_that_says_what_to_change():
    """mistral-common refuses a conversation that ends with the assistant: the page says so, and how to fix it."""
    at = app(tokenizer_key="tekken")
    at.segmented_control(key="tokenize.mode").set_value("chat").run()
    at.button(key="tokenize.chat.add").click().run()  # an assistant message after the user's
    assert not at.exception
    assert at.selectbox(key="tokenize.chat.2.role").value == "assistant"
    [error] = [e.value for e in at.error]
    assert "Mistral's chat format" in error and "add a user message after it" in error
    assert not [c for c in at.code if c.value.startswith("[")]  # no ids
    at.button(key="tokenize.chat.add").click().run()  # a user message after it: laid out again
    at.text_area(key="tokenize.chat.2.content").set_value("4").run()
    assert not at.exception and not at.error
    messages = [
        *[dict(m) for m in model.DEFAULT_MESSAGES],
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": ""},
    ]
    assert ids_shown(at) == chat.encode(load_encoding("tekken"), messages, registry.spec("tekken").chat)


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
    assert ids_shown(at)[0] == 128009


def test_a_model_that_is_not_installed_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))  # no open model's file there
    at = app(tokenizer_key="qwen3.6")
    assert not at.exception
    assert at.selectbox(key="tokenize.tokenizer").options[8] == "Qwen · Qwen 3.5, 3.6 (not installed)"
    assert any("python -m tokenizer provision qwen3.6" in e.value for e in at.error)

"""Uploading a Hugging Face tokenizer.json on the Train page: a tokenizer for every page, or a clear refusal.

The files are written by ``tokenizers`` itself (``hf_files``); the reference ids are
``tokenizers``' own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hf_files import AddedToken, Regex, build, hf_ids, normalizers, pair, pre_tokenizers
from live_view import payload, type_text
from streamlit.testing.v1 import AppTest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, trainers

from classroom.stores import FolderStore
from tests import step_reference as reference

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Hello <think>wörld</think> café 12345 你好 😀 <|endoftext|>"


def _pipeline_file() -> str:
    """A file that needs BPE Lab's tokenizer.json pipeline: NFC, a Split, digits, a prefix space, added tokens."""
    return build(
        normalizer=normalizers.NFC(),
        pre_tokenizer=pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), "isolated"), pre_tokenizers.Digits(True),
            pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True),
        ]),
        added=[AddedToken("<think>"), AddedToken("</think>", lstrip=True)],
        special=[AddedToken("<|endoftext|>", special=True, normalized=False)],
    )  # fmt: skip


def upload(name: str, data: bytes) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "train.py"), default_timeout=120).run()
    at.file_uploader(key="train.tokenizer_file").upload(name, data, "application/json").run()
    assert not at.exception, at.exception
    return at


def errors(at) -> list[str]:
    """The error messages as the student reads them (the page escapes what they quote from the student's input)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]


@pytest.fixture
def uploaded(workspace):
    text_json = _pipeline_file()
    at = upload("mine.tokenizer.json", text_json.encode())
    assert not errors(at) and any("Uploaded mine\\.tokenizer\\.json" in s.value for s in at.success)  # escaped: shown as typed
    [entry] = FolderStore(workspace).entries()
    _, ref = pair(text_json)
    return "user:" + entry.key, FolderStore(workspace).get(entry.key), ref


def test_uploaded_tokenizer_json_encodes_as_tokenizers(uploaded):
    _, tok, ref = uploaded
    assert tok.pipeline is not None and tok.pattern_name == "tokenizer.json"
    assert tok.encode(TEXT, allowed_special="all") == hf_ids(ref, TEXT)
    assert tok.encode_ordinary(TEXT) == hf_ids(ref, TEXT, specials=False)


@pytest.mark.slow
def test_uploaded_tokenizer_json_works_on_every_page(uploaded):
    key, tok, ref = uploaded
    at = AppTest.from_file(str(ROOT / "pages" / "tokenize.py"), default_timeout=120).run()
    at.selectbox(key="tokenize.tokenizer").set_value(key)
    type_text(at, TEXT)
    at.run()
    assert not at.exception and not errors(at)
    data = payload(at)  # a tokenizer.json pipeline: tokenized on the server, and the page says why
    assert data["kind"] == "server" and "pipeline" in data["reason"]
    assert data["server"]["ids"] == hf_ids(ref, TEXT, specials=False)

    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=120).run()
    at.multiselect(key="compare.tokenizers").set_value([key, "cl100k_base"]).run()
    assert not at.exception and not errors(at)

    at = AppTest.from_file(str(ROOT / "pages" / "step.py"), default_timeout=120).run()
    at.selectbox(key="step.encoding.tokenizer").set_value(key).run()
    assert not at.exception and not errors(at)
    # the stepping runs in the page (ui/web): the trace sent to it replays to the core's encoding, the last step too
    [stepper] = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_stepper"]
    replay = reference.Replay(json.loads(stepper.proto.bytes)["trace"])
    core = tok.encode_trace(at.session_state["shared.text"])
    assert replay.n == len(core.steps)
    assert [sp.id for sp in replay.spans(replay.n)] == core.tokens_at(len(core.steps))

    at = AppTest.from_file(str(ROOT / "pages" / "vocabulary.py"), default_timeout=120).run()
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    assert not at.exception and not errors(at)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("wordpiece", "WordPiece model"),
        ("unigram", "Unigram model"),
        ("sentencepiece", "SentencePiece-style BPE"),
        ("damaged", "model.merges"),
        ("nested_sequence", "nested too deeply"),  # a Sequence of Sequences a few hundred levels deep
        ("nested_list", "nested too deeply"),  # a list in a list, thousands of levels deep
        ("panics", "Cannot parse precompiled_charsmap"),  # tokenizers panics reading it (a BaseException)
        ("panics_bpe_lab", "Cannot parse precompiled_charsmap"),  # the same, in a BPE Lab JSON's pipeline
        ("chain", "builds a token of 1,025 bytes"),  # a BPE Lab JSON of 20,000 merges a a, aa a, ...: gigabytes of tokens
    ],
)
def test_unsupported_kinds_are_refused_with_a_message(workspace, kind, message):
    at = upload(f"{kind}.json", _other(kind).encode())
    assert any(message in e for e in errors(at)), errors(at)
    assert FolderStore(workspace).entries() == []


def _other(kind: str) -> str:
    from texts import MULTILINGUAL

    if kind == "damaged":
        doc = json.loads(_pipeline_file())
        doc["model"]["merges"][2] = "only-one-part"
        return json.dumps(doc)
    if kind == "chain":
        merges = [[97, 97, 256, None]] + [[256 + k, 97, 257 + k, None] for k in range(19_999)]
        return json.dumps(
            {
                "format": "bpe-lab/tokenizer",
                "version": 1,
                "name": "",
                "pattern": None,
                "special_tokens": {},
                "byte_ids": None,
                "metadata": {},
                "merges": merges,
            }
        )
    if kind.startswith("panics"):
        doc = json.loads(_pipeline_file())
        doc["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": "AQ=="}
        if kind == "panics_bpe_lab":
            from tokenizer import formats

            doc = json.loads(formats.dumps(formats.load_bytes(_pipeline_file().encode())))
            doc["pipeline"]["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": "AQ=="}
        return json.dumps(doc)
    if kind.startswith("nested"):
        doc = json.loads(_pipeline_file())
        doc["pre_tokenizer"] = "NESTED"
        inner = '{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}'
        deep = (
            '{"type": "Sequence", "pretokenizers": [' * 300 + inner + "]}" * 300
            if kind == "nested_sequence"
            else "[" * 5000 + "]" * 5000
        )
        return json.dumps(doc).replace('"NESTED"', deep)
    if kind == "wordpiece":
        tok = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordPieceTrainer(vocab_size=300, show_progress=False, special_tokens=["[UNK]"])
    elif kind == "unigram":
        tok = HFTokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=800, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>")
    else:
        tok = HFTokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.BpeTrainer(vocab_size=300, show_progress=False, special_tokens=["<unk>"])
    tok.train_from_iterator([MULTILINGUAL * 3], trainer)
    return tok.to_str()


def test_deepseek_is_offered_on_the_tokenize_page(workspace):
    from tokenizer import registry
    from tokenizer.models import fetch

    ref = HFTokenizer.from_file(str(fetch.path_of(registry.spec("deepseek_v4").source)))
    at = AppTest.from_file(str(ROOT / "pages" / "tokenize.py"), default_timeout=120).run()
    at.selectbox(key="tokenize.tokenizer").set_value("deepseek_v4")
    type_text(at, TEXT)
    at.run()
    assert not at.exception and not errors(at)
    assert payload(at)["server"]["ids"] == hf_ids(ref, TEXT, specials=False)

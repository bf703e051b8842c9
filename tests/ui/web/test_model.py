"""ui/web/model.py: the model files the browser encodes with, and which tokenizers stay on the server."""

from __future__ import annotations

import json
import re
import unicodedata

import numpy as np
import pytest
from hf_files import build, normalizers, pair

from tokenizer import Tokenizer, load_encoding, registry, train
from tokenizer.baselines import CharTokenizer, bytes_tokenizer
from tokenizer.bpe.merges import MergeTable
from ui.web import model
from ui.web.jsregex import pattern_spec


def read(data: bytes) -> dict:
    """The model file's sections, read back by the layout the module documents."""
    head = np.frombuffer(data[:32], dtype="<u4")
    assert data[:4] == b"BPEL" and head[1] == model.VERSION
    n_merges, n_whole, whole_bytes, pattern_bytes, special_bytes = (int(x) for x in head[2:7])
    words = np.frombuffer(data[32 : 32 + 4 * (256 + 3 * n_merges + 2 * n_whole)], dtype="<u4")
    byte_ids, rest = words[:256], words[256:]
    merges, rest = rest[: 3 * n_merges].reshape(-1, 3), rest[3 * n_merges :]
    ids, lens = rest[:n_whole], rest[n_whole:]
    at = 32 + 4 * len(words)
    whole, pos = {}, at
    for i, n in zip(ids, lens):
        whole[int(i)] = data[pos : pos + int(n)]
        pos += int(n)
    assert pos == at + whole_bytes
    pattern = json.loads(data[pos : pos + pattern_bytes]) if pattern_bytes else None
    specials = json.loads(data[pos + pattern_bytes :]) if special_bytes else {}
    assert len(data) == pos + pattern_bytes + special_bytes
    form = model.NORMAL_FORMS[int(head[7])]
    return {
        "byte_ids": byte_ids.tolist(),
        "merges": merges.tolist(),
        "whole": whole,
        "pattern": pattern,
        "specials": specials,
        "form": form,
    }


def test_a_trained_tokenizer_round_trips_through_its_file():
    tok = train("Hello world, hello tokens! " * 20 + "你好 😄", 300, pattern="gpt4", special_tokens=["<|endoftext|>"])
    got = read(model.model_file(tok))
    assert got["byte_ids"] == list(range(256))
    assert [(a, b) for a, b, _ in got["merges"]] == tok.merge_table.pairs
    assert [n for _, _, n in got["merges"]] == tok.merge_table.new_ids
    assert got["whole"] == {} and got["specials"] == tok.special_tokens
    assert got["pattern"] == pattern_spec(tok.pattern) and got["form"] is None


@pytest.mark.parametrize("name", [n for n in registry.names() if registry.spec(n).normalizer is not None])
def test_a_model_that_normalizes_says_so_in_its_file(name):
    tok = load_encoding(name)
    assert tok.normalizer == "NFC" and model.browser_reason(tok) is None
    assert read(model.model_file(tok, check_shortcuts=False))["form"] == "NFC"


def test_other_normal_forms_stay_on_the_server():
    tok = Tokenizer(pattern="gpt4", normalizer="NFKC")
    assert "normal form NFKC" in model.browser_reason(tok)


def test_code_points_python_cannot_print_are_inert_under_nfc_but_two():
    """What bpe.js nfcAsPython relies on: cutting the text at every code point Python cannot print and
    normalizing the runs between them gives Python's NFC. Over all of Unicode (Python's version): such a code
    point is unassigned, or assigned with canonical combining class 0, no canonical decomposition but
    U+2000 and U+2001's, and no part in any composition (NFC leaves it, with any letter or mark beside it, alone)."""
    changed = {}
    for cp in range(0x80, 0x110000):
        ch = chr(cp)
        if ch.isprintable() or 0xD800 <= cp <= 0xDFFF or unicodedata.category(ch) == "Cn":
            continue
        assert unicodedata.combining(ch) == 0, hex(cp)
        if unicodedata.normalize("NFC", ch) != ch:
            changed[cp] = unicodedata.normalize("NFC", ch)
        for other in ("e\u0301", "\u0301", "\u1100", "\u1161", "\u11a8", "A"):
            assert unicodedata.normalize("NFC", other + ch) == unicodedata.normalize("NFC", other) + unicodedata.normalize(
                "NFC", ch
            )
            assert unicodedata.normalize("NFC", ch + other) == unicodedata.normalize("NFC", ch) + unicodedata.normalize(
                "NFC", other
            )
    assert changed == {0x2000: "\u2002", 0x2001: "\u2003"}


def test_an_official_encoding_keeps_its_byte_ids_and_whole_tokens():
    tok = load_encoding("llama3")
    got = read(model.model_file(tok, check_shortcuts=False))
    assert got["byte_ids"] == list(tok.byte_ids) and got["byte_ids"] != list(range(256))
    assert got["whole"] == tok.whole_tokens and len(got["whole"]) > 100
    assert len(got["merges"]) == tok.num_merges
    assert got["specials"] == tok.special_tokens


def test_a_shortcut_the_core_takes_travels_as_a_whole_token():
    # "abc" is minted as ab + c, but merging its bytes gives a + bc: only the core's shortcut gives 258
    table = MergeTable([(98, 99), (97, 98), (257, 99)], [256, 257, 258])
    tok = Tokenizer._derived(table, pattern=None, self_encoding=frozenset({256, 257, 258}))
    assert tok.encode("abc") == [258] and tok.encode_bytes(b"abc") == [97, 256]
    assert model.shortcut_exceptions(tok) == {258: b"abc"}
    assert read(model.model_file(tok))["whole"] == {258: b"abc"}
    assert read(model.model_file(tok, check_shortcuts=False))["whole"] == {}


def test_trained_tokenizers_need_no_exceptions():
    tok = train("aaabdaaabac " * 30, 280, pattern=None)
    assert model.shortcut_exceptions(tok) == {}


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in registry.names() if not registry.spec(n).staged and registry.spec(n).kind == "bpe"])
def test_no_registered_encoding_needs_exceptions(name):
    """What lets the app skip the check (seconds per encoding) for the registry's files."""
    assert model.shortcut_exceptions(load_encoding(name)) == {}


def read_spm(data: bytes) -> dict:
    """A SentencePiece-style model file's sections, read back by the layout the module documents."""
    head = np.frombuffer(data[:32], dtype="<u4")
    assert data[:4] == model.SPM_MAGIC and head[1] == model.SPM_VERSION
    n, n_merges, text_bytes, special_bytes, flags = (int(x) for x in head[2:7])
    at = 32
    if flags & model.SPM_MERGES:
        order = np.frombuffer(data[at : at + 8 * n_merges], dtype="<u4").reshape(-1, 2).tolist()
        at += 8 * n_merges
    else:
        order = np.frombuffer(data[at : at + 4 * n], dtype="<f4").tolist()
        at += 4 * n
    units = np.frombuffer(data[at : at + 2 * n], dtype="<u2").tolist()
    types = list(data[at + 2 * n : at + 3 * n])
    at += 3 * n
    text = data[at : at + text_bytes].decode("utf-8").encode("utf-16-le")
    pieces, pos = [], 0
    for u in units:
        pieces.append(text[2 * pos : 2 * (pos + u)].decode("utf-16-le"))
        pos += u
    specials = json.loads(data[at + text_bytes :]) if special_bytes else {}
    assert len(data) == at + text_bytes + special_bytes
    return {"flags": flags, "order": order, "pieces": pieces, "types": types, "specials": specials}


@pytest.mark.parametrize("name", ["llama2", "phi3", "gemma4"])
def test_a_sentencepiece_model_goes_to_the_browser_whole(name):
    """Every piece, type and score (or the merge list in rank order, each pair once) and the special tokens."""
    tok = load_encoding(name)
    m = tok.model
    assert model.browser_reason(tok) is None
    got = read_spm(model.model_file(tok))
    assert got["pieces"] == m.pieces and got["types"] == m.types and got["specials"] == tok.special_tokens
    assert bool(got["flags"] & model.SPM_PREFIX) == m.add_space_prefix
    assert bool(got["flags"] & model.SPM_NEWLINES) == m.split_newlines
    if m.merge_rank is None:
        assert got["order"] == m.scores  # float32 in the file as in the GGUF: the same values
    else:
        n = m.n_vocab
        assert [a * n + b for a, b in got["order"]] == sorted(m.merge_rank, key=m.merge_rank.__getitem__)


def test_a_sentencepiece_model_cut_to_its_first_pieces_stays_on_the_server():
    tok = load_encoding("llama2").truncated(100)
    assert "cut to its first merged pieces" in model.browser_reason(tok)
    with pytest.raises(ValueError, match="cannot be tokenized in the browser"):
        model.model_file(tok)


@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3"])
def test_a_model_read_from_a_sentencepiece_file_stays_on_the_server(name):
    """spm.js follows llama.cpp's rules; a .model file's are the sentencepiece package's, which only the core has."""
    tok = load_encoding(name)
    assert tok.kind == "sentencepiece" and tok.model.rules == "sentencepiece"
    assert "SentencePiece .model file" in model.browser_reason(tok)
    with pytest.raises(ValueError, match="cannot be tokenized in the browser"):
        model.model_file(tok)


def test_what_stays_on_the_server_says_why():
    pipeline, _ = pair(build(normalizer=normalizers.NFC()))
    assert pipeline.pipeline is not None
    assert "tokenizer.json pipeline" in model.browser_reason(pipeline)
    assert model.browser_reason(CharTokenizer()) == "it is not a BPE tokenizer"
    assert "reads differently" in model.browser_reason(Tokenizer(pattern=r"(?<=\s)\w+|\S"))
    assert "empty string" in model.browser_reason(Tokenizer(pattern=r"\w*"))
    assert model.browser_reason(bytes_tokenizer()) is None
    with pytest.raises(ValueError, match="cannot be tokenized in the browser"):
        model.model_file(Tokenizer(pattern=r"\w*"))


def test_files_are_named_by_content_and_written_once(tmp_path):
    data = model.model_file(bytes_tokenizer())
    url = model.publish_model(data, tmp_path)
    name = model.content_name(data)
    assert url == f"app/static/bpe/models/{name}"
    path = tmp_path / "bpe" / "models" / name
    assert path.read_bytes() == data
    mtime = path.stat().st_mtime_ns
    assert model.publish_model(data, tmp_path) == url and path.stat().st_mtime_ns == mtime
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp")]


def test_assets_are_served_from_a_folder_named_by_their_content(tmp_path):
    url = model.publish_assets(tmp_path / "static")
    assert url.startswith("app/static/bpe/web-") and url.endswith("/web/")
    folder = tmp_path / "static" / "bpe" / url.split("/")[3]
    names = model.browser_modules()
    assert {"web/bpe.js", "web/worker.js", "step/stepper.js", "compare/rows.js", "lesson/keys.js", "tokenize/live.js"} <= set(
        names
    )
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == sorted(names)
    for name in names:
        assert (folder / name).read_bytes() == (model.UI / name).read_bytes()
    ui = tmp_path / "ui"
    for name in names:
        (ui / name).parent.mkdir(parents=True, exist_ok=True)
        (ui / name).write_bytes((model.UI / name).read_bytes())
    (ui / "step" / "replay.js").write_bytes(b"// changed\n" + (ui / "step" / "replay.js").read_bytes())
    assert model.publish_assets(tmp_path / "static", ui) != url


#: import x from "./a.js"; import { a } from "../web/b.js"; export { c } from "./c.js"; import "./d.js"
_IMPORT = re.compile(r"""^[ \t]*(?:import|export)\s*(?:[\w*\s{},$]*?\bfrom\s*)?["']([^"'\n]+)["']""", re.M)


def test_every_component_script_imports_its_module_and_every_import_is_served(tmp_path, monkeypatch):
    monkeypatch.setenv(model.STATIC_ENV, str(tmp_path))
    entries = ["step/stepper.js", "step/pairs.js", "compare/rows.js", "lesson/keys.js", "tokenize/live.js"]
    for entry in entries:
        script = model.component_script(model.UI / entry)
        url = re.fullmatch(
            r'const m = await import\(new URL\("([^"]+)", document.baseURI\).href\);\nexport default m.default;\n', script
        )[1]
        assert url.startswith("app/static/") and url.endswith("/" + entry)
        served = tmp_path / url.removeprefix("app/static/")
        assert served.read_bytes() == (model.UI / entry).read_bytes()
    # every relative import of every served module names a served file (the browser resolves them as node does)
    folder = served.parents[1]
    for path in folder.rglob("*.js"):
        for spec in _IMPORT.findall(path.read_text(encoding="utf-8")):
            assert spec.startswith(("./", "../")), (path, spec)
            assert (path.parent / spec).resolve().is_file(), (path, spec)


def test_a_component_script_on_a_full_disk_is_a_message(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(model.STATIC_ENV, str(blocked))  # the folder cannot be made: an OSError like a full disk's
    with pytest.raises(ValueError, match="cannot write the files this view needs"):
        model.component_script(model.UI / "step" / "stepper.js")

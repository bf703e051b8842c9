"""Every loader, fed mutations of a valid file: it is refused with a ValueError, or it loads
into a tokenizer that works (encodes, decodes back, saves and loads again)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL

from tests.tier import examples
from tokenizer import Tokenizer, formats, load_encoding, train
from tokenizer.formats.gpt2 import gpt2_files_from_ranks, load_gpt2_files

SAMPLE = "Hello wörld 12345 <|endoftext|> 😄\n\tcode(); 你好"


@pytest.fixture(scope="module")
def valid_files():
    trained = train(MULTILINGUAL * 2, 256 + 80, special_tokens=["<|endoftext|>", "<|x|>"])
    shuffled = load_encoding("gpt2").truncated(120)  # official byte ids are a permutation
    small_ranks = formats.to_tiktoken_ranks(shuffled)
    gpt2 = gpt2_files_from_ranks(small_ranks)
    # a tiktoken-style vocabulary as Llama 3's: merges that build on later ones, whole tokens
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({t: 256 + i for i, t in enumerate([b"aba", b"ab", b"abc", b"bc", b"xyz", b"yzx", b"Hel", b"He", b"llo", b"ll"])})
    tiktoken_style = Tokenizer.from_ranks(ranks, pattern="gpt4", special_tokens={"<|endoftext|>": 300})
    assert tiktoken_style.whole_tokens and tiktoken_style._order is not None
    return {
        "json": formats.dumps(trained).encode(),
        "json-shuffled": formats.dumps(shuffled).encode(),
        "json-whole": formats.dumps(tiktoken_style).encode(),
        "minbpe": formats.dumps_minbpe(trained).encode(),
        "tiktoken": formats.dumps_tiktoken(trained),
        "tiktoken-whole": formats.dumps_tiktoken(tiktoken_style),
        "encoder.json": gpt2["encoder.json"],
        "vocab.bpe": gpt2["vocab.bpe"],
    }


def works(tok: Tokenizer) -> None:
    """A loaded tokenizer must do everything a tokenizer does, without surprises."""
    try:
        ids = tok.encode(SAMPLE, disallowed_special=())
    except ValueError as e:  # a custom pattern from the file that ran out of time is a fair refusal
        assert "took longer" in str(e)
        return
    assert tok.decode(ids) == SAMPLE
    assert tok.decode(tok.encode(SAMPLE, allowed_special="all")) == SAMPLE
    assert len(tok.decode_tokens_bytes(sorted(tok.vocab))) == len(tok.vocab)
    tok.spans(ids)
    assert tok.encode_trace(SAMPLE[:24]).final == tok.encode(SAMPLE[:24], disallowed_special=())
    again = formats.loads(formats.dumps(tok))
    assert again.merges == tok.merges and again.special_tokens == tok.special_tokens and again.byte_ids == tok.byte_ids
    assert again.whole_tokens == tok.whole_tokens and again.encode(SAMPLE, disallowed_special=()) == ids


# ----------------------------------------------------------------------------- mutations


@st.composite
def byte_mutation(draw, data: bytes) -> bytes:
    """Delete, insert, replace, duplicate or swap a stretch; truncate; swap two lines."""
    n = len(data)
    i = draw(st.integers(0, n))
    j = draw(st.integers(i, min(n, i + 40)))
    kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "truncate", "swap-lines", "digit"]))
    if kind == "delete":
        return data[:i] + data[j:]
    if kind == "insert":
        return data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i:]
    if kind == "replace":
        return data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[j:]
    if kind == "duplicate":
        return data[:j] + data[i:j] + data[j:]
    if kind == "truncate":
        return data[:i]
    if kind == "digit":  # change a number: ids and ranks that collide, go missing or grow huge
        digits = [k for k in range(n) if 48 <= data[k] <= 57]
        if not digits:
            return data
        k = draw(st.sampled_from(digits))
        return data[:k] + draw(st.sampled_from([b"0", b"9", b"-", b"99999999999", b"1.5", b""])) + data[k + 1 :]
    lines = data.split(b"\n")
    a = draw(st.integers(0, len(lines) - 1))
    b = draw(st.integers(0, len(lines) - 1))
    lines[a], lines[b] = lines[b], lines[a]
    return b"\n".join(lines)


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.sampled_from([2**31, 2**63, 10**30, 255, 256, 1000]),
        st.floats(allow_nan=True),
        st.text(max_size=6),
        st.sampled_from(["\ud800", "<|endoftext|>", "(?r)\\w+", "[", "gpt2"]),
    ),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=4), children, max_size=3)),
    max_leaves=6,
)


@st.composite
def json_mutation(draw, data: bytes) -> bytes:
    """Replace or delete one value somewhere in the document (types and values gone wrong)."""
    doc = json.loads(data)
    path = []
    node = doc
    while isinstance(node, (dict, list)) and node and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        node = node[key]
    if not path:
        return data
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(json_values)
    return json.dumps(doc).encode("utf-8", "surrogatepass")


def mutated(data: bytes, structured: bool = False):
    strategies = [byte_mutation(data)]
    if structured:
        strategies.append(json_mutation(data))
    return st.one_of(*strategies)


FUZZ = settings(
    max_examples=examples(400), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None
)


def _load_or_refuse(load, *args, **kwargs):
    try:
        tok = load(*args, **kwargs)
    except ValueError as e:
        assert str(e)
        return
    works(tok)


@pytest.mark.parametrize("kind", ["json", "json-shuffled", "json-whole"])
@FUZZ
@given(data=st.data())
def test_bpe_lab_json(valid_files, kind, data):
    blob = data.draw(mutated(valid_files[kind], structured=True))
    _load_or_refuse(formats.load_bytes, blob)
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        return
    _load_or_refuse(formats.loads, text)


@FUZZ
@given(data=st.data())
def test_minbpe_model(valid_files, data):
    blob = data.draw(mutated(valid_files["minbpe"]))
    _load_or_refuse(formats.load_bytes, blob)
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        return
    _load_or_refuse(formats.loads_minbpe, text)


@pytest.mark.parametrize("kind", ["tiktoken", "tiktoken-whole"])
@FUZZ
@given(data=st.data())
def test_tiktoken_ranks(valid_files, kind, data):
    blob = data.draw(mutated(valid_files[kind]))
    _load_or_refuse(formats.load_bytes, blob, pattern="gpt4")

    def parse_then_build(b):
        return Tokenizer.from_ranks(formats.parse_tiktoken_ranks(b), pattern="gpt2")

    _load_or_refuse(parse_then_build, blob)


@pytest.mark.parametrize("kind", ["tiktoken", "tiktoken-whole"])
@FUZZ
@given(data=st.data(), layout=st.sampled_from([b"\n", b"\r\n", b"\n\n", b" \n"]))
def test_rank_files_read_in_c_as_line_by_line(valid_files, kind, data, layout):
    # the fast read (a file in tiktoken's own layout) gives what the line-by-line read gives, and whatever it does not
    # take goes to the line-by-line read, which names the line: same ranks in the same order, or the same message
    from tokenizer.formats.tiktoken import _parse_lines, _parse_plain

    blob = data.draw(mutated(valid_files[kind].replace(b"\n", layout)))

    def outcome(parse):
        try:
            return list(parse(blob).items())
        except ValueError as e:
            return str(e)

    assert outcome(lambda b: formats.parse_tiktoken_ranks(b, "f")) == outcome(lambda b: _parse_lines(b, "f"))
    assert _parse_plain(valid_files[kind]) is not None  # our own export is in tiktoken's layout: the fast read takes it


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base", "llama3"])
def test_the_provisioned_rank_files_are_read_in_c(name):
    from tokenizer.formats.tiktoken import _parse_lines, _parse_plain
    from tokenizer.models import pretrained

    data = pretrained.read_verified(pretrained.spec(name))
    fast = _parse_plain(data)
    assert fast is not None and list(fast.items()) == list(_parse_lines(data, name).items())


@FUZZ
@given(data=st.data(), which=st.sampled_from(["encoder.json", "vocab.bpe"]))
def test_gpt2_files(valid_files, tmp_path, data, which):
    files = dict(valid_files)
    files[which] = data.draw(mutated(files[which], structured=which == "encoder.json"))
    enc, bpe = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    enc.write_bytes(files["encoder.json"])
    bpe.write_bytes(files["vocab.bpe"])
    _load_or_refuse(load_gpt2_files, enc, bpe)


def test_valid_files_load_and_work(valid_files, tmp_path):
    for kind in ("json", "json-shuffled", "json-whole", "minbpe", "tiktoken", "tiktoken-whole"):
        works(formats.load_bytes(valid_files[kind]))
    (tmp_path / "e.json").write_bytes(valid_files["encoder.json"])
    (tmp_path / "v.bpe").write_bytes(valid_files["vocab.bpe"])
    works(load_gpt2_files(tmp_path / "e.json", tmp_path / "v.bpe"))

"""python -m tokenizer: train (streaming, exact), encode, decode, compare, export."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from corpus import MULTILINGUAL, stdlib_sample

from tokenizer import cli, formats, load_encoding, train


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text((MULTILINGUAL + stdlib_sample(60_000)).replace("\r", ""), encoding="utf-8")
    return path


def test_train_streams_blocks_and_equals_in_memory_training(corpus, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "BLOCK_CHARS", 4_096)  # many blocks, many cuts
    out = tmp_path / "tok.json"
    assert cli.main(["train", str(corpus), "--vocab-size", "600", "-o", str(out), "--special", "<|endoftext|>"]) == 0
    got = formats.load(out)
    want = train(corpus.read_text(encoding="utf-8"), 600, special_tokens=["<|endoftext|>"])
    assert got.merge_list == want.merge_list
    assert got.special_tokens == want.special_tokens
    captured = capsys.readouterr()
    assert "saved" in captured.out and "344 merges" in captured.out
    assert "[" in captured.err and "344/344" in captured.err  # the progress bar


def test_encode_decode_compare(corpus, capsys):
    assert cli.main(["encode", "-t", "gpt2", "This is some text"]) == 0
    assert capsys.readouterr().out.split() == ["1212", "318", "617", "2420"]
    assert cli.main(["decode", "-t", "gpt2", "1212", "318", "617", "2420"]) == 0
    assert capsys.readouterr().out == "This is some text\n"
    assert cli.main(["encode", "-t", "cl100k_base", "--json", "--file", str(corpus)]) == 0
    assert json.loads(capsys.readouterr().out) == load_encoding("cl100k_base").encode(corpus.read_text(), disallowed_special=())
    assert cli.main(["compare", "--text", "Hello 你好 world", "gpt2", "cl100k_base", "o200k_base"]) == 0
    table = capsys.readouterr().out
    assert "r50k_base" not in table and "gpt2" in table and "o200k_base" in table


def test_export_formats(corpus, tmp_path, capsys):
    src = tmp_path / "t.json"
    cli.main(["train", str(corpus), "--vocab-size", "300", "-o", str(src), "-q"])
    tok = formats.load(src)
    for fmt in ("tiktoken", "hf", "minbpe", "json"):
        out = tmp_path / f"out.{fmt}"
        assert cli.main(["export", "-t", str(src), "--format", fmt, "-o", str(out)]) == 0
        assert formats.load(out, pattern=tok.pattern).merges == tok.merges


def test_errors_exit_2_with_a_message(tmp_path, capsys):
    assert cli.main(["train", str(tmp_path / "missing.txt"), "--vocab-size", "300"]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café".encode("latin-1"))
    assert cli.main(["train", str(bad), "--vocab-size", "300"]) == 2
    assert "--replace-errors" in capsys.readouterr().err
    assert cli.main(["train", str(bad), "--vocab-size", "300", "--replace-errors", "-q", "-o", str(tmp_path / "x.json")]) == 0
    assert cli.main(["train", str(bad), "--vocab-size", "10"]) == 2
    assert "at least 256" in capsys.readouterr().err
    assert cli.main(["decode", "-t", "gpt2", "12", "abc"]) == 2
    assert cli.main(["encode", "-t", "no-such-thing", "x"]) == 2


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "tokenizer", "encode", "-t", "gpt2", "--tokens", "Hello world"], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["15496\tHello", "995\t·world"]


@pytest.mark.parametrize("name", ["llama3", "Llama-3.1", "llama4", "qwen2.5", "qwen3.5", "tekken", "mistral", "gpt-oss", "p50k_base"])
def test_every_model_name_and_alias_works_in_every_subcommand(name, tmp_path, capsys):
    text = "Hello việc 加拿大 .:.: 1234567"
    tok = load_encoding(name)
    assert cli.main(["encode", "-t", name, "--json", text]) == 0
    ids = json.loads(capsys.readouterr().out)
    assert ids == tok.encode(text)
    assert cli.main(["decode", "-t", name, "--raw", *map(str, ids)]) == 0
    assert capsys.readouterr().out == text
    assert cli.main(["compare", "--text", text, name, "gpt2"]) == 0
    assert f"{name:<24}{len(ids):>10}" in capsys.readouterr().out
    if name not in ("llama3", "qwen3.5"):  # exports of the two vocabularies with whole tokens; the others are alike
        return
    out = tmp_path / "model.json"
    assert cli.main(["export", "-t", name, "--format", "json", "-o", str(out)]) == 0
    assert formats.load(out).encode(text) == ids

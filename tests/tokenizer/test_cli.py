"""python -m tokenizer: train (streaming, exact), encode, decode, compare, export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from texts import MULTILINGUAL, stdlib_sample

from tokenizer import cli, formats, load_encoding, train

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text((MULTILINGUAL + stdlib_sample(60_000)).replace("\r", ""), encoding="utf-8")
    return path


def test_train_streams_blocks_and_equals_in_memory_training(corpus, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "BLOCK_BYTES", 4_096)  # many blocks, many cuts
    out = tmp_path / "tok.json"
    assert cli.main(["train", str(corpus), "--vocab-size", "600", "-o", str(out), "--special", "<|endoftext|>"]) == 0
    got = formats.load(out)
    want = train(corpus.read_text(encoding="utf-8"), 600, special_tokens=["<|endoftext|>"])
    assert got.merge_list == want.merge_list
    assert got.special_tokens == want.special_tokens
    captured = capsys.readouterr()
    assert "saved" in captured.out and "344 merges" in captured.out
    assert "merging" in captured.err and "344/344" in captured.err  # the progress bars
    assert "reading" in captured.err


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


def one_error_line(err: str) -> str:
    """The error is the last line of stderr, a whole line of its own (not glued to a progress bar)."""
    lines = err.split("\n")
    assert lines[-1] == ""
    last = lines[-2]
    assert last.startswith("error: ") and "\r" not in last
    assert sum(line.startswith("error: ") for line in lines) == 1
    return last


def test_errors_exit_2_with_a_message(tmp_path, capsys, monkeypatch):
    assert cli.main(["train", str(tmp_path / "missing.txt"), "--vocab-size", "300"]) == 2
    assert "does not exist" in one_error_line(capsys.readouterr().err)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"plain text, then " + "café".encode("latin-1"))
    for pattern in ("gpt4", r"\w+|\s+"):  # a custom pattern gets the same hint
        assert cli.main(["train", str(bad), "--vocab-size", "300", "--pattern", pattern, "-o", str(tmp_path / "x.json")]) == 2
        assert "invalid byte at offset 20" in one_error_line(capsys.readouterr().err)
        assert not (tmp_path / "x.json").exists()
    assert cli.main(["train", str(bad), "--vocab-size", "300", "--replace-errors", "-q", "-o", str(tmp_path / "x.json")]) == 0
    assert cli.main(["train", str(bad), "--vocab-size", "10"]) == 2
    assert "at least 256" in one_error_line(capsys.readouterr().err)
    assert cli.main(["decode", "-t", "gpt2", "12", "abc"]) == 2
    assert "not a token id" in one_error_line(capsys.readouterr().err)
    assert cli.main(["decode", "-t", "gpt2", "12", "99999999"]) == 2
    assert "cannot decode token id" in one_error_line(capsys.readouterr().err)
    assert cli.main(["encode", "-t", "no-such-thing", "x"]) == 2
    assert "neither an encoding" in one_error_line(capsys.readouterr().err)


def test_paths_are_checked_before_any_work(tmp_path, capsys, corpus, monkeypatch):
    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(cli, "train", no_training)
    cases = [
        (["train", str(tmp_path), "--vocab-size", "300"], "is a folder"),  # a directory as corpus
        (["train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path / "no" / "such" / "out.json")], "folder"),
        (["train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path)], "is a folder"),
    ]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    cases.append((["train", str(empty), "--vocab-size", "300"], "nothing to learn"))
    for argv, message in cases:
        assert cli.main(argv) == 2, argv
        assert message in one_error_line(capsys.readouterr().err), argv


def test_encode_compare_export_errors_are_one_line(tmp_path, capsys):
    missing = str(tmp_path / "missing.txt")
    cases = [
        (["encode", "-t", "gpt2", "--file", missing], "does not exist"),
        (["compare", "--file", missing, "gpt2"], "does not exist"),
        (["encode", "-t", "gpt2", "--file", str(tmp_path)], "is a folder"),
        (["export", "-t", "gpt2", "--format", "json", "-o", str(tmp_path / "no" / "out.json")], "does not exist"),
        (["export", "-t", "gpt2", "--format", "minbpe", "-o", str(tmp_path / "m.model")], "minbpe"),  # official byte order
        (["encode", "--tokenizer"], "expected one argument"),  # argparse's own errors are one line too
        (["train", "x"], "required"),
        (["nonsense"], "invalid choice"),
    ]
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("café".encode("latin-1"))
    cases.append((["encode", "-t", "gpt2", "--file", str(latin)], "not UTF-8"))
    for argv, message in cases:
        try:
            status = cli.main(argv)
        except SystemExit as e:  # argparse exits itself
            status = e.code
        assert status == 2, argv
        assert message in one_error_line(capsys.readouterr().err), argv


def test_a_corpus_of_only_special_tokens_has_nothing_to_learn(tmp_path, capsys):
    path = tmp_path / "specials.txt"
    path.write_text("<|endoftext|>" * 3)
    assert (
        cli.main(["train", str(path), "--vocab-size", "300", "--special", "<|endoftext|>", "-q", "-o", str(tmp_path / "t.json")])
        == 2
    )
    assert "nothing to learn" in one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "t.json").exists()


def test_failures_in_a_real_process_are_one_line_and_no_traceback(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "tokenizer", "train", str(tmp_path), "--vocab-size", "300"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")


def test_module_entry_point_runs():
    out = subprocess.run(
        [sys.executable, "-m", "tokenizer", "encode", "-t", "gpt2", "--tokens", "Hello world"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.splitlines() == ["15496\tHello", "995\t·world"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["llama3", "Llama-3.1", "llama4", "qwen2.5", "qwen3.5", "tekken", "mistral", "gpt-oss", "p50k_base"]
)
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


# ----------------------------------------------------------------------------- training variants


def test_train_parity_from_a_folder_or_a_json_file_equals_training_in_memory(tmp_path, capsys):
    from tokenizer.bpe.parity import train_parity
    from ui.compare.languages import PASSAGES

    texts = {lang: text for lang, (_, text) in list(PASSAGES.items())[:5]}
    folder = tmp_path / "parallel"
    folder.mkdir()
    for lang, text in texts.items():
        (folder / f"{lang}.txt").write_text(text, encoding="utf-8")
    as_json = tmp_path / "parallel.json"
    as_json.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    want = train_parity(texts, 400, global_merges=10)
    for source, order in ((folder, sorted(texts)), (as_json, list(texts))):
        out = tmp_path / "p.json"
        assert (
            cli.main(
                ["train", str(source), "--method", "parity", "--vocab-size", "400", "--global-merges", "10", "-o", str(out), "-q"]
            )
            == 0
        )
        got = formats.load(out)
        assert got.metadata["training"]["languages"] == order
        if order == list(texts):
            assert got.merge_list == want.merge_list
        table = capsys.readouterr().out
        assert "plain BPE" in table and "parity" in table and all(lang in table for lang in texts)
        assert "most/fewest tokens" in table


def test_train_superwords_and_continued_equal_training_in_memory(corpus, tmp_path, capsys):
    from tokenizer.bpe.continued import train_continued
    from tokenizer.bpe.superwords import train_superwords

    text = corpus.read_text(encoding="utf-8")
    out = tmp_path / "s.json"
    assert (
        cli.main(
            ["train", str(corpus), "--method", "superwords", "--vocab-size", "700", "--transition", "600", "-o", str(out), "-q"]
        )
        == 0
    )
    assert formats.load(out).merge_list == train_superwords(text, 700, transition=600).merge_list
    said = capsys.readouterr().out
    assert "stage 1 (within words)" in said and "stage 2 (across words)" in said and "Plain BPE of the same size" in said
    out = tmp_path / "c.json"
    base = load_encoding("gpt2")
    assert (
        cli.main(
            [
                "train",
                str(corpus),
                "--method",
                "continued",
                "--base",
                "gpt2",
                "--vocab-size",
                str(base.n_vocab + 50),
                "-o",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    got = formats.load(out)
    assert got.merge_list == train_continued(text, base.n_vocab + 50, base=base).merge_list
    assert got.special_tokens == base.special_tokens and got.byte_ids == base.byte_ids
    assert "50 new merges (ids 50,257 and up)" in capsys.readouterr().out


def test_variant_options_are_checked_before_any_work(corpus, tmp_path, capsys):
    cases = [
        (["--method", "continued"], "needs --base"),
        (["--method", "continued", "--base", "gpt2", "--pattern", "gpt2"], "keeps the base's split pattern"),
        (["--transition", "300"], "--transition is an option of --method superwords"),
        (["--method", "parity", "--base", "gpt2"], "--base is an option of --method continued"),
        (["--method", "continued", "--base", "gpt2"], "already uses ids up to 50,256"),
        (["--method", "superwords", "--transition", "900"], "transition must be a vocab size from 256 to vocab_size"),
        (["--method", "parity"], "give parallel texts in at least two languages"),
    ]
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "English.txt").write_text("hello", encoding="utf-8")
    for extra, message in cases:
        source = str(tmp_path / "one") if "parity" in extra else str(corpus)
        assert cli.main(["train", source, "--vocab-size", "600", "-o", str(tmp_path / "x.json"), "-q", *extra]) == 2, extra
        assert message in one_error_line(capsys.readouterr().err), extra
    assert not (tmp_path / "x.json").exists()

"""ui/step/payload.py: the trace the browser gets holds everything ui/step/model.py shows, at every step, compactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import step_reference as reference
from tests.tier import examples
from tokenizer import load_encoding, train
from ui.content import corpora
from ui.step import model, payload

CORPUS = (
    "Byte pair encoding merges the most frequent pair. The pair becomes a token; "
    "then it counts again. Hello 你好, emoji 😄🤪🧐! aaabdaaabac Honolulu\n\n"
) * 6
TEXT = "Show how tokenization is built up: Hello 你好 😄 <|endoftext|> .:.: việc  \n\t spaces  " * 3


def read(p: dict) -> reference.Replay:
    _, body = payload.dumps(p)
    return reference.Replay(json.loads(body))


def check_training(tok, excerpt: str) -> reference.Replay:
    etrace = model.excerpt_trace(tok, excerpt)
    r = read(payload.training_payload(tok, tok.training, etrace, corpus_chars=len(CORPUS)))
    assert r.n == tok.num_merges
    for k in range(tok.num_merges + 1):
        view = reference.training_view(tok, tok.training, etrace, k)
        assert r.spans(k) == view.spans, k
        assert r.highlight(k) == view.highlight, k
        assert r.cuts(k) == view.cuts, k
        assert r.length_at(k) == view.tokens, k
        if view.next is not None:
            assert r.merges[k] == (*view.next.pair, view.next.count)
    return r


@pytest.mark.parametrize("pattern", ["gpt4", None, "gpt2"])
def test_training_payload_replays_the_model_at_every_step(pattern):
    tok = train(CORPUS, 330, pattern=pattern, special_tokens=["<|endoftext|>"])
    check_training(tok, CORPUS[:300] + "<|endoftext|>" + CORPUS[300:600])


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base", "llama3"])
def test_encoding_payload_replays_the_model_at_every_step(name):
    tok = load_encoding(name)
    trace = tok.encode_trace(TEXT)
    r = read(payload.encoding_payload(tok, trace))
    assert r.n == len(trace.steps)
    for j in range(r.n + 1):
        view = reference.encoding_view(trace, j)
        assert r.spans(j) == view.spans, j
        assert r.highlight(j) == view.highlight, j
        assert r.cuts(j) == view.cuts, j
        if view.step is not None:
            mine = r.steps[j - 1]
            assert (mine.rank, mine.new_id, mine.pair, mine.positions, mine.n_tokens) == (
                view.step.rank,
                view.step.new_id,
                view.step.pair,
                view.step.positions,
                view.step.n_tokens,
            )
    assert [s.id for s in r.spans(r.n)] == tok.encode(TEXT, disallowed_special=())


def test_special_tokens_and_whole_chunks_are_there_from_step_zero():
    tok = load_encoding("llama3")
    trace = tok.encode_trace(TEXT + "<|begin_of_text|>", allowed_special="all")
    assert trace.specials and trace.wholes
    r = read(payload.encoding_payload(tok, trace))
    assert r.spans(0) == trace.spans_at(0) and any(s.special for s in r.spans(0))


@settings(max_examples=examples(40), deadline=None)
@given(
    text=st.text(alphabet="ab c\nαβ😄", min_size=1, max_size=120),
    merges=st.integers(1, 30),
    pattern=st.sampled_from([None, "gpt4"]),
)
def test_any_training_replays(text, merges, pattern):
    tok = train(text, 256 + merges, pattern=pattern)
    check_training(tok, text[: len(text) // 2 + 1])


def test_each_token_is_listed_once_and_steps_say_only_what_they_change():
    tok = load_encoding("cl100k_base")
    text = corpora.text("stdlib-docstrings")[:6000]
    trace = tok.encode_trace(text)
    p = payload.encoding_payload(tok, trace)
    ids = p["tokens"]["ids"]
    assert all(d > 0 for d in ids[1:])  # sorted, each once
    shown = {t for j in range(0, len(trace.steps) + 1, 50) for t in trace.tokens_at(j)}
    assert shown <= set(reference.Replay(json.loads(payload.dumps(p)[1])).table)
    _, body = payload.dumps(p)
    naive = len(json.dumps([trace.tokens_at(j) for j in range(len(trace.steps) + 1)]))  # the whole list at every step
    assert len(body) * 20 < naive
    assert len(body) < 10 * len(trace.data)  # a few bytes per byte of text


def test_the_id_names_the_content():
    tok = load_encoding("r50k_base")
    a, _ = payload.dumps(payload.encoding_payload(tok, tok.encode_trace("Hello world")))
    b, _ = payload.dumps(payload.encoding_payload(tok, tok.encode_trace("Hello world")))
    c, _ = payload.dumps(payload.encoding_payload(tok, tok.encode_trace("Hello World")))
    assert a == b != c


def test_a_trace_too_big_is_refused_with_what_to_shorten():
    payload.check_size(payload.MAX_BYTES, mode="encoding", chars=1)
    with pytest.raises(payload.TooBig, match=r"shorten the text to about [\d,]+ characters \(it has 300,000\)"):
        payload.check_size(payload.MAX_BYTES + 1, mode="encoding", chars=300_000)
    with pytest.raises(payload.TooBig, match="show fewer characters of the training text, or pick a tokenizer with fewer merges"):
        payload.check_size(payload.MAX_BYTES * 2, mode="training", chars=10_000)


def test_top_pairs_window_equals_the_models_frame_at_each_step():
    tok = train(CORPUS, 330, pattern="gpt4")
    counter = model.PairCounter(tok, tok.training)
    for start in (0, 30, 5, tok.num_merges - 10, tok.num_merges):  # forward, backward (a new counter), the end
        w = payload.top_pairs_window(tok, tok.training, start, counter if counter.k <= start else None)
        assert w["from"] == start
        assert len(w["pairs"]) == min(payload.WINDOW, tok.num_merges - start)
        for i, row in enumerate(w["pairs"]):
            frame = model.top_pairs_frame(tok, tok.training, start + i)
            assert row[2::3] == list(frame["count"])
            triples = list(zip(row[0::3], row[1::3]))
            assert triples[0] == tok.merge_list[start + i].pair
            assert [model.pair_label(tok, p).rstrip() for p in triples] == [s.rstrip() for s in frame["pair"]]


# ----------------------------------------------------------------------------- training variants


def test_tokens_across_words_replay_each_stage_as_it_cut_the_text():
    """Before the transition the shown text is cut by stage 1's pattern, from it by the superword one."""
    from tokenizer.bpe.superwords import train_superwords

    text = "of the cat and of the dog, in the house of the king; " * 12
    tok = train_superwords(text, 320, "gpt4", transition=290)
    trace, t = tok.training, tok.training.stage1_merges
    r = read(payload.training_payload(tok, trace, model.excerpt_trace(tok, text), corpus_chars=len(text)))
    assert r.variant["stage1"] == t and r.stage1 is not None
    for k in range(tok.num_merges + 1):
        view = reference.training_view(tok, trace, model.excerpt_trace(model.stage_tokenizer(tok, trace, k), text), k)
        assert (r.spans(k), r.highlight(k), r.cuts(k), r.length_at(k)) == (view.spans, view.highlight, view.cuts, view.tokens), k
    assert r.cuts(t - 1) != r.cuts(t)  # the chunks change at the transition: fewer, longer ones


def test_parity_sends_the_language_each_merge_serves_and_every_languages_length():
    from tokenizer.bpe.parity import join_parallel, train_parity

    texts = {"en": "the cat and the dog " * 20, "de": "die Katze und der Hund " * 20, "<i>el</i>": "η γάτα και ο σκύλος " * 20}
    tok = train_parity(texts, 330, pattern="gpt4")
    trace = tok.training
    corpus = join_parallel(texts)
    r = read(payload.training_payload(tok, trace, model.excerpt_trace(tok, corpus[:500]), corpus_chars=len(corpus)))
    assert r.variant["languages"] == list(texts)
    served = []
    for k in range(tok.num_merges + 1):
        assert r.language_tokens(k) == trace.language_tokens_at(k)
        g = trace.served_at(k)
        assert r.served(k) == (None if g is None else list(texts)[g])
        served.append(r.served(k))
        assert r.length_at(k) == sum(trace.language_tokens_at(k).values())  # the training text: every language's
    assert len(set(served) - {None}) >= 2  # more than one language was served


def test_a_continued_gpt2_keeps_its_ids_in_the_payload():
    """GPT-2's bytes have ids of their own and <|endoftext|> sits at 50256: new merges start at 50257."""
    from tokenizer.bpe.continued import train_continued

    gpt2 = load_encoding("r50k_base")
    text = "def tokenize(text):\n    return [tok for tok in text.split()]\n" * 20
    tok = train_continued(text, gpt2.n_vocab + 12, base=gpt2)
    etrace = model.excerpt_trace(tok, text[:400])
    r = read(payload.training_payload(tok, tok.training, etrace, corpus_chars=len(text)))
    assert r.new_ids == [m.new_id for m in tok.merge_list]
    assert r.variant["firstLearned"] == gpt2.num_merges
    for k in (0, 1, 5000, gpt2.num_merges, tok.num_merges):
        assert r.spans(k) == reference.training_view(tok, tok.training, etrace, k).spans, k


def test_a_variants_top_pairs_are_its_traces_counts():
    """The pairs step k was chosen by: in the language it served, in the stage's chunks; the merge is the top one."""
    from tokenizer.bpe.parity import train_parity
    from tokenizer.bpe.superwords import train_superwords

    texts = {"en": "the cat and the dog " * 20, "de": "die Katze und der Hund " * 20}
    for tok in (train_parity(texts, 300, pattern="gpt4"), train_superwords(CORPUS, 330, "gpt4", transition=300)):
        for start in (0, 20, tok.num_merges - 3):
            w = payload.top_pairs_window(tok, tok.training, start)
            assert len(w["pairs"]) == min(payload.VARIANT_WINDOW, tok.num_merges - start)
            for i, row in enumerate(w["pairs"]):
                want = tok.training.pair_counts(tok, start + i, model.TOP_PAIRS)
                assert row == [x for pc in want for x in (*pc.pair, pc.count)]
                assert tuple(row[:2]) == tok.merge_list[start + i].pair

"""Batches encoded by the compiled word scan give the tokenizer's terms, numbered as in one pass."""

from __future__ import annotations

import itertools
import json
import pickle
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain import demo_corpus
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.analysis import wordscan
from searchain.tools.retrieval.embedded.analysis.tokenizer import Tokenizer
from searchain.tools.retrieval.embedded.analysis.wordscan import (
    CAPITAL_I_DOT,
    CAPITAL_SIGMA,
    SEPARATOR,
    TermIds,
    WordTable,
    character_classes,
    lower_case,
    word_spans,
)
from searchain.tools.retrieval.embedded.indexer import workers
from searchain.tools.retrieval.embedded.indexer.encode import Encoder, TermMap, Texts, source_json
from searchain.tools.retrieval.embedded.indexer.workers import encoded_batches
from searchain.types import Passage, Source

ROOT = Path(__file__).resolve().parents[3]
# The characters the two tokenizers treat specially, beside anything Unicode has: joiners,
# digits (ASCII and Arabic-Indic), a combining accent, letters whose lower case is longer or
# depends on context (final sigma), title case, numerals, the separator batches use; no lone
# surrogates (the corpus reader replaces them); what JSON escapes (quotes, backslashes, control
# characters), what it does not (DEL, a line separator), letters that UTF-8 takes 2 to 4 bytes
# for, and characters Σ's context skips or counts (case-ignorable, cased, both).
SPECIAL = [*"aZ9_ .,'`’-\t\nΣσİßǅⅫ٣éé\x00", "\u0301", *'"\\\x01\x1f\x7f\u2028😀:ʰ\u0345']
SOURCE = Source('docs/ü "q".pdf', 3, "A › B", "", 10, 42)
"""A source with characters JSON escapes (stored as ``json.dumps`` writes it)."""


def texts_of(special: list[str], others: st.SearchStrategy[str], max_size: int):
    """Texts of ``special`` characters and ``others``, the special ones drawn half the time.

    Not ``st.text`` over the two: it merges them into one set of code points, drawn evenly,
    where ``special``'s few are all but never met.
    """
    return st.lists(st.sampled_from(special) | others, max_size=max_size).map("".join)


text = texts_of(SPECIAL, st.characters(codec="utf-8"), 40)


def expected(records: list[tuple[str, str, str, str]], kind: str) -> tuple[list, list, list]:
    """Terms, token ids and lengths as the tokenizer and one dictionary give them."""
    tokenize = Tokenizer(kind)
    local: dict[str, int] = {}
    tokens, lengths = [], []
    for _, title, body, _ in records:
        terms = tokenize(f"{title} {body}")
        tokens += [local.setdefault(t, len(local)) for t in terms]
        lengths.append(len(terms))
    return list(local), tokens, lengths


def encode_all(batches: list[list[tuple[str, str, str, str]]], kind: str):
    """Terms, token ids and lengths of ``batches`` through one encoder and its term map."""
    encoder, terms, vocab = Encoder(kind), TermMap(), TermIds()
    tokens, lengths, encoded = [], [], []
    for records in batches:
        batch = encoder.encode(records)
        tokens += terms.resolve(batch, vocab).tolist()
        lengths += batch.lengths.tolist()
        encoded.append(batch)
    return (vocab.terms(), tokens, lengths), encoded


@pytest.mark.parametrize("kind", ["stem", "standard"])
@pytest.mark.parametrize("remember", [0, 3, 1 << 20])
@settings(max_examples=80, deadline=None)
@given(batches=st.lists(st.lists(st.tuples(text, text), min_size=1, max_size=4), max_size=4))
def test_batches_are_tokenised_and_numbered_as_the_tokenizer_and_a_dict_do(kind, remember, batches):
    """Whatever the encoder remembers (nothing, a few terms, all), the ids are one pass's."""
    numbered = [
        [
            (f"{b}-{i}", title, body, source_json(SOURCE) if i % 2 else "")
            for i, (title, body) in enumerate(records)
        ]
        for b, records in enumerate(batches)
    ]
    got, encoded = encode_all(numbered, kind)
    assert got == expected([r for records in numbered for r in records], kind)
    for records, batch in zip(numbered, encoded, strict=True):
        lines = [
            (
                json.dumps(
                    {"id": i, "title": t, "text": b} | ({"source": json.loads(src)} if src else {}),
                    ensure_ascii=False,
                )
                + "\n"
            ).encode()
            for i, t, b, src in records
        ]
        assert batch.lines == b"".join(lines)
        assert batch.line_lengths.tolist() == [len(line) for line in lines]


@pytest.mark.parametrize("kind", ["stem", "standard"])
def test_the_demo_corpus_is_tokenised_as_the_tokenizer_does(kind):
    records = [(p.id, p.title, p.text, "") for p in read_corpus(demo_corpus())]
    batches = [records[i : i + 100] for i in range(0, len(records), 100)]
    got, encoded = encode_all(batches, kind)
    assert len(got[0]) > 3000
    assert got == expected(records, kind)
    assert sum(len(b.fresh) for b in encoded) == len(got[0])  # each term sent once


def test_workers_hand_batches_back_in_corpus_order(to_workers):
    passages = [Passage(str(i), "", f"word{i % 7} passage {i}") for i in range(2500)]
    batches = list(encoded_batches(passages, "standard", workers=3, batch=100))
    assert [worker for worker, _ in batches] == [i % 3 for i in range(25)]
    assert [len(b) for _, b in batches] == [100] * 25
    ids = [json.loads(line)["id"] for _, b in batches for line in b.lines.splitlines()]
    assert ids == [str(i) for i in range(2500)]


def test_batches_are_encoded_here_until_a_worker_has_started(monkeypatch):
    """A worker takes a second to start: this process encodes the batches that come meanwhile,
    and hands the rest to the workers from the first batch after one says it is ready."""
    pool: list[workers._Worker] = []
    answers = threading.Event()  # the workers' answers are read only once the test says so

    class Held(workers._Worker):
        def __init__(self, tokenizer: str) -> None:
            super().__init__(tokenizer)
            pool.append(self)

        def _drain(self) -> None:
            answers.wait(timeout=600)
            super()._drain()

    monkeypatch.setattr(workers, "_Worker", Held)
    passages = [Passage(str(i), "", f"word{i % 7} passage {i}") for i in range(2500)]
    batches = encoded_batches(passages, "standard", workers=2, batch=100)
    here = [next(batches)[0] for _ in range(workers.LOCAL_BATCHES + 3)]
    assert here == [-1] * len(here) and len(pool) == 2  # started at once, encoding here
    answers.set()
    assert all(worker.started.wait(timeout=600) for worker in pool)
    rest = list(batches)
    assert [w for w, _ in rest] == [i % 2 for i in range(25 - len(here))]
    ids = [json.loads(line)["id"] for _, b in rest for line in b.lines.splitlines()]
    assert ids == [str(i) for i in range(100 * len(here), 2500)]


def test_a_small_corpus_starts_no_worker(monkeypatch):
    monkeypatch.setattr(workers, "_Worker", None)  # starting one would fail
    passages = [Passage(str(i), "", "text") for i in range(workers.LOCAL_BATCHES * 10)]
    assert {w for w, _ in encoded_batches(passages, "standard", workers=2, batch=10)} == {-1}


def test_no_workers_encode_every_batch_here(monkeypatch):
    monkeypatch.setattr(workers, "LOCAL_BATCHES", 0)
    monkeypatch.setattr(workers, "_Worker", None)  # starting one would fail
    passages = [Passage(str(i), "", "text") for i in range(50)]
    assert {w for w, _ in encoded_batches(passages, "standard", workers=0, batch=10)} == {-1}
    with pytest.raises(ValueError, match="workers must be a whole number, 0 or more"):
        next(encoded_batches(passages, "standard", workers=-1))


def test_one_worker_per_core_but_this_process_s(monkeypatch):
    """This process reads, writes and counts: a core's worth of work beside the workers'."""
    monkeypatch.setattr(workers.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert workers.default_workers() == 3
    monkeypatch.setattr(workers.os, "sched_getaffinity", lambda pid: {0})
    assert workers.default_workers() == 0  # one core: this process tokenises too


def test_a_worker_that_dies_stops_the_build_with_one_line(monkeypatch, to_workers):
    monkeypatch.setattr(sys, "executable", "/bin/false")  # a worker that exits at once
    passages = [Passage(str(i), "", "text") for i in range(10)]
    with pytest.raises(ChildProcessError, match=r"a build worker process died \(exit status 1\)"):
        list(encoded_batches(passages, "standard", workers=2))


def test_a_passage_a_worker_refuses_is_refused_in_its_words(to_workers):
    """A worker answers with what it refused and why, and runs on: not a worker that died."""
    passages = [Passage(str(i), "", "text" + "\ud800" * (i == 7)) for i in range(10)]
    with pytest.raises(ValueError, match=r"^a passage holds a lone surrogate"):
        list(encoded_batches(passages, "standard", workers=1, batch=5))


def _fake_worker(tmp_path, monkeypatch, answer: bytes, then: str) -> None:
    """Workers that write ``answer`` to their output, then run the shell's ``then``."""
    script = tmp_path / "worker"
    script.write_bytes(b"#!/bin/sh\nprintf '" + answer + b"'\n" + then.encode() + b"\n")
    script.chmod(0o755)
    monkeypatch.setattr(workers, "LOCAL_BATCHES", 0)
    monkeypatch.setattr(workers, "WHILE_STARTING", False)
    monkeypatch.setattr(sys, "executable", str(script))


def _frame(data: bytes) -> bytes:
    """``data`` as a frame, in printf's octal escapes."""
    return b"".join(b"\\%03o" % byte for byte in struct.pack("<Q", len(data)) + data)


@pytest.mark.parametrize(
    ("answer", "then", "error"),
    [
        # Its output is not a pickle (a library printing to stdout, say); it still runs.
        (_frame(b"garbage!"), "exec cat > /dev/null", r"answered with what is not a batch"),
        # Text where a frame's length should be (a library's print): an impossible length.
        (
            b"loading model weights...\\n",
            "exec cat > /dev/null",
            r"not a batch \(a frame said to hold [\d,]+ bytes",
        ),
        # A pickle, but of something else; it still runs.
        (_frame(pickle.dumps([1, 2])), "exec cat > /dev/null", r"not a batch \(a list\)"),
        # A frame cut short as it exits.
        (_frame(b"0123456789")[:40], "exit 3", r"died \(exit status 3\)"),
        # Nothing at all as it exits.
        (b"", "exit 4", r"died \(exit status 4\)"),
    ],
    ids=["garbled", "printed-text", "another-pickle", "cut-short", "nothing"],
)
def test_a_worker_that_answers_no_batch_stops_the_build_with_one_line(
    tmp_path, monkeypatch, answer, then, error
):
    """Its answers are read in a thread of their own: whatever it sends, the build is told,
    never left waiting on a worker that runs on."""
    _fake_worker(tmp_path, monkeypatch, answer, then)
    passages = [Passage(str(i), "", "text") for i in range(10)]
    with pytest.raises(ChildProcessError, match=error):
        list(encoded_batches(passages, "standard", workers=1, batch=5))


def test_a_script_with_no_main_guard_builds_with_workers(tmp_path):
    """Workers never re-run the caller's script (a spawned multiprocessing pool would)."""
    script = (
        "from searchain import demo_corpus\n"
        "from searchain.tools.retrieval import embedded\n"
        "from searchain.tools.retrieval.embedded.indexer import workers\n"
        "from searchain.tools.retrieval.corpus.readers import read_corpus\n"
        "workers.LOCAL_BATCHES, workers.WHILE_STARTING = 0, False\n"
        f"index = embedded.build(read_corpus(demo_corpus()), {str(tmp_path / 'i')!r}, "
        "embedded.Options(workers=2))\n"
        "print(len(index), 'passages')\n"
    )
    run = subprocess.run(
        [sys.executable, "-"], input=script, text=True, capture_output=True, cwd=ROOT, timeout=600
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("passages")
    assert int(run.stdout.split()[0]) == len(list(read_corpus(demo_corpus())))


def test_the_word_table_grows_and_keeps_every_word():
    """Past its first sizes (slots, characters, offsets), every word keeps its number."""
    table, seen = WordTable(), {}
    for b in range(5):
        words = [f"w{(b * 7919 + i * 104729) % 120_000}" + "x" * (i % 9) for i in range(40_000)]
        joined = SEPARATOR.join(words)
        text = np.frombuffer(joined.encode("utf-32-le"), np.uint32)
        starts, stops = word_spans(text, character_classes(), False)
        ids, new = table.number(text, starts, stops)
        assert ids.tolist() == [seen.setdefault(w, len(seen)) for w in words]
        assert [words[i] for i in new.tolist()] == list(seen)[len(seen) - len(new) :]
    assert table.size == len(seen) > 1 << 16


def test_the_word_table_numbers_as_many_words_as_int32_ids_hold_and_refuses_more(monkeypatch):
    """Ids and slots are int32: a batch that could take the table past :data:`MAX_WORDS` is
    refused before anything is numbered, and one that stays within it (up to the last id) is not."""
    text = np.frombuffer("ab cd ef".encode("utf-32-le"), np.uint32)
    starts, stops = word_spans(text, character_classes(), False)
    monkeypatch.setattr(wordscan, "MAX_WORDS", 3)
    table = WordTable()
    assert table.number(text, starts, stops)[0].tolist() == [0, 1, 2]  # exactly the most
    monkeypatch.setattr(wordscan, "MAX_WORDS", 5)
    with pytest.raises(ValueError, match="more than 5 distinct words"):
        table.number(text, starts, stops)  # 3 held and 3 more could be new: 6
    assert table.size == 3 and table.words() == ["ab", "cd", "ef"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(texts_of([*SPECIAL, "\ud800"], st.characters(), 6))))
def test_term_ids_number_terms_as_a_dict_does(batches):
    """In order of first appearance, across batches and within one, any characters (an empty
    term, a lone surrogate, the separator among them): a build's vocabulary, as setdefault gave."""
    vocab, seen = TermIds(), {}
    for terms in batches:
        assert vocab.add(terms).tolist() == [seen.setdefault(t, len(seen)) for t in terms]
    assert vocab.terms() == list(seen) and len(vocab) == len(seen)
    utf8 = vocab.utf8()  # as the vocabulary's files hold them (a surrogate as Python passes it)
    encoded = [t.encode("utf-8", "surrogatepass") for t in seen]
    assert utf8.data.tobytes() == b"".join(encoded)
    assert utf8.ends.tolist() == [0, *itertools.accumulate(map(len, encoded))]
    again = TermIds(vocab.terms())  # an update starts from the index's terms
    assert again.terms() == list(seen) and again.add(["fresh"]).tolist() == [
        seen.get("fresh", len(seen))
    ]


def test_every_code_points_classes_are_its_string_methods():
    """The table is made by ``re``'s substitutions: every code point, surrogates too, is in
    ``\\w`` and ``\\d`` exactly when ``str.isalnum()`` (or ``_``) and ``str.isdecimal()`` say so."""
    classes = character_classes()
    chars = [chr(code) for code in range(0x110000)]
    word = np.fromiter((c.isalnum() or c == "_" for c in chars), bool, len(chars))
    digit = np.fromiter((c.isdecimal() for c in chars), bool, len(chars))
    assert np.array_equal(classes & 1 > 0, word) and np.array_equal(classes & 2 > 0, digit)
    assert [chr(c) for c in np.flatnonzero(classes & 4)] == ["'", ".", "`", "’"]  # by code


@settings(max_examples=300, deadline=None)
@given(st.lists(texts_of(SPECIAL, st.characters(codec="utf-8"), 12), min_size=1))
def test_texts_are_lowered_as_str_lower_lowers_each(texts):
    """İ grows to two code points, Σ becomes σ or ς as the letters around it say: each text as
    ``str.lower`` has it alone (and the words found in it are the tokenizer's, above)."""
    lower, ends = Texts.of(texts).lowered()
    starts = [0, *(ends[:-1] + 1).tolist()]
    got = [lower[a:b].tobytes().decode("utf-32-le") for a, b in zip(starts, ends, strict=True)]
    assert got == [text.lower() for text in texts]


def test_every_code_points_lower_case_is_str_lowers():
    """The table is one ``str.lower`` of every code point: each one's is its own, but the two
    whose lower case is not one code point alone (İ, Σ), which the kernel lowers itself."""
    table = lower_case()
    own = np.fromiter(
        (ord(low) if len(low := chr(c).lower()) == 1 else -1 for c in range(0x110000)),
        np.int64,
        0x110000,
    )
    differ = np.flatnonzero(own != table).tolist()
    assert differ == [CAPITAL_I_DOT, CAPITAL_SIGMA]


@pytest.mark.parametrize("field", [0, 1, 2])
def test_a_lone_surrogate_is_refused_in_one_line(field):
    """UTF-8 holds none: the passage store would be unreadable, so the batch is refused."""
    record = ["an-id", "a title", "a text", ""]
    record[field] += "\ud800"
    with pytest.raises(ValueError, match=r"lone surrogate .* through searchain\.text\.clean_text"):
        Encoder("standard").encode([("ok", "", "fine", ""), tuple(record)])

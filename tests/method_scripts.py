"""A script for the ``scripted`` chat model that drives every method to one given answer.

Each baseline's prompt is told apart by how it ends (see ``ScriptedChatModel.rules``); SearChain's
prompts by their marks. The model never writes the words of a passage it was shown, so a method
whose score moves with what it *retrieved* rather than what it *wrote* is caught by giving it a
passage that holds the gold answer and a script that answers something else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AUTO_COT_DEMOS = Path(__file__).parent / "fixtures" / "auto_cot_demos.json"
"""Two Auto-CoT demonstrations, as ``build_auto_cot_demos`` writes them (for ``auto_cot_demos``)."""


def every_method_script(answer: str) -> dict[str, Any]:
    """Replies that lead every method in ``searchain.methods.METHODS`` to ``answer``."""
    rules = [
        # Self-Ask: with IR the model stops at "Intermediate answer:" and retrieval answers the
        # follow-up; without IR it writes the whole transcript.
        [r"Are follow up questions needed here:$",
         f"Yes.\nFollow up: Who is it?\nIntermediate answer: {answer}.\n"
         f"So the final answer is: {answer}"],
        [r"</answer>\.\n$", f"So the final answer is: {answer}"],
        [r"So the final answer is:$", f" {answer}"],
        # ReAct: it searches for "the city" (never the answer), then finishes.
        [r"Thought 1:$", " I search.\nAction 1: Search[the city]"],
        [r"Thought \d+:$", f" Found it.\nAction 2: Finish[{answer}]"],
        [r"Finish\[$", answer],
        [r"Therefore, the answer is$", f" {answer}."],
        # Plan-and-Solve, Auto-CoT and DSP's answer step all end "step by step."; DSP reads
        # the "Answer:" line, the others what "Therefore, the answer is" gets.
        [r"step by step\.$", f"Plan: find the city. It is {answer}.\nAnswer: {answer}"],
        # DSP's two search hops.
        [r"(need to find out|learned the following\.)$", " the city.\nSearch Query: the city"],
        # Recite-and-answer recites (never the answer's passage), then answers below ("\nA:").
        [r"following Wikipedia passage:$", "The city is a city."],
        # Least-to-Most's decomposition; its solving steps end "\nA:".
        [r"we need to know:$", ' "Which city is it?".'],
        # ToolFormer searches once ("the city"), then completes its answer.
        [r"</reference>\]$", f" {answer}."],
        [r" Answer:$", f' [WikiSearch("the city")] {answer}.'],
        # Tree-of-Thought's value of each chain.
        [r"Evaluation:$", " sure"],
        [r"Question:$", f" Is it {answer}?"],
        [r"So the answer is:$", f" {answer}"],
        [r"</reasoning>$", f"So the answer is: {answer}."],
        [r"\nA:$", f"It is {answer}. So the answer is: {answer}."],
    ]  # fmt: skip
    return {
        "rules": rules,
        "chains": [
            f"[Query 1]: Which city is it?\n[Answer 1]: {answer}\n"
            f"[Final Content]: {answer} [1]. So the final answer is {answer}."
        ],
        "trace": f"It is {answer} [1]. So the final answer is {answer}.",
        "reader": "Answer: none\nConfidence: 0",
    }

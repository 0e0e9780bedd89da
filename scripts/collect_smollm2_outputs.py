"""Record real SmolLM2-135M-Instruct replies to the Chain-of-Query prompts, for parser tests.

Run:
    .venv/bin/python scripts/collect_smollm2_outputs.py [DATA_DIR] \
        > tests/unit/nodes/searchain/fixtures/smollm2_outputs.json
Questions come from the tuning split (first 100 records) of ../shared/data only.
"""

import json
import sys
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage

from searchain.prompts import feedback_template, render, task_prompt
from searchain.tools.llms.resolve import resolve_llm


def first_lines(path: Path, n: int) -> list[dict]:
    with path.open() as f:
        return [json.loads(next(f)) for _ in range(n)]


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    llm = resolve_llm("local").bind(max_tokens=256)
    cases = [
        ("qa", r["question"]) for r in first_lines(data / "hotpotqa/dev_200_distractor.jsonl", 10)
    ]
    cases += [
        ("qa", r["question"])
        for r in first_lines(data / "musique/dev_200_with_paragraphs.jsonl", 10)
    ]
    cases += [
        ("yesno", r["question"])
        for r in json.loads((data / "strategyqa/train_2061.json").read_text())[:5]
    ]
    cases += [
        ("factcheck", r["claim"]) for r in first_lines(data / "fever/paper_dev_9999.jsonl", 5)
    ]
    records = []
    for i, (task, question) in enumerate(cases):
        messages = [HumanMessage(render(task_prompt(task).template, question=question))]
        reply = llm.invoke(messages).text
        records.append({"task": task, "question": question, "round": 1, "output": reply})
        print(f"{i}: {reply[:80]!r}", file=sys.stderr)
        if i % 5 == 0:  # a second round after a Complete feedback, as the graph sends it
            feedback = render(
                feedback_template("complete"),
                query=question,
                answer="(see reference)",
                question=question,
                reference="No passage: a parser fixture.",
            )
            reply2 = llm.invoke([*messages, AIMessage(reply), HumanMessage(feedback)]).text
            records.append({"task": task, "question": question, "round": 2, "output": reply2})
    print(json.dumps(records, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()

"""Rebuild searchain/data/demo_corpus.jsonl from ../shared/data (tuning-split records only).

Run: .venv/bin/python scripts/make_demo_corpus.py [DATA_DIR]
"""

import json
import sys
from pathlib import Path

HOTPOT_RECORDS = 25
WIKI2_RECORDS = 15


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    out = Path(__file__).resolve().parent.parent / "searchain/data/demo_corpus.jsonl"
    seen, rows = set(), []
    sources = [
        ("hotpotqa", data / "hotpotqa/dev_200_distractor.jsonl", HOTPOT_RECORDS, ""),
        ("2wiki", data / "2wikimultihopqa/dev_200_with_context.jsonl", WIKI2_RECORDS, " "),
    ]
    for name, path, limit, joiner in sources:
        with path.open() as lines:
            for i, line in enumerate(lines):
                if i >= limit:
                    break
                for k, (title, sentences) in enumerate(json.loads(line).get("context", [])):
                    text = joiner.join(sentences).strip()
                    if (title, text) in seen:
                        continue
                    seen.add((title, text))
                    rows.append({"id": f"{name}-{i}-{k}", "title": title, "text": text})
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} passages -> {out}")


if __name__ == "__main__":
    main()

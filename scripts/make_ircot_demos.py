"""Rebuild searchain/data/ircot_demos/*.json.

From ../shared/data (tuning-split records only), and with --paper, IRCoT's published
demonstrations (appendix G of Trivedi et al.) with the shared corpus's paragraphs they name:

    .venv/bin/python scripts/make_ircot_demos.py [DATA_DIR]
    .venv/bin/python scripts/make_ircot_demos.py \\
        --paper ../shared/paper/ircot-appendix-prompts.txt [DATA_DIR]
"""

import argparse
import json
from pathlib import Path

from searchain.eval.datasets import FILES, data_dir, pooled_corpus
from searchain.eval.demos import build_demos
from searchain.eval.paper_demos import LISTINGS, paper_demos

OUT = Path(__file__).resolve().parent.parent / "searchain/data/ircot_demos"


def write(name: str, demos: list) -> None:
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(demos, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    found = sum(1 for d in demos if d.get("paragraphs"))
    print(f"{len(demos)} demonstrations ({found} with paragraphs) -> {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", help="data directory (default: ../shared/data)")
    parser.add_argument("--paper", type=Path, help="the IRCoT paper's appendix text")
    args = parser.parse_args()
    root = data_dir(args.data)
    OUT.mkdir(exist_ok=True)
    if args.paper:
        text = args.paper.read_text(encoding="utf-8")
        corpus = pooled_corpus(root)
        for dataset in LISTINGS:
            write(f"paper-{dataset}", paper_demos(text, dataset, corpus))
        return
    for dataset in FILES:
        write(dataset, build_demos(root, dataset))


if __name__ == "__main__":
    main()

"""The environments pages are followed in: `make demo`'s and a plain `pip install searchain`.

Each is made as a reader makes it (``python -m venv``, then ``pip install -e``), once per test
run: by scripts/test.sh beside the servers' start, in the folder it names in
``SEARCHAIN_TEST_ENVS``, or else by the first test that asks for it (tests/conftest.py). Standard
library only: scripts/test.sh runs this before the test environment exists.

    python3 tests/envs.py FOLDER [NAME...]   # makes those of ENVS (every one) in FOLDER
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_EXTRAS = "local,openai"
"""What `make demo` installs (Makefile's DEMO_STAMP): the offline LLM and the OpenAI client."""
ENVS = {"demo-env": f"{ROOT}[{DEMO_EXTRAS}]", "plain-env": str(ROOT)}
"""Each environment's name, and what ``pip install -e`` is given to make it."""


def installed_once(base: Path, name: str) -> Path:
    """The virtual environment ``name`` of ENVS in ``base``, made unless made already.

    Whoever asks first makes it while the others wait on its lock (pytest-xdist's workers, or
    a test and scripts/test.sh), and a made one is marked ``.ready`` last, so a failed or killed
    install is never taken for a made one.
    """
    venv = base / name / "venv"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            done = subprocess.run(
                [str(venv / "bin" / "pip"), "install", "-q", "-e", ENVS[name]],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONWARNINGS": "ignore:Editable installation"},
                timeout=1800,
            )
            if done.returncode != 0:
                raise RuntimeError(f"pip install -e {ENVS[name]} failed: {done.stderr[-3000:]}")
            (venv / ".ready").touch()
    return venv


if __name__ == "__main__":
    names = sys.argv[2:] or list(ENVS)
    if len(sys.argv) < 2 or not set(names) <= ENVS.keys():
        sys.exit(f"usage: python3 tests/envs.py FOLDER [NAME...], each NAME one of {list(ENVS)}")
    for made in names:
        print(installed_once(Path(sys.argv[1]), made))

"""What `pip install searchain` gets: a wheel and an sdist with the licence, and a sound env."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from tests.conftest import ROOT, require


def test_sdist_and_wheel_carry_the_licence_and_the_package_data(tmp_path):
    uv = Path(sys.executable).parent / "uv"
    uv = str(uv) if uv.exists() else shutil.which("uv")
    require(uv is not None, "uv is not installed (the dev extra installs it)", extra="dev")
    done = subprocess.run(
        [uv, "build", "--out-dir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = tmp_path.glob("searchain-*.whl")
    [sdist] = tmp_path.glob("searchain-*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for data in ("prompts/chain_of_query.toml", "data/demo_corpus.jsonl", "py.typed"):
        assert f"searchain/{data}" in names
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: Apache-2.0" in zipfile.ZipFile(wheel).read(metadata).decode()
    with tarfile.open(sdist) as archive:
        members = {Path(m).relative_to(Path(m).parts[0]).as_posix() for m in archive.getnames()}
    assert {"LICENSE", "searchain/data/DEMO_CORPUS_NOTICE.md", "pyproject.toml"} <= members


def test_the_environment_the_readme_builds_has_no_broken_requirements():
    done = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr

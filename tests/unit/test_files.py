"""Files written whole: the reader sees the old file or the new one, with a normal file's mode."""

from __future__ import annotations

import os
import stat

import pytest

from searchain.files import current_umask, write_atomic


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_written_file_has_the_mode_the_umask_gives(tmp_path, umask):
    """Issue 33, case 13: --html pages and report pages were 0600, the rest of a report 0644."""
    old = os.umask(umask)
    try:
        assert current_umask() == umask
        path = write_atomic(tmp_path / "page.html", "<p>hi</p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert path.read_text() == "<p>hi</p>"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary file left


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = write_atomic(tmp_path / "a.json", "old")

    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.json"]

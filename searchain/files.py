"""Files written whole or not at all, and read only if they are files."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from searchain.errors import SettingError


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file renamed into place.

    A reader sees the old file or the new one, never half of it, whatever stops the writer. The
    file gets the mode any new file gets (0666 less the umask; 0644 usually), not the temporary
    file's private 0600.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def current_umask() -> int:
    """The process's umask, read without changing it (Linux), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_target(
    path: Path,
    option: str,
    *,
    what: str,
    ours: Callable[[Path], bool] | None,
    force: bool,
    inputs: Sequence[tuple[str, str | Path]] = (),
) -> Path:
    """Refuse, before any work, a path an output option must not write; return it.

    ``path`` must name a file (not a directory, a link or a device) in a folder that exists and
    may be written. An existing file is replaced only when ``ours`` says searchain wrote it (a
    page, a report), or with ``force``; ``ours=None`` lets the caller read an existing file
    itself (a results file it resumes). ``what`` names what the option writes, for the refusal.
    ``inputs`` are ``(option, path)`` of the other files the command uses (``--db`` and the
    files beside it, ``--index``): none may be the output, whether it exists yet or not.
    """
    path = Path(path)
    for name, used in inputs:
        if Path(used).absolute().resolve() == path.absolute().resolve():
            raise ValueError(f"{option} {path} is also {name}'s path: give another path")
    if path.is_dir():
        raise ValueError(f"{option} {path} is a directory: give a file path for the {what}")
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(
            f"{option} {path}: the folder {folder} does not exist: create it, or give another path"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: the folder {folder} cannot be written to")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ValueError(
            f"{option} {path} is a link or a special file, not a {what}: give another path"
        )
    if path.exists() and ours is not None and not force and not ours(path):
        raise SettingError(
            "{option} {path} exists and is not a {what} searchain wrote: give another path, "
            "or add {force} to replace it",
            settings=("force",),
            option=option,
            path=path,
            what=what,
        )
    return path


def starts_with(path: Path, marks: tuple[bytes, ...], limit: int = 1 << 20) -> bool:
    """Whether the first ``limit`` bytes of file ``path`` hold one of ``marks``."""
    try:
        with path.open("rb") as handle:
            head = handle.read(limit)
    except OSError:
        return False
    return any(mark in head for mark in marks)


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file; OSError if it is anything else.

    Opened without blocking, then checked: a file that became a FIFO since it was listed would
    block an open or a read for ever, and a device would read without end.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file: a FIFO, socket or device", str(path))
    return os.fdopen(fd, "rb")


def digest(path: str | Path) -> str:
    """SHA-256 of a file, hex, read in blocks of 1 MiB (never whole into memory)."""
    sha = hashlib.sha256()
    with open_regular(path) as data:
        while block := data.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()

"""API keys: each key is a user, read from a file the server re-reads when it changes.

A deployment adds, rotates or revokes keys by editing the file; no restart, no code. The file is
TOML, one line per user::

    [keys]
    alice = "sha256:3f9a..."      # the key's SHA-256 (`searchain-server-key` prints it)
    bob = "sk-plain-key-of-bob"   # or the key itself (test set-ups)

Keys are compared by digest in constant time and never logged. A file that cannot be read or
parsed fails the server's start in one line naming the problem; if it breaks while the server
runs, every request is refused (401) until it is mended, rather than served under stale keys.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sys
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KEYS_FILE_ENV = "SEARCHAIN_API_KEYS_FILE"
"""The environment variable naming the key file."""

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
USER = re.compile(r"[A-Za-z0-9_.@-]{1,128}")
MIN_KEY_LENGTH = 16
"""Shorter plain keys are refused: guessable."""
RESERVED_USERS = frozenset({"system", "anonymous"})
"""Identities the server uses for itself: ``system`` owns the shared assistants (a key-file user
of that name could update or delete them), ``anonymous`` is the identity of unauthenticated
access. Refused as user names, in any case."""


def digest(key: str) -> str:
    """``sha256:<hex>`` of a key, the form the file may hold instead of the key."""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def parse_keys(path: Path, content: bytes | None = None) -> dict[str, str]:
    """``{digest: user}`` from a key file; ValueError naming the file and what is wrong.

    ``content``: the file's bytes, when the caller has read them already.
    """
    try:
        data = tomllib.loads((path.read_bytes() if content is None else content).decode())
    except OSError as exc:
        raise ValueError(f"cannot read the API key file {path} ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"the API key file {path} is not valid TOML ({exc})") from None
    keys = data.get("keys")
    if not isinstance(keys, dict) or not keys:
        raise ValueError(f'the API key file {path} has no [keys] table of user = "key" lines')
    users: dict[str, str] = {}
    for user, key in keys.items():
        if not USER.fullmatch(user):
            raise ValueError(f"{path}: user {user!r} must be 1-128 of A-Z a-z 0-9 _ . @ -")
        if user.lower() in RESERVED_USERS:
            raise ValueError(
                f"{path}: {user!r} is an identity the server uses for itself: name the user "
                "otherwise"
            )
        if not isinstance(key, str):
            raise ValueError(f"{path}: the key of {user!r} must be a string")
        if key.startswith("sha256:"):
            if not DIGEST.fullmatch(key):
                raise ValueError(f"{path}: the key of {user!r} is not sha256: and 64 hex digits")
            hashed = key
        elif len(key) < MIN_KEY_LENGTH:
            raise ValueError(f"{path}: the key of {user!r} is shorter than {MIN_KEY_LENGTH}")
        else:
            hashed = digest(key)
        if hashed in users:
            raise ValueError(f"{path}: {user!r} and {users[hashed]!r} have the same key")
        users[hashed] = user
    return users


@dataclass
class KeyRing:
    """The users of a key file, re-read whenever its content changes.

    The content, not the modification time and size: a rotation to a key of the same length
    within one timestamp tick changes neither. The file is small; reading it per request is cheap.
    """

    path: Path
    """The TOML key file."""
    _users: dict[str, str] = field(default_factory=dict)
    _stamp: bytes | None = None
    _error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_environment(cls) -> KeyRing:
        """The key ring of ``$SEARCHAIN_API_KEYS_FILE``; ValueError if it is unset or unusable."""
        name = os.environ.get(KEYS_FILE_ENV, "")
        if not name:
            raise ValueError(f"{KEYS_FILE_ENV} is not set: point it at a TOML file of API keys")
        ring = cls(Path(name))
        ring.refresh()
        if ring._error:
            raise ValueError(ring._error)
        return ring

    def refresh(self) -> None:
        """Re-read the file if its content changed since it was last read."""
        try:
            content: bytes | None = self.path.read_bytes()
        except OSError as exc:
            content = None
            error: str | None = f"cannot read the API key file {self.path} ({exc.strerror})"
        else:
            if content == self._stamp:
                return
            error = None
        with self._lock:
            try:
                users = parse_keys(self.path, content) if content is not None else {}
            except ValueError as exc:
                users, error = {}, str(exc)
            self._users, self._error, self._stamp = users, error, content

    def user(self, key: str) -> str | None:
        """The user a key belongs to, or None (also while the file is broken)."""
        self.refresh()
        wanted = digest(key)
        found = None
        for hashed, user in self._users.items():
            if hmac.compare_digest(hashed, wanted):
                found = user
        return found

    @property
    def error(self) -> str | None:
        """What is wrong with the file now, if anything."""
        return self._error


def main() -> None:
    """``searchain-server-key [FILE]``: print a new key and its digest; check FILE if given."""
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(
            "usage: searchain-server-key [FILE]\n\n"
            "Print a new API key and the digest to put in the keys file; with FILE, check that\n"
            "keys file and print how many users it holds (docs/server.md)."
        )
        return
    if len(sys.argv) > 1:
        try:
            users = parse_keys(Path(sys.argv[1]))
        except ValueError as exc:
            sys.exit(f"error: {exc}")
        print(f"{sys.argv[1]}: {len(users)} users")
        return
    key = "sk-" + secrets.token_urlsafe(32)
    print(f"key:    {key}\ndigest: {digest(key)}")

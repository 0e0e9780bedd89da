"""API keys: the file's checks, digests, re-reading on change, and how a request presents a key."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.server.keys import KeyRing, digest, parse_keys
from tests.conftest import require_module

ALICE = "sk-alice-0123456789abcdef"
BOB = "sk-bob-" + "b" * 20


def keys_file(tmp_path, text: str):
    path = tmp_path / "keys.toml"
    path.write_text(text)
    return path


def test_keys_and_digests_name_their_users(tmp_path):
    path = keys_file(
        tmp_path, f'[keys]\nalice = "{ALICE}"\nbob = "{digest("sk-bob-" + "b" * 20)}"\n'
    )
    ring = KeyRing(path)
    assert ring.user(ALICE) == "alice"
    assert ring.user(BOB) == "bob"
    assert ring.user(digest(ALICE)) is None  # a digest is not a key
    assert ring.user("sk-nobody-0123456789") is None
    assert parse_keys(path) == {digest(ALICE): "alice", digest(BOB): "bob"}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[keys", "is not valid TOML"),
        ("[other]\nx = 1\n", "has no [keys] table"),
        ('[keys]\nalice = "short"\n', "the key of 'alice' is shorter than 16"),
        ("[keys]\nalice = 12\n", "the key of 'alice' must be a string"),
        ('[keys]\nalice = "sha256:abc"\n', "is not sha256: and 64 hex digits"),
        (f'[keys]\n"a b" = "{ALICE}"\n', "user 'a b' must be"),
        (f'[keys]\nalice = "{ALICE}"\neve = "{digest(ALICE)}"\n', "have the same key"),
        # Issue 30, case 3: `system` owns the shared assistants (and could update or delete them)
        (f'[keys]\nsystem = "{ALICE}"\n', "'system' is an identity the server uses for itself"),
        (f'[keys]\nAnonymous = "{ALICE}"\n', "'Anonymous' is an identity the server uses"),
    ],
)
def test_a_bad_key_file_is_refused_in_one_line(tmp_path, text, fragment):
    path = keys_file(tmp_path, text)
    with pytest.raises(ValueError) as caught:
        parse_keys(path)
    message = str(caught.value)
    assert fragment in message and "\n" not in message
    assert ALICE not in message  # never the key itself


def test_the_ring_follows_the_file_and_refuses_everyone_while_it_is_broken(tmp_path):
    path = keys_file(tmp_path, f'[keys]\nalice = "{ALICE}"\n')
    ring = KeyRing(path)
    assert ring.user(ALICE) == "alice" and ring.error is None
    path.write_text(f'[keys]\nalicia = "{ALICE}"\n')
    os.utime(path, ns=(1, 1))  # a new modification time, whatever the clock's resolution
    assert ring.user(ALICE) == "alicia"
    path.write_text("[keys]\nbroken = ")
    assert ring.user(ALICE) is None and "not valid TOML" in ring.error
    path.unlink()
    assert ring.user(ALICE) is None and "cannot read" in ring.error


def test_a_rotation_that_keeps_size_and_time_is_seen(tmp_path):
    """Issue 30, case 5: a change was detected by (mtime, size); a same-size rotation within one
    timestamp tick kept the revoked key working."""
    path = keys_file(tmp_path, f'[keys]\nalice = "{ALICE}"\n')
    ring = KeyRing(path)
    assert ring.user(ALICE) == "alice"
    stamp = path.stat()
    rotated = "sk-alice-fedcba9876543210"
    assert len(rotated) == len(ALICE)
    path.write_text(f'[keys]\nalice = "{rotated}"\n')
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # the same tick
    assert path.stat().st_size == stamp.st_size
    assert ring.user(ALICE) is None and ring.user(rotated) == "alice"


def test_the_environment_names_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv("SEARCHAIN_API_KEYS_FILE", raising=False)
    with pytest.raises(ValueError, match="SEARCHAIN_API_KEYS_FILE is not set"):
        KeyRing.from_environment()
    monkeypatch.setenv("SEARCHAIN_API_KEYS_FILE", str(keys_file(tmp_path, "[keys]\n")))
    with pytest.raises(ValueError, match="has no \\[keys\\] table"):
        KeyRing.from_environment()


@given(key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=60))
def test_a_key_is_read_from_either_header(key):
    require_module("langgraph_sdk", "studio")
    from searchain.server.auth import presented_key

    assert presented_key({"x-api-key": key}) == key
    assert presented_key({b"X-Api-Key": key.encode()}) == key
    assert presented_key({"Authorization": f"Bearer {key}"}) == key
    assert presented_key({"authorization": f"Basic {key}"}) == ""
    assert presented_key({}) == ""

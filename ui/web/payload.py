"""What the live Tokenize view is given (``tokenize.js``): plain data, no Streamlit.

Each rerun hands the component one JSON document (``payload``): where the browser
modules are, how to tokenize (in the browser with a model file, or on the server),
the text and its version, the switches, and, when the server tokenizes, its result
for the text (``server_result``).

Where the browser tokenizes: ``kind`` is ``"bpe"`` (a model file, ``browser_model``:
byte-level BPE, or SentencePiece-style BPE, which the worker tells apart by the file) or ``"chars"`` (the one-token-per-character baseline, computed in the page); else
``"server"``, with the reason in words (``model.browser_reason``).

Model files of the registry's encodings are named by their content's sha256 (the
same for everyone, cached by browsers for good). A user's own tokenizer is named by
a keyed hash (HMAC-SHA256 with the server's random key, ``server_key``: one file in
the data folder, shared by the app processes, never served), so its address cannot be
guessed, not even by someone who has the same merges: only the session that shows it
learns it, and it keeps its name across app processes and restarts. The name is keyed
by the tokenizer's workspace key too (``salt``), so no two tokenizers share a file: the
workspace counts each file once in its owner's limits and removes it with the
tokenizer (``remove_user_model``); ``prune`` removes the ones nobody asked for in
``USER_DAYS`` days (what a store lost track of).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import tempfile
import time
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path

from tokenizer import Tokenizer, TokenizerLike, clean_text

from . import model

#: Longest text the browser tokenizes as the user types (characters): the page's limit for any
#: tokenizer (ui.common.user_text.MAX_CHARS). Past it the server tokenizes the first part, as it always has.
LIVE_LIMIT = 200_000
#: User model files unused this long are removed (``prune``).
USER_DAYS = 14


def new_key() -> bytes:
    """A random key for naming user model files."""
    return secrets.token_bytes(32)


def server_key(path: Path) -> bytes:
    """The key that names user model files, the same for every app process and restart: kept in ``path`` (outside
    the static folder, readable by this user only), made by the first process that finds none. The same name for
    the same tokenizer everywhere is what lets the workspace count each file once; a key of this process alone when
    the folder cannot be written (each process then names, and counts, its own copy)."""
    for _ in range(3):
        with contextlib.suppress(OSError):
            key = path.read_bytes()
            if len(key) == 32:
                return key
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(new_key())
                os.link(tmp, path)  # whole or not at all; a second process's link fails and it reads the first's
            finally:
                os.unlink(tmp)
        except FileExistsError:
            continue
        except OSError:
            break
    return new_key()


def user_model_name(data: bytes, key: bytes, salt: str = "") -> str:
    """The file name of a user's model file: keyed (``key``), and one per tokenizer (``salt``, its workspace key)."""
    return hmac.new(key, salt.encode("utf-8") + b"\0" + data, hashlib.sha256).hexdigest()[:32] + ".bin"


def publish_user_model(data: bytes, key: bytes, static: Path | None = None, *, salt: str = "") -> str:
    """Put a user's model file in the static folder under a keyed name; its URL path (relative to the page).

    OSError when the folder cannot be written (a full or read-only disk): the page tokenizes on the server then."""
    name = user_model_name(data, key, salt)
    path = (static or model.static_dir()) / model.FOLDER / "user" / name
    model.write_once(path, data)
    os.utime(path)  # last asked for now: prune keeps it
    return model.URL + "user/" + name


_USER_FILE = re.compile(r"[0-9a-f]{32}\.bin")


def remove_user_model(name: str, static: Path | None = None) -> None:
    """Remove the user model file ``name`` (as ``user_model_name`` makes them; anything else is left alone)."""
    if not _USER_FILE.fullmatch(name):
        return
    with contextlib.suppress(OSError):  # gone already, or a read-only folder: prune tries again later
        ((static or model.static_dir()) / model.FOLDER / "user" / name).unlink(missing_ok=True)


def prune(static: Path | None = None, days: float = USER_DAYS) -> int:
    """Remove user model files nobody asked for in ``days`` days; how many went."""
    folder = (static or model.static_dir()) / model.FOLDER / "user"
    cutoff = time.time() - days * 86400
    gone = 0
    for path in folder.glob("*.bin") if folder.is_dir() else ():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                gone += 1
        except OSError:
            pass
    return gone


def server_result(
    tok: TokenizerLike | None,
    ids: Sequence[int],
    text: str,
    *,
    seq: int,
    dropped: int = 0,
    error: str | None = None,
    send_text: bool = False,
) -> dict:
    """The server's tokens for the view: ids, each token's byte length, which are special.

    The view slices each token's bytes from the text's UTF-8 (they are the text's
    bytes in order), so nothing but lengths travels. ``text`` is what was tokenized;
    it goes along with ``send_text`` (the chat format's string, the first part of
    a text cut at the limit) and when the model normalized it (Qwen's NFC: the tokens
    are the normalized text's bytes), else it is the box's own. ``seq`` says which of the box's texts.

    >>> from tokenizer import Tokenizer
    >>> server_result(Tokenizer(special_tokens={"<x>": 256}), [104, 256], "h<x>", seq=3)["lens"]
    [1, 3]
    """
    lens = [len(b) for b in tok.decode_tokens_bytes(ids)] if ids else []
    special = [i for i, t in enumerate(ids) if t in tok.special_ids]
    clean = clean_text(text)
    out = {
        "ids": list(ids),
        "lens": lens,
        "special": special,
        "seq": seq,
        "chars": len(clean),
        "dropped": dropped,
        "error": error,
    }
    form = tok.normalizer if isinstance(tok, Tokenizer) else None
    view = unicodedata.normalize(form, clean) if form and not clean.isascii() else clean
    if tok is not None and tok.kind == "sentencepiece":
        # the model's view, whose bytes its tokens are in order: the dummy prefix's space, a typed ▁ as a space
        view = b"".join(tok.decode_tokens_bytes(ids)).decode("utf-8", "replace")
    if send_text or view != clean:
        out["text"] = view
    return out


def payload(
    *,
    assets: str,
    label: str,
    kind: str,
    text: str,
    version: int,
    seq: int,
    recognise: bool,
    whitespace: bool,
    mode: str = "text",
    model_info: Mapping | None = None,
    reason: str | None = None,
    specials: Mapping[str, int] | None = None,
    special_names: Sequence[str] = (),
    server: Mapping | None = None,
    present: bool = False,
    span_limit: int = 2_500,
) -> dict:
    """The component's data for one rerun (see the module)."""
    if kind not in ("bpe", "chars", "server"):
        raise ValueError(f"kind must be 'bpe', 'chars' or 'server', not {kind!r}")
    return {
        "assets": assets,
        "label": label,
        "kind": kind,
        "model": dict(model_info) if model_info else None,
        "reason": reason,
        "text": text,
        "version": version,
        "seq": seq,
        "recognise": recognise,
        "specials": dict(specials) if specials is not None else None,
        "specialsId": hashlib.sha256(repr(sorted(specials.items())).encode()).hexdigest()[:16] if specials else "",
        "specialNames": list(special_names),
        "whitespace": whitespace,
        "mode": mode,
        "server": dict(server) if server else None,
        "present": present,
        "limits": {"live": LIVE_LIMIT, "spans": span_limit},
    }

"""Which names (dict keys, header names, ``NAME=value`` words, environment variables) hold secrets.

A name is split into lower-case words at separators and camelCase humps (``secretAccessKey`` →
secret, access, key; ``X-Auth-Token`` → x, auth, token). It names a secret when one of its words is
a secret word (``key``, ``token``, ``password``...) or ends with one glued on (``apikey``,
``DBPASSWORD``), and none of its words says the value is something else: a count (``max_tokens``,
``token_usage``), a kind, a name, an id, a path (``key_id``, ``token_type``, ``private_key_path``).
"""

from __future__ import annotations

import re
from functools import lru_cache

# A word that is one of these names a secret.
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "secrets",
        "password",
        "passwords",
        "passwd",
        "pwd",
        "passphrase",
        "auth",
        "authorization",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "creds",
        "session",
        "private",
        "privatekey",
    }
)
# A word ending with one of these (glued: OPENAIKEY, accesstoken, dbpassword) names a secret...
_GLUED_SUFFIXES = (
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "cookie",
    "credential",
    "credentials",
    "auth",
)
# ... and so does a word starting with one of these (secretkey, passwordvalue, credentialsjson).
_GLUED_PREFIXES = ("secret", "password", "passwd", "passphrase", "credential")
# Words that look glued but are ordinary words.
_ORDINARY_WORDS = frozenset(
    {
        "monkey",
        "turkey",
        "donkey",
        "hockey",
        "jockey",
        "whiskey",
        "hotkey",
        "publickey",
        "secretary",
        "secretaries",
        "passwordless",
        "oauth",
    }
)
# A word saying the value is not the secret itself: a count, a limit, a kind, a name, an id, a
# place, a flag, or a key that is not a credential (sort key, cache key, public key).
_DESCRIPTOR_WORDS = frozenset(
    {
        # counts and limits (max_tokens, token_usage, prompt_tokens, total_tokens, token_count)
        *("tokens", "usage", "count", "counts", "limit", "limits", "max", "min", "total", "num"),
        *("number", "budget", "estimate", "estimated", "used", "remaining", "length", "len"),
        *("size", "units", "unit", "rate", "ratio", "per", "cost", "price", "bits"),
        # what the text around a tokenizer says
        *("tokenizer", "tokenizers", "tokenize", "tokenized", "tokenization", "parallelism"),
        # kinds, names, ids, places
        *("type", "kind", "method", "scheme", "name", "names", "id", "ids", "url", "uri"),
        *("endpoint", "path", "file", "filename", "dir", "env", "var", "provider", "source"),
        *("format", "algorithm", "alg", "version", "mode", "scope", "scopes", "hint", "label"),
        *("description", "fingerprint", "digest", "policy", "location", "ip", "host", "port"),
        *("sock", "socket", "layout", "manager", "bus", "address", "timeout", "ttl"),
        *("expires", "expiry", "expiration", "enabled", "required", "public"),
        # keys that are not credentials
        *("sort", "cache", "primary", "foreign", "partition", "idempotency", "dedup", "object"),
        *("lookup", "row", "shortcut", "keyframe", "keystroke", "keycode", "keymap", "index"),
    }
)

_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
# camelCase humps and runs of capitals: secretAccessKey, XAuthToken, HTTPHeaderAuth
_HUMPS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Environment variables whose names match but whose values are not secrets (and would mask
# ordinary text everywhere: PWD is the current directory).
_ORDINARY_ENV_NAMES = frozenset(
    {"PWD", "OLDPWD", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "KEYTIMEOUT", "SESSION_MANAGER"}
)


def name_words(name: str) -> list[str]:
    """The lower-case words of ``name``: split at separators, camelCase humps and digits."""
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        if part:
            words.extend(hump.lower() for hump in _HUMPS.findall(part))
    return words


def _is_secret_word(word: str) -> bool:
    if word in _SECRET_WORDS:
        return True
    if word in _ORDINARY_WORDS:
        return False
    return any(len(word) > len(s) and word.endswith(s) for s in _GLUED_SUFFIXES) or any(
        len(word) > len(p) and word.startswith(p) for p in _GLUED_PREFIXES
    )


@lru_cache(maxsize=8192)  # names repeat from event to event
def is_secret_name(name: str) -> bool:
    """Whether a key, header or variable called ``name`` holds a secret (case and separators ignored)."""
    if not name or len(name) > 100:
        return False
    words = name_words(name)
    if any(word in _DESCRIPTOR_WORDS for word in words):
        return False
    return any(_is_secret_word(word) for word in words)


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret."""
    return name.upper() not in _ORDINARY_ENV_NAMES and is_secret_name(name)

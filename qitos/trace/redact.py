"""Secret redaction for traces: API keys, bearer tokens and secret environment values never reach disk."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

MASK = "[REDACTED]"

# Environment variable names that hold secrets. TOKEN, SECRET, PASSWORD and CREDENTIAL count
# anywhere in the name (GH_TOKEN, DBPASSWORD); KEY and AUTH only as a word or suffix (OPENAI_API_KEY,
# OPENAIKEY, X_AUTH) so KEYBOARD_LAYOUT stays visible. Over-matching only masks a harmless value.
_SECRET_ENV_NAME = re.compile(
    r"TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|CREDENTIAL|KEY(?:$|_)|(?:^|_)AUTH(?:$|_)",
    re.IGNORECASE,
)
# Names matched by the pattern above that never hold secrets.
_NOT_SECRET_ENV_NAMES = frozenset({"TOKENIZERS_PARALLELISM", "KEYTIMEOUT", "SSH_AUTH_SOCK"})

# Values shorter than this are not masked: masking "1" or "true" everywhere would wreck a trace
# and such values are not secrets worth the name.
_MIN_SECRET_LEN = 8

# Well-known credential shapes, masked wherever they appear in any string.
_PATTERNS: tuple[str, ...] = (
    r"\bsk-[A-Za-z0-9_\-]{16,}",  # OpenAI-style keys (sk-..., sk-proj-...)
    r"\b(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*",  # Authorization header values
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
    r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",  # Slack tokens
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bAIza[0-9A-Za-z_\-]{35}\b",  # Google API keys
)

# Dict keys whose values are secrets whatever they look like (compared lower-case, '-' as '_').
SECRET_KEYS: frozenset[str] = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "authorization",
        "proxy_authorization",
        "password",
        "passwd",
        "passphrase",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "bearer_token",
        "secret",
        "client_secret",
        "secret_key",
        "private_key",
        "credentials",
    }
)


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret."""
    return name.upper() not in _NOT_SECRET_ENV_NAMES and bool(_SECRET_ENV_NAME.search(name))


@lru_cache(maxsize=4096)  # keys repeat from event to event; the cache keeps the walk cheap
def _is_secret_key(key: str) -> bool:
    return key.lower().replace("-", "_") in SECRET_KEYS


class Redactor:
    """Masks secrets in JSON-like data: secret env values, credential patterns and secret-named keys."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        extra_secrets: Iterable[str] = (),
        mask: str = MASK,
    ) -> None:
        environ = os.environ if env is None else env
        values = {v for k, v in environ.items() if is_secret_env_name(k) and len(v) >= _MIN_SECRET_LEN}
        values.update(s for s in extra_secrets if s and len(s) >= _MIN_SECRET_LEN)
        self.mask = mask
        # One alternation, one pass per string: literal secrets longest first (so a secret that
        # contains another is masked whole), then the credential shapes.
        literals = [re.escape(v) for v in sorted(values, key=len, reverse=True)]
        self._pattern = re.compile("|".join([*literals, *_PATTERNS]))
        self._secret_count = len(values)

    @property
    def secret_count(self) -> int:
        """How many literal secret values (from the environment and extras) this redactor masks."""
        return self._secret_count

    def redact_text(self, text: str) -> str:
        """The string with every known secret and credential-shaped substring masked."""
        if len(text) < _MIN_SECRET_LEN:
            return text  # shorter than any secret or credential shape we mask
        return self._pattern.sub(self.mask, text)

    def redact(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` with secrets masked; containers are rebuilt, never mutated."""
        kind = type(value)
        # Exact-type checks first: this runs for every value of every event written.
        if kind is str:
            return value if len(value) < _MIN_SECRET_LEN else self._pattern.sub(self.mask, value)
        if kind is dict or isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if isinstance(key, str):
                    if _is_secret_key(key) and item is not None and item != "":
                        out[self.redact_text(key)] = self.mask
                        continue
                    key = self.redact_text(key)
                out[key] = self.redact(item)
            return out
        if kind is list or kind is tuple or isinstance(value, list | tuple | set | frozenset):
            return [self.redact(item) for item in value]
        if value is None or kind is bool or kind is int or kind is float:
            return value
        if isinstance(value, str):
            return self.redact_text(str(value))
        if isinstance(value, bytes | bytearray):
            return self.redact_text(bytes(value).decode("utf-8", errors="replace"))
        if value is None or isinstance(value, bool | int | float):
            return value
        # Anything else would be written with str() by the JSON encoder: redact that text now,
        # or a secret inside an object's repr would slip through.
        try:
            text = str(value)
        except Exception as exc:  # a broken __str__ must not lose the whole event
            text = f"<unprintable {type(value).__name__}: {exc!r}>"
        return self.redact_text(text)

"""Credential shapes: where well-known secret formats occur in a string, wherever they stand.

The facts (prefixes, alphabets, lengths) are the ones secret scanners such as gitleaks and
detect-secrets publish; the code is ours. :func:`shape_spans` returns ``(start, end)`` spans to
mask. It is written for a JSON line: no span starts or ends inside a JSON escape, so masking a span
keeps the line valid JSON.

Speed: every trace line goes through this. A regex alternation that may start at any letter costs
about 30 ns a character in CPython, too slow for every line; so the line is first cut into *runs*
of token characters at C speed (translate to a two-letter alphabet, then substring search), and
the shapes are looked for only inside runs long enough to hold one. Shapes that contain spaces or
no long run (Bearer and Basic values, PEM blocks, URL passwords) have their own patterns, tried
only when a literal they must contain is in the line.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from urllib.parse import unquote

# What may stand right before a shape: anything but a letter, a digit or a backslash (so
# "OPENAI_KEY_sk-..." and "key=sk-..." are found, "task-..." is not, and a shape never starts with
# the letter of a JSON escape), a URL-encoded byte ("%20sk-...") or a JSON escape ("\\nsk-...").
_LEFT = r"(?:(?<![A-Za-z0-9\\].)|(?<=%[0-9A-Fa-f]{2}.)|(?<=\\[nrtbf].))"
_B64URL = r"[A-Za-z0-9_\-]"
# A token character of an Authorization value, also URL-encoded (%2B, %2F, %3D).
_TOKEN = r"(?:[A-Za-z0-9._~+/\-]|%[0-9A-Fa-f]{2})"
_SPACE = r"(?:[ \t]+|%20|\+)+"
_PAD = r"(?:=|%3[Dd]){0,2}"

# Credential shapes with a prefix, grouped by first character (the grouping keeps the alternation
# cheap: the regex engine compares one character per group); each ends where the credential ends.
_BY_FIRST_CHAR: dict[str, list[str]] = {
    "A": [
        r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",  # AWS access key ids
        r"Iza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])",  # Google API keys
        r"TATT3[A-Za-z0-9_\-=]{100,}",  # Atlassian API tokens
        r"GE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",  # age secret keys
    ],
    "C": [r"LOJARS_[a-z0-9]{60}"],
    "d": [
        r"o[opr]_v1_[a-f0-9]{64}",  # DigitalOcean
        r"api[a-h0-9]{32}",  # Databricks
        r"p\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",  # Doppler
        r"ckr_pat_[A-Za-z0-9_\-]{27,}",  # Docker Hub
    ],
    "E": [r"AAA[A-Za-z0-9_\-]{60,}"],  # Square access tokens
    "e": [r"yJ" + _B64URL + r"{8,}\.eyJ" + _B64URL + r"{8,}\.(?:" + _B64URL + r"|%3D|=)*"],  # JWTs
    "f": [r"o1_[A-Za-z0-9_\-]{43}", r"igd_[A-Za-z0-9_\-]{40,}"],  # Fly.io, Figma
    "G": [r"OCSPX-[A-Za-z0-9_\-]{28}", r"R1348941[A-Za-z0-9_\-]{20}"],  # Google OAuth secret, GitLab runner
    "g": [
        r"h[pousr]_[A-Za-z0-9]{20,255}",  # GitHub tokens (36 after the prefix; shorter ones too)
        r"ithub_pat_[A-Za-z0-9_]{22,255}",  # GitHub fine-grained tokens
        r"l(?:pat|dt|rt|ptt|soat|ft|imt|agent|cbt)-[A-Za-z0-9_\-]{20,}",  # GitLab tokens
        r"lc_[A-Za-z0-9+/]{32,}={0,2}",  # Grafana cloud
        r"lsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",  # Grafana service accounts
        r"sk_[A-Za-z0-9]{48,}",  # Groq
    ],
    "H": [r"RKU-[A-Za-z0-9_\-]{30,}"],  # Heroku
    "h": [r"f_[A-Za-z0-9]{30,}", r"v[sb]\.[A-Za-z0-9_\-]{24,}"],  # Hugging Face, Vault
    "k": [r"ey-[0-9a-f]{32}(?![0-9a-f])"],  # Mailgun
    "l": [r"in_api_[A-Za-z0-9]{40}", r"sv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"],  # Linear, LangSmith
    "N": [r"RAK-[A-Z0-9]{27}"],  # New Relic
    "n": [r"pm_[A-Za-z0-9]{36,}", r"tn_[A-Za-z0-9]{40,}"],  # npm, Notion
    "o": [r"ps_eyJ[A-Za-z0-9+/=_\-]{100,}"],  # 1Password service accounts
    "P": [r"MAK-[a-f0-9]{24}-[a-f0-9]{34}"],  # Postman
    "p": [
        r"ypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}",  # PyPI
        r"plx-[A-Za-z0-9]{40,}",  # Perplexity
        r"ul-[a-f0-9]{40}",  # Pulumi
        r"scale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}",  # PlanetScale
        r"at[A-Za-z0-9]{14}\.[a-f0-9]{64}",  # Airtable
    ],
    "r": [r"k_(?:live|test)_[A-Za-z0-9]{10,}", r"8_[A-Za-z0-9]{37}", r"ubygems_[a-f0-9]{48}"],
    "S": [
        r"K[0-9a-fA-F]{32}(?![0-9a-fA-F])",
        r"G\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
    ],  # Twilio, SendGrid
    "s": [
        r"k-[A-Za-z0-9_\-]{16,}",  # OpenAI (sk-proj-...), Anthropic (sk-ant-...), OpenRouter, DeepSeek
        r"k_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe secret keys
        r"k\.eyJ[A-Za-z0-9_.\-]{20,}",  # Mapbox secret tokens
        r"hp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",  # Shopify
        r"q0(?:atp|csp)-[A-Za-z0-9_\-]{22,}",  # Square
        r"ntry[su]_[A-Za-z0-9+/=_]{50,}",  # Sentry
        r"bp_[a-f0-9]{40}",  # Supabase
        r"ecret_[A-Za-z0-9]{43}(?![A-Za-z0-9])",  # Notion (old)
        r"l\.[A-Za-z0-9_\-]{130,}",  # Dropbox
    ],
    "t": [r"vly-[A-Za-z0-9_\-]{20,}"],  # Tavily
    "w": [r"hsec_[A-Za-z0-9+/=]{24,}"],  # webhook signing secrets (Stripe, Svix)
    "x": [
        r"ox(?:[abprse]|e\.xox[bp])-[A-Za-z0-9\-]{10,}",  # Slack tokens
        r"app-[0-9]-[A-Za-z0-9\-]{10,}",  # Slack app tokens
        r"ai-[A-Za-z0-9]{60,}",  # xAI
    ],
    "y": [r"a29\.[A-Za-z0-9_\-]{20,}"],  # Google OAuth access tokens
}

# Shapes found inside a run with no prefix letter to group by, each tried only when the run holds
# the literal before it (a branch that does not start with a literal slows every position down).
_OTHER = [
    ("sig=", r"(?<=[?&;])sig=[A-Za-z0-9%+/=]{16,}"),  # Azure SAS signatures
    ("SharedAccessSignature=", r"(?<=SharedAccessSignature=)[A-Za-z0-9%+/=&.\-]{16,}"),
    ("hooks.slack.com/", r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}"),
    ("/api/webhooks/", r"(?<=/api/webhooks/)[0-9]+/[A-Za-z0-9_\-]{40,}"),  # Discord webhooks
    ("-us", r"(?:(?<![0-9a-f])|(?<=\\[nrtbf]))[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])"),  # Mailchimp
    (".atlasv1.", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}"),  # Terraform Cloud
]
_PREFIXED = re.compile(
    "|".join(f"{first}{_LEFT}(?:{'|'.join(alts)})" for first, alts in _BY_FIRST_CHAR.items())
)
_GATED = [(literal, re.compile(pattern)) for literal, pattern in _OTHER]
# Runs no credential looks like: lower-case hex (digests), or lower-case words of at most 15
# letters between separators (key names, paths); every shape's body is longer than that.
_PLAIN_RUN = re.compile(r"[0-9a-f]+|[a-z]{1,15}(?:[_./\-]+[a-z]{1,15})*")

# Values of an Authorization header written out: "Bearer <token>", "Basic <base64 user:pass>".
_AUTH_SCHEME = re.compile(
    rf"(?:(?<![A-Za-z0-9\\])|(?<=\\[nrtbf]))(?P<scheme>bearer|basic){_SPACE}(?P<value>{_TOKEN}{{8,}}{_PAD})",
    re.IGNORECASE,
)
_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[^\"\\-]|\\.|-(?!----END))*"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?"
)
# Telegram bot tokens: the secret after the colon goes, the bot id before it stays. (Not a run
# shape: the colon ends the run, and a run's spans are remembered without what precedes it.)
_TELEGRAM = re.compile(r"(?<=[0-9]{8}:)AA[A-Za-z0-9_\-]{33}")
# scheme://user:password@host: the password goes, the user and host stay.
_URL_PASSWORD = re.compile(r"://[^\s/?#@\"'\\:]+:(?P<pw>[^\s/?#@\"'\\]+)@")


def shape_spans(line: str, lowered: str | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``line`` holding a known credential shape.

    ``lowered`` is ``line.lower()`` when the caller has it (same length), to test literals once.
    """
    spans: list[tuple[int, int]] = []
    for start, end in _runs(line):
        # Runs repeat from line to line (run ids, key names): their spans are remembered, keyed by
        # the run and the character before it (the most any run shape's lookbehind reads outside
        # the run).
        key = line[start - 1 : end] if start else line[:end]
        found = _RUN_CACHE.get(key)
        if found is None:
            found = _run_spans(line, start, end)
            if len(key) <= _RUN_CACHE_LONGEST:
                if len(_RUN_CACHE) >= _RUN_CACHE_SIZE:
                    _RUN_CACHE.clear()  # unique runs (digests, uuids) would grow it without bound
                _RUN_CACHE[key] = found
        spans.extend((start + a, start + b) for a, b in found)
    low = lowered if lowered is not None and len(lowered) == len(line) else line.lower()
    if "bearer" in low or "basic" in low:
        # Overlapping matches: a scheme's value may itself hold the next scheme word ("Bearer
        # KEY_Basic <credentials>"), so the search goes on from the value, not from its end.
        at = 0
        while (match := _AUTH_SCHEME.search(line, at)) is not None:
            value = match.group("value")
            if _basic_credentials(value) if match.group("scheme").lower() == "basic" else not value.isalpha():
                spans.append(match.span("value"))  # the scheme word stays, its credential goes
            at = match.start("value")
    if "PRIVATE KEY" in line:
        spans.extend(match.span() for match in _PEM.finditer(line))
    if "://" in line:
        spans.extend(match.span("pw") for match in _URL_PASSWORD.finditer(line))
    if ":AA" in line:
        spans.extend(match.span() for match in _TELEGRAM.finditer(line))
    return spans


_RUN_CACHE: dict[str, tuple[tuple[int, int], ...]] = {}
_RUN_CACHE_SIZE = 4096
_RUN_CACHE_LONGEST = 200  # ids and names repeat; long runs (base64 blobs) do not


def _run_spans(line: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """The credential spans inside one run, relative to its start."""
    run = line[start:end]
    if _PLAIN_RUN.fullmatch(run):
        return ()
    spans = [match.span() for match in _PREFIXED.finditer(line, start, end)]
    for literal, pattern in _GATED:
        if literal in run:
            spans.extend(match.span() for match in pattern.finditer(line, start, end))
    spans.extend(_base64_key_spans(line, start, end))
    return tuple((a - start, b - start) for a, b in spans)


def _basic_credentials(token: str) -> bool:
    """Whether an HTTP Basic value decodes to ``user:password`` (so "Basic instructions" is not one)."""
    raw = unquote(token)
    try:
        decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and all(32 <= byte < 127 for byte in decoded)


# Token characters: what a credential is made of (URL-encoded and base64 ones included).
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=%")
_RUN_TABLE = bytes(ord("a") if chr(i) in _RUN_CHARS else ord(" ") for i in range(256))
_MIN_RUN = 16  # the shortest shape above (a Slack token) is longer
_RUN_NEEDLE = b"a" * _MIN_RUN


def _runs(line: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` character offsets of the runs of at least ``_MIN_RUN`` token characters."""
    data = line.encode("utf-8", "surrogatepass")
    ascii_only = len(data) == len(line)
    runs = data.translate(_RUN_TABLE)
    byte_at, char_at = 0, 0  # a known byte offset and its character offset (non-ASCII lines)
    pos = runs.find(_RUN_NEEDLE)
    while pos >= 0:
        end = runs.find(b" ", pos)
        end = len(runs) if end < 0 else end
        if ascii_only:
            yield pos, end
        else:
            char_at += len(data[byte_at:pos].decode("utf-8", "surrogatepass"))
            byte_at = pos
            yield char_at, char_at + (end - pos)  # a run is ASCII: bytes are characters
        pos = runs.find(_RUN_NEEDLE, end)


# Base64 keys with no prefix, told by their exact length inside a run: AWS secret access keys (40
# characters, mixed case and digits) and Azure storage account keys (86 + "==").
_BASE64_PIECE = re.compile(
    r"(?:(?<![A-Za-z0-9+/\\])|(?<=\\[nrtbf]))[A-Za-z0-9+/]{40}(?:[A-Za-z0-9+/]{46}==)?(?![A-Za-z0-9+/])"
)


def _base64_key_spans(line: str, start: int, end: int) -> list[tuple[int, int]]:
    if end - start < 40:
        return []
    spans = []
    for match in _BASE64_PIECE.finditer(line, start, end):
        piece = match.group()
        a, b = match.span()
        if line[b : b + 1] in ("=", "-", "_") and len(piece) == 40:
            continue  # part of a longer base64 or id
        if len(piece) == 40:
            before = line[a - 1 : a]
            if before in ("-", ".") or piece.startswith("/") or piece.endswith("/") or piece.count("/") > 2:
                continue  # an id or a path, not a key
        if _mixed(piece):
            spans.append((a, b))
    return spans


def _mixed(piece: str) -> bool:
    """Whether a key-sized piece has upper- and lower-case letters and digits (a hex digest has not)."""
    return (
        any(c.isupper() for c in piece)
        and any(c.islower() for c in piece)
        and any(c.isdigit() for c in piece)
    )

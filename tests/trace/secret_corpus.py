"""A corpus of synthetic, shape-correct credentials, the contexts they are tried in, and look-alikes.

Every secret is built in code from a seeded generator (prefixes split so no literal here looks like
a live credential to a scanner). A sample is ``(name, secret, carrier)``: ``carrier`` is the text
the secret travels in (itself, or a URL, header value or connection string holding it), and the
test checks ``secret`` never comes out.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Any
from urllib.parse import quote

_RNG = random.Random(11)
UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
LETTERS = UPPER + LOWER
ALNUM = LETTERS + DIGITS
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def chars(alphabet: str, n: int) -> str:
    """``n`` random characters of ``alphabet``, with an upper, a lower letter and a digit when the
    alphabet has them (real keys do; a sample without them would be a weaker test)."""
    while True:
        text = "".join(_RNG.choice(alphabet) for _ in range(n))
        needs = [group for group in (UPPER, LOWER, DIGITS) if set(group) & set(alphabet)]
        if n < 8 or all(set(text) & set(group) for group in needs):
            return text


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = _b64url(json.dumps({"sub": chars(DIGITS, 10), "name": "Ada", "iat": 1700000000}).encode())
    return f"{header}.{claims}.{chars(URLSAFE, 43)}"


def _pem(kind: str) -> str:
    body = "\n".join(chars(B64, 64) for _ in range(6))
    label = f"{kind} PRIVATE KEY".strip()
    return f"-----BEGIN {label}-----\n{body}\n{chars(B64, 20)}==\n-----END {label}-----"


def _samples() -> list[tuple[str, str, str]]:
    aws_secret = chars(B64, 40)
    azure_key = chars(B64, 86) + "=="
    sas = chars(B64, 43) + "="
    password = chars(ALNUM, 16)
    basic = base64.b64encode(f"deploy:{password}".encode()).decode()
    bearer = chars(ALNUM, 40)
    slack_hook = chars(ALNUM, 24)
    discord_hook = chars(URLSAFE, 68)
    telegram = "AA" + chars(URLSAFE, 33)
    single = [
        ("aws access key id", "AK" + "IA" + chars(UPPER + DIGITS, 16)),
        ("aws temporary access key id", "AS" + "IA" + chars(UPPER + DIGITS, 16)),
        ("github classic token", "gh" + "p_" + chars(ALNUM, 36)),
        ("github oauth token", "gh" + "o_" + chars(ALNUM, 36)),
        ("github app server token", "gh" + "s_" + chars(ALNUM, 36)),
        ("github app user token", "gh" + "u_" + chars(ALNUM, 36)),
        ("github refresh token", "gh" + "r_" + chars(ALNUM, 76)),
        ("github fine-grained token", "github" + "_pat_" + chars(ALNUM, 22) + "_" + chars(ALNUM, 59)),
        ("gitlab token", "gl" + "pat-" + chars(URLSAFE, 20)),
        (
            "slack bot token",
            "xo" + "xb-" + chars(DIGITS, 12) + "-" + chars(DIGITS, 13) + "-" + chars(ALNUM, 24),
        ),
        (
            "slack user token",
            "xo" + "xp-" + chars(DIGITS, 12) + "-" + chars(DIGITS, 12) + "-" + chars(HEX, 32),
        ),
        (
            "slack app token",
            "xa" + "pp-1-" + chars(UPPER + DIGITS, 11) + "-" + chars(DIGITS, 13) + "-" + chars(HEX, 64),
        ),
        ("jwt", _jwt()),
        ("pem rsa private key", _pem("RSA")),
        ("pem pkcs8 private key", _pem("")),
        ("pem openssh private key", _pem("OPENSSH")),
        ("azure storage account key", azure_key),
        ("hugging face token", "hf" + "_" + chars(LETTERS, 34)),
        ("stripe live secret key", "sk" + "_live_" + chars(ALNUM, 24)),
        ("stripe restricted key", "rk" + "_live_" + chars(ALNUM, 24)),
        ("npm token", "np" + "m_" + chars(ALNUM, 36)),
        ("openai key", "sk" + "-" + chars(ALNUM, 48)),
        ("openai project key", "sk" + "-proj-" + chars(URLSAFE, 120)),
        ("anthropic key", "sk" + "-ant-api03-" + chars(URLSAFE, 93) + "AA"),
        ("google api key", "AI" + "za" + chars(URLSAFE, 35)),
        ("google oauth access token", "ya" + "29." + chars(URLSAFE, 80)),
        ("google oauth client secret", "GOC" + "SPX-" + chars(URLSAFE, 28)),
        ("twilio api key", "S" + "K" + chars(HEX, 32)),
        ("sendgrid key", "S" + "G." + chars(URLSAFE, 22) + "." + chars(URLSAFE, 43)),
        ("mailgun key", "ke" + "y-" + chars(HEX, 32)),
        ("mailchimp key", chars(HEX, 32) + "-us" + "12"),
        ("shopify token", "shp" + "at_" + chars(HEX, 32)),
        ("digitalocean token", "do" + "p_v1_" + chars(HEX, 64)),
        ("databricks token", "da" + "pi" + chars(HEX, 32)),
        ("pypi token", "py" + "pi-AgEIcHlwaS5vcmc" + chars(URLSAFE, 70)),
        ("square token", "sq" + "0atp-" + chars(URLSAFE, 22)),
        ("linear key", "lin" + "_api_" + chars(ALNUM, 40)),
        ("postman key", "PM" + "AK-" + chars(HEX, 24) + "-" + chars(HEX, 34)),
        ("grafana service account", "gl" + "sa_" + chars(ALNUM, 32) + "_" + chars(HEX, 8)),
        ("new relic key", "NR" + "AK-" + chars(UPPER + DIGITS, 27)),
        ("age secret key", "AGE-" + "SECRET-KEY-1" + "".join(_RNG.choice(BECH32) for _ in range(58))),
        ("groq key", "gs" + "k_" + chars(ALNUM, 52)),
        ("replicate token", "r" + "8_" + chars(ALNUM, 37)),
        ("perplexity key", "pp" + "lx-" + chars(ALNUM, 48)),
        ("tavily key", "tv" + "ly-" + chars(ALNUM, 32)),
        ("langsmith key", "ls" + "v2_pt_" + chars(HEX, 32) + "_" + chars(HEX, 10)),
        ("vault token", "hv" + "s." + chars(URLSAFE, 90)),
        ("docker hub token", "dc" + "kr_pat_" + chars(URLSAFE, 27)),
        ("webhook signing secret", "wh" + "sec_" + chars(ALNUM, 32)),
        ("supabase token", "sb" + "p_" + chars(HEX, 40)),
        ("atlassian token", "ATA" + "TT3" + chars(URLSAFE, 186)),
        ("xai key", "xa" + "i-" + chars(ALNUM, 80)),
        ("notion token", "nt" + "n_" + chars(ALNUM, 46)),
        ("doppler token", "dp" + ".pt." + chars(ALNUM, 43)),
    ]
    carried = [
        ("aws secret access key", aws_secret, aws_secret),
        (
            "azure connection string",
            azure_key[:-2][::-1] + "==",
            "DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey="
            + azure_key[:-2][::-1]
            + "==;EndpointSuffix=core.windows.net",
        ),
        (
            "azure sas signature",
            quote(sas, safe=""),
            f"https://acct1.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={quote(sas, safe='')}",
        ),
        ("url userinfo password", password, f"https://deploy:{password}@git.example.com/team/repo.git"),
        ("http basic credentials", basic, f"Basic {basic}"),
        ("opaque bearer token", bearer, f"Bearer {bearer}"),
        (
            "slack webhook",
            slack_hook,
            f"https://hooks.slack.com/services/T{chars(UPPER + DIGITS, 8)}/B{chars(UPPER + DIGITS, 8)}/{slack_hook}",
        ),
        (
            "discord webhook",
            discord_hook,
            f"https://discord.com/api/webhooks/{chars(DIGITS, 18)}/{discord_hook}",
        ),
        ("telegram bot token", telegram, f"{chars(DIGITS, 10)}:{telegram}"),
    ]
    return [(name, secret, secret) for name, secret in single] + carried


SAMPLES: list[tuple[str, str, str]] = _samples()

# Names a secret is stored under in the "secret-named key" context (rotated over the samples).
SECRET_KEY_NAMES = (
    "api_key",
    "OPENAI_API_KEY",
    "X-Auth-Token",
    "aws_secret_access_key",
    "Cookie",
    "session_token",
    "db_password",
    "Api-Token",
    "secretAccessKey",
    "pwd",
    "client_secret",
    "private_key",
    "credentials",
    "passwd",
)
HEADER_NAMES = ("Authorization", "X-Api-Key", "Cookie", "Proxy-Authorization", "X-Auth-Token")


def contexts(index: int, carrier: str) -> dict[str, Any]:
    """The carrier in each context a secret must be masked in, keyed by context name."""
    key = SECRET_KEY_NAMES[index % len(SECRET_KEY_NAMES)]
    header = HEADER_NAMES[index % len(HEADER_NAMES)]
    return {
        "plain text": f"the tool said {carrier} and stopped",
        "nested dict value": {"a": {"b": [{"c": carrier}]}},
        "secret-named key": {"config": {key: carrier, "region": "eu"}},
        "header pair": {"headers": [[header, carrier], ["Accept", "application/json"]]},
        "json inside a string": json.dumps({key: carrier, "note": f"sent {carrier} ok"}),
        "glued to a word": f"OPENAI_KEY_{carrier} and TOKEN={carrier}",
        "url-encoded": f"GET /v1?x=1 Authorization%3A%20Bearer%20{quote(carrier, safe='')}",
    }


def spellings(secret: str) -> list[str]:
    """How a secret could show up in a JSON line: as is, JSON-escaped, URL-encoded."""
    forms = {secret, json.dumps(secret)[1:-1], quote(secret, safe="")}
    return sorted(forms)


# Things that look like secrets (long hex, ids, counts, token words) and must come through as is.
_DIGEST = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
LOOKALIKES: list[tuple[str, Any]] = [
    ("sha-256 receipt digest", {"output_digest": _DIGEST}),
    ("sha-256 in text", f"receipt digest sha256:{_DIGEST} verified"),
    ("git commit hash", "fixed in commit 3a662f1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a and merged"),
    ("uppercase sha-1", "fingerprint A035C8C19219BA821ECEA86B64E628F8D684696D"),
    ("uuid", {"request_id": "123e4567-e89b-12d3-a456-426614174000"}),
    ("record id", {"record_id": "rec_7f3a9c2e1b4d5f6a8b9c0d1e2f3a4b5c"}),
    ("run id", {"run_id": "qitos_20261201_071334_430943"}),
    ("request view id", {"request_view_id": "request_2d9821be6aa13a73d39c0720"}),
    ("chat completion id", {"id": "chatcmpl-" + "9xYzAbCdEfGhIjKlMnOpQrStUvWx1"}),
    ("tool call id", {"call_id": "call_" + "Ab12Cd34Ef56Gh78Ij90Kl12"}),
    ("token counts", {"usage": {"prompt_tokens": 512, "completion_tokens": 64, "total_tokens": 576}}),
    ("max_tokens", {"max_tokens": 512, "token_usage": 3591, "token_count": 12, "num_tokens": 7}),
    ("max_tokens in text", "max_tokens: 512 and total_tokens=576"),
    ("tokenizer word", "the tokenizer splits text into tokens; tokenization is cheap"),
    ("token words in prose", "a bearer of good news and basic instructions for the keyboard"),
    ("key ids and types", {"key_id": "k-2024-01", "token_type": "Bearer", "auth_method": "oauth"}),
    ("public key", {"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq0x test@host"}),
    ("sort and cache keys", {"sort_key": "created_at", "cache_key": "user:42:profile"}),
    ("author", {"author": "Ada Lovelace", "authored": "1843"}),
    ("ordinary path", "/usr/lib/python3.11/site-packages/qitos/trace/redact.py"),
    ("long path without dots", "see src/QitosAgentCore/Modules/TraceWriter2s for more"),
    (
        "base64 image chunk",
        "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 2,
    ),
    ("iso timestamp", {"ts": "2026-12-01T07:06:24.771514+00:00"}),
    ("url without password", "https://api.example.com:8443/v1/chat?model=gpt&user=ada"),
    ("email address", "write to ada@example.com about it"),
    ("task id with sk", "task-abcdefghijklmnopqrstu and desk-management-system-for-teams"),
    ("numbers", {"latency_ms": 0.0070620000087, "steps": 100, "units": 148}),
    ("memory record", {"record_id": "mem_00000001", "role": "user", "content": "remember the session plan"}),
    ("session id", {"session_id": "sess_20261201_0001"}),
    ("private flag", {"private": True, "secret": None, "password": ""}),
    ("prose with secret words", "the auth: first step, then Key: the main idea of the session"),
    ("two-word list", ["auth", "login", "logout"]),
]

"""The fast lexer lookup picks what Pygments' own lookup picks, without its launch cost."""

from __future__ import annotations

import re
import subprocess
import sys
from fnmatch import fnmatchcase

from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import find_lexer_class, get_all_lexers, get_lexer_for_filename
from pygments.plugin import find_plugin_lexers
from pygments.util import ClassNotFound

from tui.lexers import lexer_alias_for, lexer_class_for

PATTERNS = sorted(
    {p for _name, _aliases, patterns, _mimes in get_all_lexers(plugins=False) for p in patterns}
)


PLUGIN_PATTERNS = tuple(p for cls in find_plugin_lexers() for p in cls.filenames)
"""File-name globs of the plugin lexers installed here (e.g. Mako's, which the phoenix extra brings)."""


def pygments_choice(name: str) -> type | None:
    """What Pygments' own (slow) lookup picks for ``name``; where a plugin lexer also claims the
    name, the built-in lexer Pygments would pick without plugins (the lookup's one deliberate
    difference: plugins are asked only when no built-in lexer knows the name)."""
    if not any(fnmatchcase(name, pattern) for pattern in PLUGIN_PATTERNS):
        try:
            return type(get_lexer_for_filename(name))
        except ClassNotFound:
            return None
    builtin = [
        (cls, pattern)
        for lexer, _aliases, patterns, _mimes in get_all_lexers(plugins=False)
        for pattern in patterns
        if fnmatchcase(name, pattern) and (cls := find_lexer_class(lexer)) is not None
    ]
    if not builtin:
        return type(get_lexer_for_filename(name))  # only a plugin knows it: Pygments' own choice
    return max(builtin, key=lambda m: (m[0].priority + (0.5 if "*" not in m[1] else 0), m[0].__name__))[0]


def example_of(pattern: str) -> str:
    """A file name the glob ``pattern`` matches: each wildcard filled with a character it takes."""
    name = re.sub(r"\[!?([^\]])[^\]]*\]", r"\1", pattern)  # a set: its first character
    return name.replace("*", "f").replace("?", "q")


def test_every_builtin_file_pattern_gets_the_lexer_pygments_picks() -> None:
    """One name per glob Pygments knows (``*.py``, ``Makefile``, ``*.[1-9]``...): the same class."""
    names = {example_of(p) for p in PATTERNS}
    assert len(names) > 800  # every pattern was tried, not an empty list
    differ = {n: (lexer_class_for(n), pygments_choice(n)) for n in names}
    differ = {n: pair for n, pair in differ.items() if pair[0] is not pair[1]}
    assert differ == {}


@settings(max_examples=300, deadline=None)
@given(
    stem=st.text(alphabet="abcXYZ_.-019", max_size=8),
    ending=st.sampled_from(PATTERNS).map(lambda p: p.lstrip("*")) | st.text(max_size=6),
)
def test_any_name_gets_the_lexer_pygments_picks(stem: str, ending: str) -> None:
    """Names near the patterns (partial suffixes, doubled dots, no match at all) agree too."""
    name = (stem + ending).replace("/", "_")
    assert lexer_class_for(name) is pygments_choice(name)


def test_the_alias_is_the_lexers_first() -> None:
    assert lexer_alias_for("calc.py") == "python"
    assert lexer_alias_for("Makefile") == "make"
    assert lexer_alias_for("notes.no-such-extension") is None


def test_a_common_name_is_found_without_scanning_for_plugins() -> None:
    """The entry-point scan (most of Pygments' ~70 ms lookup) is left for names no built-in knows."""
    code = (
        "import sys\n"
        "from tui.lexers import lexer_alias_for\n"
        "assert lexer_alias_for('calc.py') == 'python'\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

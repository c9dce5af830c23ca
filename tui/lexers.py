"""The Pygments lexer for a file name, chosen as Pygments chooses it, without its launch cost.

``pygments.lexers.get_lexer_for_filename`` compiles a regular expression for each of its ~930
file-name globs and scans every installed distribution's entry points for plugin lexers, at every
launch: ~70 ms, on the first frame whenever the first step writes a file. Almost every glob is
``*.ext`` or a plain name, which a string comparison decides exactly; only the dozen real globs go
through ``fnmatch``. Plugin lexers are asked only when no built-in lexer claims the name.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.lexer import Lexer

GLOB_CHARS = frozenset("*?[")


def _matches(name: str, pattern: str) -> bool:
    """Whether ``name`` matches the glob ``pattern`` exactly as Pygments tests it (case-sensitive)."""
    if not GLOB_CHARS & set(pattern):
        return name == pattern
    if pattern[0] == "*" and not GLOB_CHARS & set(pattern[1:]):
        return name.endswith(pattern[1:])
    return fnmatchcase(name, pattern)


@cache
def _builtin_patterns() -> tuple[tuple[str, str], ...]:
    """Every built-in lexer's (name, file-name glob), in Pygments' own order."""
    from pygments.lexers import get_all_lexers

    return tuple(
        (lexer, pattern)
        for lexer, _aliases, patterns, _mimetypes in get_all_lexers(plugins=False)
        for pattern in patterns
    )


def _rating(cls: type[Lexer], pattern: str) -> tuple[float, str]:
    # Pygments' own order when several lexers claim a name (no code to analyse): a plain name
    # beats a glob by half a point of priority, and the class name breaks ties.
    return cls.priority + (0.5 if "*" not in pattern else 0), cls.__name__


def lexer_class_for(file_name: str) -> type[Lexer] | None:
    """The lexer class Pygments would pick for the base name ``file_name``, or None."""
    from pygments.lexers import find_lexer_class

    found = [
        (cls, pattern)
        for lexer, pattern in _builtin_patterns()
        if _matches(file_name, pattern) and (cls := find_lexer_class(lexer)) is not None
    ]
    if not found:
        from pygments.plugin import find_plugin_lexers

        found = [
            (cls, pattern)
            for cls in find_plugin_lexers()
            for pattern in cls.filenames
            if _matches(file_name, pattern)
        ]
    if not found:
        return None
    # Sorted, the last one taken, as Pygments does (a stable sort: the same one among equals).
    return sorted(found, key=lambda match: _rating(*match))[-1][0]


def lexer_alias_for(file_name: str) -> str | None:
    """The alias of the lexer for the base name ``file_name`` (``calc.py`` -> ``python``), or None."""
    cls = lexer_class_for(file_name)
    return cls.aliases[0] if cls is not None and cls.aliases else None

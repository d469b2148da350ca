"""Structured terms: ``diverges_from(DER,SRC)`` and ``reconcile(CON, DER, SRC) before assert``.

Causal-chain entries and fix operators are written as text in signatures (spec §4.1) but are
parsed into :class:`Term` values at load time, so that nothing downstream ever pattern-matches
an opaque string. The original spelling is kept (outside equality) so a signature round-trips
through JSON byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from analogist.errors import TermSyntaxError
from analogist.signature.limits import MAX_NAME_CHARS, MAX_TERM_DEPTH

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


@dataclass(frozen=True, init=False)  # (its own __init__: see signature/model.py)
class Term:
    """A functor applied to arguments; an argument is a role name or a nested term.

    Attributes:
        functor: predicate or operator name, e.g. ``diverges_from``.
        args: role names (str) or nested terms.
        text: the spelling it was parsed from; not part of equality.
    """

    functor: str
    args: tuple[Term | str, ...] = ()
    text: str | None = field(default=None, compare=False, repr=False)

    def __init__(
        self, functor: str, args: tuple[Term | str, ...] = (), text: str | None = None
    ) -> None:
        object.__setattr__(self, "functor", functor)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text if self.text is not None else self.canonical()

    def canonical(self) -> str:
        """The normal spelling: no spaces, e.g. ``diverges_from(DER,SRC)``."""
        inner = ",".join(a if isinstance(a, str) else a.canonical() for a in self.args)
        return f"{self.functor}({inner})"

    def roles(self) -> tuple[str, ...]:
        """Every role name mentioned, depth first, in order."""
        out: list[str] = []
        for a in self.args:
            out.extend([a] if isinstance(a, str) else a.roles())
        return tuple(out)

    def rename(self, mapping: dict[str, str]) -> Term:
        """The same term with role names substituted (unknown names kept)."""
        args = tuple(
            mapping.get(a, a) if isinstance(a, str) else a.rename(mapping) for a in self.args
        )
        return Term(self.functor, args)


@dataclass(frozen=True)
class FixOperator:
    """A fix expressed as an operator over roles plus a free-text qualifier.

    ``reconcile(CON, DER, SRC) before assert`` parses to the term ``reconcile(CON,DER,SRC)``
    with qualifier ``before assert``.
    """

    term: Term
    qualifier: str = ""
    text: str | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        return f"{self.term.canonical()} {self.qualifier}".strip()

    @property
    def operator(self) -> str:
        return self.term.functor


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> TermSyntaxError:
        text = (
            self.text
            if len(self.text) <= 80
            else self.text[:70] + f"... ({len(self.text):,} chars)"
        )
        return TermSyntaxError(
            f"malformed term {text!r}: {what} at position {self.pos}; "
            "write terms as name(ARG, ARG) with role names or nested terms as arguments"
        )

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def name(self) -> str:
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise self.fail("expected a name")
        if m.end() - m.start() > MAX_NAME_CHARS:
            raise self.fail(
                f"a name longer than MAX_NAME_CHARS = {MAX_NAME_CHARS} (docs/limits.md)"
            )
        self.pos = m.end()
        return m.group(0)

    def term(self, depth: int = 1) -> Term:
        if depth > MAX_TERM_DEPTH:
            raise self.fail(
                f"terms nested more than MAX_TERM_DEPTH = {MAX_TERM_DEPTH} deep (docs/limits.md)"
            )
        functor = self.name()
        self.skip()
        if self.pos >= len(self.text) or self.text[self.pos] != "(":
            raise self.fail(f"expected '(' after {functor!r}")
        self.pos += 1
        args: list[Term | str] = []
        self.skip()
        if self.pos < len(self.text) and self.text[self.pos] == ")":
            self.pos += 1
            return Term(functor, ())
        while True:
            arg = self.name()
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == "(":
                self.pos -= len(arg)
                args.append(self.term(depth + 1))
            else:
                args.append(arg)
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("missing ')'")
            ch = self.text[self.pos]
            self.pos += 1
            if ch == ")":
                return Term(functor, tuple(args))
            if ch != ",":
                raise self.fail(f"unexpected {ch!r}")


def parse_term(text: str) -> Term:
    """Parse one complete term such as ``false_claim(CON)``.

    Raises:
        TermSyntaxError: when the text is not exactly one well-formed term.
    """
    if not isinstance(text, str):
        raise TermSyntaxError(f"malformed term {text!r}: expected a string like name(ARG, ARG)")
    return _parse_text(text)


@lru_cache(maxsize=1 << 16)
def _parse_text(text: str) -> Term:
    """:func:`parse_term` of a string, memoised: a bulk ingest parses the same chain terms
    (``starves(DB,JOB)``) over and over, and a Term is immutable. Errors are not cached."""
    p = _Parser(text)
    t = p.term()
    p.skip()
    if p.pos != len(text):
        raise p.fail("unexpected text after the term")
    return Term(t.functor, t.args, text=text)


def parse_fix_operator(text: str) -> FixOperator:
    """Parse ``op(ROLE, ...) qualifier`` into its term and its free-text qualifier."""
    if not isinstance(text, str):
        raise TermSyntaxError(
            f"malformed fix operator {text!r}: expected a string like op(ROLE) ..."
        )
    p = _Parser(text)
    t = p.term()
    qualifier = text[p.pos :].strip()
    return FixOperator(Term(t.functor, t.args), qualifier, text=text)

"""The signature classes that write their own ``__init__`` (for speed: see
``signature/model.py``) take exactly their dataclass fields, in order, with the same defaults,
and stay frozen, equal by value and hashable as before."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

import analogist
from analogist.signature.model import CausalLink, Relation, Role, Surface
from analogist.signature.terms import Term

OWN_INIT = [Role, Relation, CausalLink, Surface, Term]


def init_params(cls: type) -> list[tuple[str, object]]:
    """(name, default) of each parameter of ``cls.__init__`` after ``self``, read from the
    source (a compiled ``__init__`` shows no signature to ``inspect``)."""
    module = importlib.import_module(cls.__module__)
    source = Path(analogist.__file__).parent.joinpath(*module.__name__.split(".")[1:])
    tree = ast.parse(source.with_suffix(".py").read_text(encoding="utf-8"))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    init = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert not init.args.vararg and not init.args.kwarg and not init.args.kwonlyargs
    names = [a.arg for a in init.args.args[1:]]
    missing = len(names) - len(init.args.defaults)
    defaults = [dataclasses.MISSING] * missing + [ast.literal_eval(d) for d in init.args.defaults]
    return list(zip(names, defaults, strict=True))


@pytest.mark.parametrize("cls", OWN_INIT, ids=lambda c: c.__name__)
def test_init_takes_the_fields_in_order_with_their_defaults(cls):
    fields = [(f.name, f.default) for f in dataclasses.fields(cls) if f.init]
    assert init_params(cls) == fields
    assert all(f.default_factory is dataclasses.MISSING for f in dataclasses.fields(cls))


def test_objects_are_frozen_equal_by_value_and_replaceable():
    t = Term("holds", ("A", Term("f", ("B",))), text="holds(A, f(B))")
    assert t == Term("holds", ("A", Term("f", ("B",)))) and hash(t) == hash(Term("holds", t.args))
    assert str(t) == "holds(A, f(B))" and t.canonical() == "holds(A,f(B))"
    link = CausalLink(cause=t, link="causes", effect=Term("fails", ("A",)))
    role = Role("A", "a thing")
    rel = Relation("depends_on", ("A", "B"))
    for obj, field in ((t, "functor"), (link, "link"), (role, "name"), (rel, "predicate")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, "x")
        assert dataclasses.replace(obj) == obj
    assert role.type is None and Term("f").args == () and Term("f").text is None
    assert Surface() == Surface("", (), ()) and Surface(domain="d").entities == ()
    assert repr(rel) == "Relation(predicate='depends_on', args=('A', 'B'))"
    assert repr(t) == "Term(functor='holds', args=('A', Term(functor='f', args=('B',))))"

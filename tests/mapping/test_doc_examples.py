"""The mapping modules' docstring examples, run against whatever core is loaded.

`pytest --doctest-modules` cannot collect a mapping module when the compiled core is built (its
import is an extension module, not the ``.py`` file), so `make test`'s doctest pass skips
``mapping/`` and the examples run here instead, read from the source files.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import analogist.mapping

MAPPING = Path(analogist.mapping.__file__).parent


def _examples() -> list[tuple[str, str]]:
    out = []
    for path in sorted(MAPPING.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if doc and ">>>" in doc:
            out.append((path.stem, doc))
    return out


def test_mapping_docstring_examples_run():
    examples = _examples()
    assert examples, "no mapping module has a docstring example (engine.py has one)"
    for stem, doc in examples:
        module = importlib.import_module(f"analogist.mapping.{stem}")
        test = doctest.DocTestParser().get_doctest(doc, dict(vars(module)), stem, stem, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        result = runner.run(test)
        assert result.attempted > 0 and result.failed == 0, f"{stem}: {result}"

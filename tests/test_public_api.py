"""Every name in analogist.__all__ resolves (the curated public API)."""

import analogist


def test_all_names_resolve():
    missing = [n for n in analogist.__all__ if getattr(analogist, n, None) is None]
    assert missing == []


def test_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError):
        analogist.no_such_thing  # noqa: B018

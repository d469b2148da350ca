"""Every name in analogist.__all__ resolves (the curated public API)."""

import analogist


def test_all_names_resolve():
    missing = [n for n in analogist.__all__ if getattr(analogist, n, None) is None]
    assert missing == []


def test_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError):
        analogist.no_such_thing  # noqa: B018


def test_the_top_level_api_is_small_and_user_level():
    assert len(analogist.__all__) <= 32
    for internal in ("match", "SMEParams", "run_checks", "load_predicates", "report"):
        assert internal not in analogist.__all__
    assert analogist.write_report.__name__ == "write_report"
    assert callable(analogist.Memory.analogize)

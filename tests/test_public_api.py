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


def test_subpackages_export_the_types_their_functions_return():
    import analogist.encode
    import analogist.reason
    import analogist.retrieve
    import analogist.store
    import analogist.verify

    for pkg, names in (
        (analogist.verify, ("RoleMapping", "Assessment", "CriticVerdict")),
        (analogist.retrieve, ("Pool", "Candidate")),
        (analogist.encode, ("EncodeResult",)),
        (analogist.reason, ("AnalogyRun", "Trigger")),
        (analogist.store, ("StoreInterface", "LedgerRow")),
    ):
        for name in names:
            assert name in pkg.__all__ and getattr(pkg, name) is not None, (pkg.__name__, name)

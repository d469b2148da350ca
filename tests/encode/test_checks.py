"""Surface names must not reach L2/L3; relation names map to terms only explicitly."""

from analogist.encode.checks import NameResolver, level_leak_problems, surface_leaks, surface_terms


def test_capitalised_words_of_l0_are_surface_names_but_roles_and_common_words_are_not():
    ents, caps = surface_terms(
        ["intel feed"], "After Redis failed, The SRC at AWS us-east-1 was down.", ["SRC"]
    )
    assert ents == ["intel feed"]
    assert "Redis" in caps and "AWS" in caps
    assert "SRC" not in caps and "After" not in caps and "The" not in caps


def test_leaks_match_whole_words_entities_in_any_case_capitalised_words_as_written():
    assert surface_leaks("The Intel Feed diverged", ["intel feed"], []) == ["intel feed"]
    assert surface_leaks("the cached copy", ["cache"], []) == []
    assert surface_leaks("redis and a Redis node", [], ["Redis"]) == ["Redis"]
    assert surface_leaks("a generic store", [], ["Redis"]) == []


def test_level_leak_problems_name_the_level_and_the_entity():
    problems = level_leak_problems(
        {"L1": "Redis cache read", "L2": "Redis copy trusted", "L3": "Proxy for referent"},
        ["cache"],
        "Redis served stale data",
        ["SRC"],
    )
    assert len(problems) == 1 and problems[0].startswith("levels.L2") and "'Redis'" in problems[0]


def test_resolver_maps_synonyms_and_explicit_mappings_and_reports_the_rest(vocab):
    r = NameResolver(vocab, {"believes": "trusts_as_authoritative", "vibes": "no_such_term"})
    assert r("copied_from", "relations[0]") == "derives_from"
    assert r("believes", "relations[1]") == "trusts_as_authoritative"
    assert r("vibes", "relations[2]") == "vibes"
    assert [(m.name, m.how) for m in r.mappings] == [
        ("copied_from", "synonym"),
        ("believes", "model repair"),
    ]
    assert r.unknown == ["vibes"] and "relations[2]" in r.problems[0]

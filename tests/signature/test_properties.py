"""Property-based tests (Hypothesis) of the input path: random valid signatures round-trip byte
for byte through add and show; random invalid ones are rejected with a message and leave the
store byte-identical; the parsers never raise anything but analogist's own errors.

Bounded and derandomised (same examples on every run, no deadline) so they stay fast and
deterministic on a 2-core CI machine.
"""

from __future__ import annotations

import contextlib
import functools
import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analogist.episode import parse_episode
from analogist.errors import AnalogistError
from analogist.memory import Memory
from analogist.signature import default_vocabulary, parse_signature, parse_term
from analogist.signature.limits import load_json
from analogist.signature.terms import parse_fix_operator

FAST = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
VOCAB = default_vocabulary()
LINKS = [t.term for t in VOCAB.by_kind("causal")]
PREDICATES = [t for t in VOCAB if t.merged_into is None and t.kind != "causal"]

role_name = st.from_regex(r"[A-Z][A-Z0-9_]{0,5}", fullmatch=True)
free_text = st.text(min_size=1, max_size=60).filter(lambda s: s.strip())
episode_id = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,24}", fullmatch=True)


@st.composite
def signatures(draw) -> dict:
    """A valid signature JSON object in the key order ``Signature.to_json`` writes."""
    names = draw(st.lists(role_name, min_size=1, max_size=6, unique=True))
    roles = {}
    for n in names:
        desc = draw(free_text)
        typed = draw(st.booleans())
        roles[n] = {"description": desc, "type": draw(role_name)} if typed else desc

    def term(max_arity: int = 3) -> tuple[str, list[str]]:
        pred = draw(st.sampled_from([p for p in PREDICATES if p.arity <= max_arity]))
        return pred.term, [draw(st.sampled_from(names)) for _ in range(pred.arity)]

    relations = [[p, *args] for p, args in (term() for _ in range(draw(st.integers(0, 8))))]
    chain = []
    for _ in range(draw(st.integers(0, 4))):
        (c, ca), (e, ea) = term(), term()
        spaced = draw(st.booleans())
        sep = ", " if spaced else ","
        chain.append([f"{c}({sep.join(ca)})", draw(st.sampled_from(LINKS)), f"{e}({sep.join(ea)})"])
    sig: dict = {
        "episode_id": draw(episode_id),
        "kind": draw(st.sampled_from(["failure", "success", "plan", "observation"])),
        "roles": roles,
        "relations": relations,
        "causal_chain": chain,
    }
    for key in ("violated_invariant", "symptom"):
        if draw(st.booleans()):
            sig[key] = draw(free_text)
    if draw(st.booleans()):
        op = draw(st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True))
        args = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
        qualifier = draw(st.sampled_from(["", " before assert", " on every retry"]))
        sig["fix_operator"] = f"{op}({', '.join(args)}){qualifier}"
    levels = {"L0": draw(free_text)}
    for lvl in ("L1", "L2", "L3"):
        if draw(st.booleans()):
            levels[lvl] = draw(free_text)
    sig["levels"] = levels
    sig["surface"] = {
        "domain": draw(st.text(max_size=20)),
        "entities": draw(st.lists(st.text(max_size=20), max_size=4)),
    }
    sig["verified"] = draw(st.booleans())
    if draw(st.booleans()):
        sig["writer_model"] = draw(free_text)
    return sig


def dump(memory: Memory) -> str:
    """Every row of the database as SQL text: equal dumps mean an unchanged store."""
    return "\n".join(memory.store.conn.iterdump())


@functools.cache
def shared(purpose: str) -> Memory:
    """One memory per test for all its examples (opening one is most of an example's cost)."""
    return Memory(":memory:")


@FAST
@given(sig=signatures())
def test_valid_signatures_round_trip_byte_for_byte_through_add_and_show(sig):
    memory = shared("valid")
    sig["episode_id"] = f"{sig['episode_id']}_{memory.store.count()}"
    line = json.dumps(sig)
    report = memory.add([line])
    assert report.rejected == [] and report.added == [sig["episode_id"]]
    stored = memory.store.conn.execute(
        "SELECT signature_json FROM signatures WHERE episode_id = ?", (sig["episode_id"],)
    ).fetchone()[0]
    assert stored == line
    assert json.dumps(memory.store.signature_json(sig["episode_id"])) == line


def _break(sig: dict, how: int, junk) -> dict:
    """One way to make a valid signature invalid."""
    bad = json.loads(json.dumps(sig))
    field = ["episode_id", "kind", "roles", "relations", "levels"][how % 5]
    if how < 5:
        del bad[field]
    elif how < 10:
        bad[field] = junk
    elif how == 10:
        bad["relations"].append(["no_such_relation_x", *list(bad["roles"])[:2]])
    elif how == 11:
        bad["relations"].append(["derives_from", "UNDECLARED1", "UNDECLARED2"])
    elif how == 12:
        bad["causal_chain"].append(["derives_from(", "causes", "x"])
    elif how == 13:
        bad["unknown_field_x"] = junk
    else:
        bad["levels"]["L0"] = "x" * 60_000
    return bad


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@FAST
@given(sig=signatures(), how=st.integers(0, 14), junk=json_values)
def test_invalid_signatures_are_rejected_with_a_message_and_change_nothing(sig, how, junk):
    bad = _break(sig, how, junk)
    if how in range(5, 10) and _still_valid(bad):
        return  # the junk happened to be a valid value for that field
    memory = shared("invalid")
    if not memory.store.has_episode("ep_kept"):
        memory.add([json.dumps(dict(sig, episode_id="ep_kept"))])
    before = dump(memory)
    report = memory.add([json.dumps(bad)])
    assert report.added == [] and len(report.rejected) == 1
    where, reason = report.rejected[0]
    assert where == "line 1" and reason and "\n" not in reason and len(reason) < 600
    assert dump(memory) == before


def _still_valid(raw: dict) -> bool:
    try:
        parse_signature(raw, VOCAB)
    except AnalogistError:
        return False
    return True


@FAST
@given(text=st.text(max_size=200))
def test_term_and_json_parsers_raise_only_analogist_errors(text):
    for parse in (parse_term, parse_fix_operator, load_json):
        with contextlib.suppress(AnalogistError):
            parse(text)


@FAST
@given(
    text=st.text(alphabet=string.printable, max_size=120).map(
        lambda s: "[" * (len(s) % 50) + s + "{" * (len(s) % 7)
    )
)
def test_bracket_heavy_text_raises_only_analogist_errors(text):
    with contextlib.suppress(AnalogistError):
        load_json(text)


@FAST
@given(obj=json_values)
def test_episode_and_signature_parsers_raise_only_analogist_errors(obj):
    for candidate in (
        obj,
        {"episode_id": "e", **obj} if isinstance(obj, dict) else obj,
        {"id": "e", "kind": "failure", "text": "t", "signature": obj},
    ):
        with contextlib.suppress(AnalogistError):
            parse_episode(candidate, VOCAB)
        if isinstance(candidate, dict):
            with contextlib.suppress(AnalogistError):
                parse_signature(candidate, VOCAB)

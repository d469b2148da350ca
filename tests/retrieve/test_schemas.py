"""S3: the schema library yields member episodes with provenance ``S3:<schema_id>``."""

from __future__ import annotations

import pytest

from analogist.errors import NotFoundError, SignatureError
from analogist.memory import Memory
from analogist.retrieve import SchemaChannel

PROXY_SCHEMA = {
    "schema_id": "sch_proxy",
    "roles": {"S": "source", "D": "derived copy", "C": "consumer"},
    "relations": [
        ["derives_from", "D", "S"],
        ["trusts_as_authoritative", "C", "D"],
        ["diverges_from", "D", "S"],
    ],
    "causal_chain": [["diverges_from(D,S)", "causes", "false_claim(C)"]],
    "levels": {"L3": "Proxy mistaken for referent"},
    "verified": True,
}


@pytest.fixture
def with_schema(memory):
    memory.add_schema(PROXY_SCHEMA, ["ledger", "proxy_partial"], times_verified=2)
    return memory


def test_empty_library_is_reported_not_silent(memory):
    pool = memory.search("proxy", channels="S3")
    assert "schema library is empty" in pool.skipped["S3"]


def test_matching_schema_yields_its_members_with_provenance(with_schema):
    pool = with_schema.search("proxy", channels="S3")
    hits = pool.hits["S3"]
    assert [h.episode_id for h in hits] == ["ledger", "proxy_partial"]
    assert all(h.detail["schema_id"] == "sch_proxy" and h.detail["coverage"] == 1.0 for h in hits)
    assert pool.get("ledger").found_by == ("S3:sch_proxy",)
    assert pool.get("ledger").ranks == {"S3": 1}


def test_schema_is_not_matched_by_another_shape(with_schema):
    assert with_schema.search("race", channels="S3").hits["S3"] == ()


def test_schema_with_an_excluded_member_is_skipped_whole(with_schema):
    assert with_schema.search("ledger", channels="S3").hits["S3"] == ()
    loose = Memory(with_schema.store, channels=[SchemaChannel(skip_if_member_excluded=False)])
    hits = loose.search("ledger").hits["S3"]
    # the other member first, then "proxy", which is no member but instantiates the schema
    assert [(h.episode_id, h.detail["via"]) for h in hits] == [
        ("proxy_partial", "member"),
        ("proxy", "instance"),
    ]
    members_only = Memory(
        with_schema.store,
        channels=[SchemaChannel(skip_if_member_excluded=False, min_instance=None)],
    )
    assert [h.episode_id for h in members_only.search("ledger").hits["S3"]] == ["proxy_partial"]


def test_schemas_are_searched_first_by_default(with_schema):
    assert with_schema.channel_names[0] == "S3"
    assert with_schema.search("proxy").channels[0] == "S3"


def test_verified_only(with_schema):
    raw = dict(PROXY_SCHEMA, schema_id="sch_unverified", verified=False)
    with_schema.add_schema(raw, ["race"])
    strict = Memory(with_schema.store, channels=[SchemaChannel(verified_only=True)])
    assert {h.detail["schema_id"] for h in strict.search("proxy").hits["S3"]} == {"sch_proxy"}


def test_schema_rows_round_trip_and_invalid_schemas_are_refused(with_schema):
    (row,) = with_schema.store.list_schemas()
    assert row.members == ("ledger", "proxy_partial") and row.times_verified == 2
    assert row.schema_json["relations"][0] == ["derives_from", "D", "S"]
    with pytest.raises(SignatureError, match="not in the vocabulary"):
        with_schema.add_schema(
            dict(PROXY_SCHEMA, relations=[["frobnicates", "C", "D"]]), ["ledger"]
        )
    with pytest.raises(NotFoundError, match="ep_missing"):
        with_schema.add_schema(PROXY_SCHEMA, ["ep_missing"])
    with_schema.store.delete_schema("sch_proxy")
    assert "empty" in with_schema.search("proxy", channels="S3").skipped["S3"]

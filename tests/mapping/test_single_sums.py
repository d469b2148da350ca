"""Mapping scores are sums in single precision: the fast sum equals a single-float store's."""

from __future__ import annotations

import random
import struct

from analogist.mapping.hypotheses import MH
from analogist.mapping.scoring import sum_into_single, sum_scores


def _single(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _hypotheses(scores: list[float]) -> list[MH]:
    out = []
    for i, s in enumerate(scores):
        mh = MH(i + 1, 0, 0, 1, 0)
        mh.score = s
        out.append(mh)
    return out


def _same(a: float, b: float) -> bool:
    return struct.pack("f", a) == struct.pack("f", b)


def test_fast_single_precision_sums_equal_single_float_stores() -> None:
    rng = random.Random(5)
    pools = [
        [0.0, 0.005, 0.002, 0.08, 0.085, 1.28, 1.365, 20.48, 327.68],  # SME-like scores
        [_single(rng.uniform(0, 1)) for _ in range(50)],
        [_single(2.0 ** rng.randint(-40, 40) * rng.random()) for _ in range(50)],  # wide gaps
        [_single(1.0 + k * 2.0**-23) for k in range(8)] + [2.0**-24, 2.0**-25],  # ties
    ]
    checked = 0
    for _ in range(3000):
        pool = rng.choice(pools)
        scores = [rng.choice(pool) for _ in range(rng.randint(0, 40))]
        mhs = _hypotheses(scores)
        assert _same(sum_scores(mhs), sum_into_single(0.0, mhs)), scores
        checked += 1
    assert checked == 3000


def test_negative_tiny_and_huge_scores_fall_back_to_stores() -> None:
    for scores in (
        [1.0, -0.5, 0.25],
        [-1.0, 2.0],
        [2.0**-130, 1.0],
        [2.0**120, 2.0**127],
        [3.0e38, 3.0e38],
        [0.0, 0.0],
        [],
    ):
        mhs = _hypotheses([_single(s) if abs(s) < 3.4e38 else s for s in scores])
        assert _same(sum_scores(mhs), sum_into_single(0.0, mhs)), scores

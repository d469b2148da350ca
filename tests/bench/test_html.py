"""The PARB HTML report: content, SVG plots, escaping, null values, determinism, well-formedness."""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser

import pytest

from analogist.bench.analysis.html import render_html
from analogist.bench.analysis.svg import fmt, nice_range

VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}


def iv(est, low, high, n=48, method="bca", note=""):
    return {
        "estimate": est,
        "low": low,
        "high": high,
        "n_items": n,
        "method": method,
        "note": note,
        "n_boot": 1000,
        "confidence": 0.95,
        "seed": 0,
    }


NULL_IV = iv(None, None, None, n=0, method="percentile", note="no item has this statistic")


def arm(nav, ta, dp, r5, *, fa=0.2857142857142857, hr=1.0, survival=None):
    metrics = {
        "nav": iv(*nav),
        "transfer_accuracy": iv(*ta, n=40),
        "dprime": iv(*dp, n=12),
        "recall@5[far]": iv(*r5, n=18),
        "claim_precision": iv(0.896, 0.771, 0.958),
        "no_match_specificity": iv(0.0, 0.0, 0.0, n=5, method="percentile"),
        "role_mapping_f1": iv(0.942, 0.877, 0.98),
        "partial_transfer_balanced_accuracy": iv(0.75, 0.717, 0.785, n=9),
        "negative_transfer_rate": iv(0.0, 0.0, 0.0, n=35, method="percentile"),
        "brier": iv(0.092, 0.039, 0.192),
        "verification_survival": iv(*survival) if survival else NULL_IV,
    }
    base = nav[0]
    sens = {
        f"a={a:g},b={b:g}": base + (1 - a) * 0.1 - (b - 2) * 0.01
        for a in (0.5, 1, 2)
        for b in (1, 2, 4)
    }
    return {
        "n_items": 48,
        "n_scores": 72,
        "metrics": metrics,
        "nav_sensitivity": sens,
        "cost": {
            "tokens": 0,
            "calls": 0,
            "wall_ms": 842.5,
            "per_useful": {"tokens": 0.0, "calls": 0.0, "wall_ms": 24.07},
        },
        "decoy_point": {"hit_rate": hr, "false_alarm_rate": fa, "n_signal": 5, "n_noise": 7},
    }


def comparison(name, metric, question, interval, not_run=""):
    return {
        "name": name,
        "metric": metric,
        "question": question,
        "interval": interval,
        "not_run": not_run,
    }


A1_MISSING = "arm A1 not run for answerer 'engine': A1 is the bare model"


def sample() -> dict:
    """A trimmed copy of a real engine run's results document (three arms, one answerer)."""
    return {
        "version": 1,
        "run_id": "bench_21fddbe0ec533d4e",
        "status": "done",
        "bench": {
            "bench_id": "0c31b3f1",
            "generator": "analogist PARB",
            "generator_version": "1.0.0",
            "seed": 0,
            "size": "mvp",
            "split": "dev",
            "counts": {
                "family": {"F1": 3, "F2": 9},
                "skin_kind": {"nonce": 22, "ordinary": 26},
                "split": {"dev": 48},
                "total": 48,
            },
            "audit": {"passed": True},
        },
        "config": {
            "answerers": ["engine", "model"],
            "arms": ["A0", "A1", "C", "C′", "E"],
            "concurrency": 4,
            "contamination": True,
            "encoder": "gold",
            "model": None,
            "seeds": [0],
            "settings": {"k": 5, "max_tokens": 800, "temperature": 0.0},
        },
        "skipped": {
            "A1/engine": "A1 is the bare model; no machinery answers without a model",
            "A0/engine": "A0 is the bare model; no machinery answers without a model",
            "E/model": "no model configured (--model or ANALOGIST_MODEL)",
        },
        "answerers": {
            "engine": {
                "arms": {
                    "E": arm(
                        (0.625, 0.375, 0.771),
                        (0.875, 0.75, 0.95),
                        (1.872, 1.005, 2.930),
                        (1.0, 1.0, 1.0),
                        survival=(0.792, 0.667, 0.896),
                    ),
                    "C′": arm(
                        (-0.458, -0.688, -0.205),
                        (0.875, 0.75, 0.95),
                        (-2.209, -2.917, -0.519),
                        (0.444, 0.222, 0.667),
                        fa=1.0,
                        hr=0.2,
                    ),
                    "C": arm(
                        (0.521, 0.229, 0.708),
                        (0.85, 0.7, 0.938),
                        (1.872, 1.005, 2.930),
                        (1.0, 1.0, 1.0),
                    ),
                },
                "comparisons": [
                    comparison(
                        "A1 - A0",
                        "nav",
                        "Does merely reminding the model to think analogically help?",
                        None,
                        A1_MISSING,
                    ),
                    comparison(
                        "C - C′",
                        "recall@5[far]",
                        "Is the structural content real signal or placebo?",
                        iv(0.5556, 0.3333, 0.7778, n=18),
                    ),
                ],
                "baselines": [
                    comparison(
                        "E - A1", "nav", "Does E beat the hinted bare LLM?", None, A1_MISSING
                    )
                ],
                "verdicts": [
                    {
                        "hypothesis": "H1",
                        "status": "pass",
                        "reason": "C beats C′",
                        "threshold": "C - B′ recall@5 on far items >= 0.15",
                        "interpretation": "",
                        "numbers": [
                            comparison(
                                "C - C′", "recall@5[far]", "", iv(0.5556, 0.3333, 0.7778, n=18)
                            )
                        ],
                    },
                    {
                        "hypothesis": "H3",
                        "status": "fail",
                        "reason": "E - D nav = +0.042",
                        "threshold": "E - D NAV interval above 0",
                        "interpretation": "",
                        "numbers": [],
                    },
                    {
                        "hypothesis": "H4",
                        "status": "not run",
                        "reason": A1_MISSING,
                        "threshold": "E - A1 NAV interval above 0",
                        "interpretation": "",
                        "numbers": [comparison("E - A1", "nav[private]", "", None, A1_MISSING)],
                    },
                ],
                "classification": {
                    "answerer": "engine",
                    "status": "undetermined",
                    "result": None,
                    "rule": "could be A or E or F: beats_a1 unknown",
                    "title": "",
                    "interpretation": "",
                    "action": "",
                    "candidates": ["A", "E", "F"],
                    "facts": [
                        {"name": "beats_a1", "value": None, "evidence": A1_MISSING},
                        {"name": "retrieval", "value": True, "evidence": "C - B recall"},
                    ],
                },
                "contamination": {
                    "source_dependence": {
                        "accuracy": {"correct_source": 1.0, "no_source": 0.0, "wrong_source": 0.0},
                        "n_items": 6,
                        "delta_correct_minus_none": 1.0,
                        "delta_correct_minus_wrong": 1.0,
                    },
                    "lesion": {"n": 6, "conclusion_changed": 3, "share_changed": 0.5},
                },
            }
        },
    }


class Balance(HTMLParser):
    """Checks every non-void start tag is closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.seen: dict[str, int] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> Balance:
    p = Balance()
    p.feed(page)
    p.close()
    assert p.errors == []
    assert p.stack == []
    return p


def test_renders_the_sample_document():
    page = render_html(sample())
    p = parse(page)
    assert page.startswith("<!DOCTYPE html>")
    for tag in ("html", "head", "body", "main", "style", "table", "section"):
        assert p.seen.get(tag, 0) >= 1, tag
    text = "".join(p.text)
    assert "bench_21fddbe0ec533d4e" in text
    assert "analogist PARB 1.0.0" in text
    assert "targets encoded by: gold (the generator's own signatures)" in page
    for reason in sample()["skipped"].values():
        assert reason in text
    assert "0.625" in text and "[0.375, 0.771]" in text  # E's NAV and its interval
    assert "+0.556" in text and "[+0.333, +0.778]" in text  # a comparison
    assert "Does merely reminding the model" in text and A1_MISSING in text
    assert "A — structural retrieval wins" in text  # undetermined: candidates
    assert "correct_source" in text and "0.500" in text  # contamination
    assert "<script" not in page.lower() and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )


def test_arms_follow_spec_order():
    page = render_html(sample())
    table = page[page.index("Metrics by arm") : page.index("Headline metrics")]
    assert re.findall(r"<tr><th>([^<]*)</th><td", table) == ["C", "C′", "E"]


def test_an_svg_for_each_headline_plot():
    page = render_html(sample())
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.DOTALL)
    titles = [re.search(r"<title>(.*?)</title>", s).group(1) for s in svgs]
    for want in (
        "Net Analogical Value",
        "Transfer accuracy",
        "Decoy discrimination d′",
        "Recall@5 on far items",
        "NAV over penalty weights (α, β)",
        "Decoy discrimination (ROC)",
    ):
        assert want in titles
    nav = svgs[titles.index("Net Analogical Value")]
    assert nav.count("<circle") == 3  # one dot per arm
    assert 'stroke-dasharray="4 3"' in nav  # the zero line
    assert "0.625 [0.375, 0.771]" in nav  # printed values
    roc = svgs[titles.index("Decoy discrimination (ROC)")]
    assert "chance" in roc and ">C, E<" in roc and ">C′<" in roc  # shared point, one label
    heat = svgs[titles.index("NAV over penalty weights (α, β)")]
    assert heat.count("arm ") == 3 and heat.count('stroke-width="2"') == 3


def test_escapes_malicious_text():
    doc = sample()
    doc["skipped"]["E+Bld/engine"] = "<script>alert('x')</script>"
    doc["run_id"] = 'run"><img src=x onerror=alert(1)>'
    doc["answerers"]["engine"]["arms"]["<b>X</b>"] = doc["answerers"]["engine"]["arms"]["C"]
    doc["answerers"]["engine"]["comparisons"][0]["not_run"] = "<script>bad()</script>"
    page = render_html(doc)
    assert "<script" not in page and "<img" not in page and "<b>X" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    parse(page)


def test_handles_nulls_everywhere():
    doc = sample()
    eng = doc["answerers"]["engine"]
    e = eng["arms"]["E"]
    e["metrics"]["nav"] = NULL_IV
    e["metrics"]["dprime"] = None
    e["nav_sensitivity"]["a=1,b=2"] = None
    e["decoy_point"] = {"hit_rate": None, "false_alarm_rate": None}
    e["n_items"] = None
    e["cost"] = None
    eng["classification"] = {}
    eng["contamination"] = {
        "source_dependence": {
            "accuracy": {},
            "n_items": 0,
            "delta_correct_minus_none": None,
            "delta_correct_minus_wrong": None,
        },
        "lesion": {"n": 0, "conclusion_changed": 0, "share_changed": None},
    }
    doc["bench"] = {}
    doc["config"]["encoder"] = None
    page = render_html(doc)
    text = "".join(parse(page).text)
    assert "–" in text and "None" not in text and "nan" not in text.lower()
    assert "No point (undefined) for: E" in text
    assert "– (undefined)" in page  # E's NAV row in the plot


def test_empty_answerers_and_missing_pieces():
    doc = sample()
    doc["answerers"] = {}
    page = render_html(doc)
    assert "No answerer has scores" in page and "<svg" not in page
    parse(page)
    eng = sample()["answerers"]["engine"]
    eng["arms"], eng["comparisons"], eng["verdicts"] = {}, [], []
    del eng["baselines"], eng["contamination"]
    eng["classification"] = None
    page = render_html({"answerers": {"engine": eng}})
    text = "".join(parse(page).text)
    assert "Answerer: engine" in text and "<svg" not in page  # no arms, no plots
    assert text.count("none") >= 4  # empty tables say so
    assert "No classification." in text
    assert "targets encoded by: –" in text
    parse(render_html({}))
    parse(render_html({"answerers": {"engine": None}, "skipped": None, "bench": None}))


def test_deterministic():
    a = render_html(sample())
    b = render_html(json.loads(json.dumps(sample())))
    assert a == b
    reordered = sample()
    eng = reordered["answerers"]["engine"]
    eng["arms"] = dict(reversed(list(eng["arms"].items())))
    reordered["skipped"] = dict(reversed(list(reordered["skipped"].items())))
    assert render_html(reordered) == a
    assert render_html(copy.deepcopy(sample())) == a


@pytest.mark.parametrize(
    ("v", "want"),
    [
        (None, "–"),
        (float("nan"), "–"),
        (-0.0001, "0.000"),
        (0.5, "0.500"),
        (True, "yes"),
    ],
)
def test_fmt(v, want):
    assert fmt(v) == want


def test_fmt_signed_and_nice_range():
    assert fmt(0.0416, signed=True) == "+0.042" and fmt(-0.0222, signed=True) == "-0.022"
    assert nice_range([0.2, 0.9]) == (0.0, 1.0, 0.2)
    lo, hi, step = nice_range([-0.458, 0.771])
    assert lo <= -0.458 and hi >= 0.771 and step == pytest.approx(0.5)


def test_the_page_opens_with_the_conclusion_and_defines_every_arm():
    from analogist.bench.analysis.conclusion import conclusion

    doc = sample()
    page = render_html(doc)
    assert (
        page.index("<h2>Conclusion</h2>")
        < page.index("<h2>Arms</h2>")
        < page.index("<h2>Bench</h2>")
    )
    text = "".join(parse(page).text)
    assert conclusion(doc) in text
    assert "past cases found by their cause-and-effect shape" in text  # C, defined in one line
    assert "§" not in page and "Piper" not in page


def test_conclusion_sorts_findings_by_their_interval():
    from analogist.bench.analysis.conclusion import conclusion

    doc = sample()
    doc["answerers"]["engine"]["comparisons"] = [
        comparison("D - C", "transfer_accuracy", "q", iv(0.2, 0.05, 0.4)),
        comparison("E - D", "negative_transfer_rate", "q", iv(0.1, 0.02, 0.2)),
        comparison("E - D", "nav", "q", iv(0.0, -0.2, 0.2)),
        comparison("C - B′", "nav", "q", None, not_run="arm B′ not run"),
    ]
    doc["answerers"]["engine"]["verdicts"] = [
        {"hypothesis": "H2", "status": "insufficient data", "reason": "4 items < 197 needed"}
    ]
    text = conclusion(doc)
    helped, rest = text.split("What hurt:")
    assert "D − C +0.20 [+0.05, +0.40]" in helped  # higher transfer accuracy helps
    hurt, unclear = rest.split("Not shown either way")
    assert "negative transfer" in hurt  # more negative transfer hurts
    assert "E − D +0.00 [-0.20, +0.20]" in unclear
    assert "H2 (4 of 197 items needed)" in text
    assert "Not run: " in text and "How sure" in text


def test_plain_drops_citations_a_reader_cannot_follow():
    from analogist.bench.analysis.conclusion import plain

    assert (
        plain("Does Piper memory help at all? (spec §21)") == "Does the current memory help at all?"
    )
    assert plain("the §22 threshold") == "the threshold"

"""The four leaderboard files: contents, self-containedness, determinism."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash

from harness import __version__
from harness.leaderboard.collect import build
from harness.leaderboard.pareto import RANKING_RULE
from harness.leaderboard.render import FILES, write_all
from harness.submissions import Registry


@pytest.fixture
def board(env):
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta", "gamma")}
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3, "cisi": 0.2, "medline": 0.5}, submission_hash=h["alpha"]))
    save(results, retrieval_results("beta", "classic-ir", {"cranfield": 0.4, "cisi": 0.3, "medline": 0.5}, submission_hash=h["beta"]))
    save(results, retrieval_results("gamma", "classic-ir", {"cranfield": 0.1}, skipped={"cisi": "folder beir/cisi not found"}, submission_hash=h["gamma"]))
    save(results, nearmiss_results("alpha", "nearmiss", 0.8, submission_hash=h["alpha"]))
    save(results, nearmiss_results("beta", "nearmiss", 0.6, submission_hash=h["beta"]))
    save(results, nearmiss_results("gamma", "nearmiss", 0.9, submission_hash=h["gamma"]))
    save(results, nearmiss_results("alpha", "sugarcrepe-pp", 0.7, categories=["swap_att"], submission_hash=h["alpha"]))
    save(results, nearmiss_results("x<b>&'\"", "nearmiss", 0.1, kind="lexical"))  # unregistered, hostile name
    return build(results, Registry([subs]).all())


def test_writes_four_files(board, tmp_path):
    paths = write_all(board, tmp_path / "out")
    assert [p.name for p in paths] == list(FILES) and all(p.parent == tmp_path / "out" for p in paths)
    md, csv_text, html, svg = (p.read_text() for p in paths)
    names = ["alpha", "beta", "gamma", "x<b>&'\""]
    assert md.startswith("# cbench leaderboard\n") and "![retrieval versus composition](tradeoff.svg)" in md
    assert all(f"| {n} |" in md for n in names[:3])
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert csv_text.startswith("rank,submission,kind,") and sorted(r["submission"] for r in rows) == sorted(names)
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")  # whole, not cut short
    assert "<title>cbench leaderboard</title>" in html and all(f">{n}<" in html for n in names[:3])
    assert ET.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg"  # complete XML


def test_markdown(board, tmp_path):
    md = (write_all(board, tmp_path / "out")[0]).read_text()
    assert "The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none)." in md
    assert f"Generated from 8 results files by cbench {__version__}." in md
    assert RANKING_RULE in md
    assert md.index("## Which model for what") < md.index("## Leaderboard") < md.index("## Composition per category and extra suites")
    assert "± = half the width of the score's 95% bootstrap interval" in md
    # the compact table: rank, name, kind, parameters, both axes, the ≈ marks, the layer
    header = next(line for line in md.splitlines() if line.startswith("| rank"))
    assert header == (
        "| rank | submission | kind | parameters | retrieval: classic-ir ndcg@10 | composition: nearmiss triplet_accuracy | ≈ better-placed | layer |"
    )
    rows = [line for line in md.splitlines() if re.match(r"\| \d+ \| ", line)]
    first = rows[0]
    assert first.startswith("| 1 | alpha | encoder | 1.0k | 0.3333 | 0.8000 |") and first.endswith("| 1 |")
    # the composition detail: categories, false accepts, the second column
    detail = md.split("## Composition per category and extra suites")[1].split("\n## ")[0]
    dhead = next(line for line in detail.splitlines() if line.startswith("| rank"))
    for col in ("negation", "temporal_order", "false_accept@95", "SugarCrepe++ tot_accuracy"):
        assert col in dhead
    assert "| 1 | alpha | " in detail and "| 4 | x&lt;b&gt;&amp;'\" [" in detail
    assert "| *0.0700* |" in detail  # below nearmiss's chance level (0.5): in italics
    # the commands in their own list
    repro = md.split("## Reproduce")[1].split("\n## ")[0]
    folders = f"--submissions-dir {tmp_path / 'subs'} --results-dir {tmp_path / 'results'}"  # the env fixture's: not the defaults
    assert f"- alpha: `cbench run --model alpha --suite classic-ir --suite nearmiss --suite sugarcrepe-pp {folders}`" in repro
    gamma = next(r for r in rows if "| gamma |" in r)
    m = re.search(r"\| — \[(\d+)\] \|", gamma)
    assert m, gamma
    assert f"[{m.group(1)}] data unavailable: cisi: folder beir/cisi not found" in md
    assert "## Retrieval per dataset" in md and "| cranfield | cisi | medline |" in md
    assert "| x&lt;b&gt;&amp;'\" [" in md  # no raw HTML from names outside code spans
    assert "x<b>" not in re.sub(r"`[^`]*`", "", md)


def test_csv(board, tmp_path):
    text = (write_all(board, tmp_path / "out")[1]).read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["submission"] for r in rows][:1] == ["alpha"]
    a = {r["submission"]: r for r in rows}
    assert a["alpha"]["classic-ir:ndcg@10"] == "0.333333" and a["alpha"]["pareto"] == "yes" and a["alpha"]["rank"] == "1"
    assert a["alpha"]["classic-ir/medline:ndcg@10"] == "0.500000"
    assert a["alpha"]["nearmiss:false_accept@95"] == "0.200000"
    assert a["gamma"]["classic-ir:ndcg@10"] == "" and "data unavailable: cisi" in a["gamma"]["notes"]
    assert a["beta"]["sugarcrepe-pp:tot_accuracy"] == "" and "sugarcrepe-pp:tot_accuracy: not run" in a["beta"]["notes"]
    assert "The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none)." in a["alpha"]["axes"]
    assert a["alpha"]["parameters"] == "1000" and a["alpha"]["reproduce"].startswith("cbench run --model alpha")


EXTERNAL = [
    r"""\b(?:src|href|xlink:href|action|poster|data|srcset)\s*=\s*["']?\s*(?:https?:)?//""",
    r"""url\(\s*["']?\s*(?:https?:)?//""",
    r"""@import""",
    r"""<link\b""",
    r"""<iframe\b|<object\b|<embed\b|<img\b""",
]


def test_html_is_self_contained(board, tmp_path):
    html = (write_all(board, tmp_path / "out")[2]).read_text()
    for pattern in EXTERNAL:
        assert not re.search(pattern, html, re.I), pattern
    # the only http(s) strings left are XML namespace names in the inline SVG (never fetched)
    for m in re.finditer(r"https?://", html):
        before = html[max(0, m.start() - 20) : m.start()]
        assert re.search(r"xmlns(:\w+)?=\"$", before), html[m.start() - 40 : m.start() + 40]
    assert "<svg" in html and "<style>" in html and "<script>" in html
    assert '<select id="kind-filter">' in html and '<option value="lexical">lexical</option>' in html
    assert 'id="leaderboard"' in html and 'id="composition"' in html and 'id="retrieval-datasets"' in html
    assert '<details class="more" id="composition-detail">' in html  # the detail opens without JavaScript
    assert html.count('<svg ') == 2 and 'class="plot-wide"' in html and 'class="plot-narrow"' in html
    assert "@media (max-width: 720px)" in html
    assert 'title="data unavailable: cisi: folder beir/cisi not found"' in html
    assert 'title="not run"' in html
    assert "x&lt;b&gt;&amp;&#39;&#34;" in html and "x<b>" not in html  # escaped
    note = "The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none)."
    assert html.count(note) == 1  # said once, as plain text: not in the page's plots
    assert f'<p id="axes">Retrieval axis: classic-ir ndcg@10. Composition axis: nearmiss triplet_accuracy. {note}</p>' in html
    assert RANKING_RULE in html and f"cbench {__version__}" in html


def test_svg(board, tmp_path):
    svg = (write_all(board, tmp_path / "out")[3]).read_text()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = "".join(root.itertext())
    for word in ("alpha", "beta", "encoder", "Pareto front", "classic-ir ndcg@10", "nearmiss triplet_accuracy", "offline-ir results: none"):
        assert word in texts, word
    assert "<dc:date>" not in svg


def test_regeneration_is_byte_identical(board, tmp_path):
    first = [p.read_bytes() for p in write_all(board, tmp_path / "one")]
    second = [p.read_bytes() for p in write_all(board, tmp_path / "two")]
    assert first == second


def test_empty_results(env, tmp_path):
    subs, results = env
    lb = build(results, Registry([subs]).all())
    paths = write_all(lb, tmp_path / "out")
    assert "No results yet." in paths[0].read_text()
    assert "<svg" in paths[2].read_text()
    assert "Generated from 0 results files" in paths[2].read_text()


def test_controls_are_listed_apart_and_drawn_as_the_chance_band(env, tmp_path):
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta")}
    for name, ndcg, acc in (("alpha", 0.3, 0.8), ("beta", 0.4, 0.6)):
        save(results, retrieval_results(name, "classic-ir", {"medline": ndcg}, submission_hash=h[name]))
        save(results, nearmiss_results(name, "nearmiss", acc, submission_hash=h[name]))
    # two controls (kind control, no retrieval), one scoring above a real model
    save(results, nearmiss_results("ctl-low", "nearmiss", 0.45, kind="control"))
    save(results, nearmiss_results("ctl-high", "nearmiss", 0.62, kind="control"))
    lb = build(results, Registry([subs]).all())
    assert [r.submission for r in lb.rows] == ["alpha", "beta"]  # controls never ranked
    assert [r.submission for r in lb.controls] == ["ctl-high", "ctl-low"]
    assert lb.chance_band == pytest.approx((0.45, 0.62))
    md, csv_text, html, svg = (p.read_text() for p in write_all(lb, tmp_path / "out"))
    assert "Chance band: the 2 controls" in md and "score 0.4500–0.6200 on nearmiss" in md
    section = md.split("## Controls (not ranked; they span the chance band)")[1].split("## ")[0]
    assert re.search(r"\| ctl-high( \[\d+\])? \| control \| 0\.6200 \|", section) and "ctl-low" in section and "alpha" not in section
    assert f"- ctl-high: `cbench run --model ctl-high --suite nearmiss --results-dir {results}`" in md  # no retrieval suite for a control
    assert "| 1 | alpha |" in md and "| ctl-high |" not in md.split("## Controls")[0]
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    assert rows["ctl-low"]["group"] == "control" and rows["ctl-low"]["rank"] == "" and rows["ctl-low"]["pareto"] == ""
    assert rows["alpha"]["group"] == "ranked" and rows["alpha"]["rank"] == "1"
    assert 'id="controls"' in html and 'id="chance-band"' in html
    # the band per column: a table in the markdown, a header row in the page; scores inside it greyed
    assert "| nearmiss (composition axis) | 0.5000 | 0.4500–0.6200 (2) | 0.6200 | ctl-high (0.6200) | 1 of 2 |" in md
    assert re.search(r"\| 2 \| beta \| .*\| \*0\.6000\* \|", md)  # inside the band: italics
    assert re.search(
        r'<tr data-kind="encoder" data-name="beta"[^>]*>(?:(?!</tr>).)*'
        r'title="inside the chance band: controls 0\.4500–0\.6200 \(2\), chance 0\.5000" class="num noted chance-inside"',
        html,
        re.S,
    )
    assert re.search(r'<tr class="bandrow">(?:(?!</tr>).)*controls 0\.4500–0\.6200 \(2\), chance 0\.5000', html, re.S)
    assert "controls 0.45–0.62 (chance)" in "".join(ET.fromstring(svg).itertext())


def test_axis_scores_carry_their_95_intervals(env, tmp_path):
    subs, results = env
    h = submission_hash(subs, "alpha")
    ret = retrieval_results("alpha", "classic-ir", {"medline": 0.5}, submission_hash=h)
    comp = nearmiss_results("alpha", "nearmiss", 0.8, submission_hash=h)
    save(results, ret.model_copy(update={"main_score_ci95": (0.45, 0.56)}))
    save(results, comp.model_copy(update={"main_score_ci95": (0.78, 0.82)}))
    save(results, retrieval_results("beta", "classic-ir", {"medline": 0.4}, submission_hash=submission_hash(subs, "beta")))
    lb = build(results, Registry([subs]).all())
    md, csv_text, _html, svg = (p.read_text() for p in write_all(lb, tmp_path / "out"))
    alpha = next(line for line in md.splitlines() if line.startswith("| 1 | alpha"))
    assert "| 0.5000 ±0.055 | 0.8000 ±0.020 |" in alpha
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    assert (rows["alpha"]["retrieval_ci95_low"], rows["alpha"]["retrieval_ci95_high"]) == ("0.450000", "0.560000")
    assert (rows["alpha"]["composition_ci95_low"], rows["alpha"]["composition_ci95_high"]) == ("0.780000", "0.820000")
    assert rows["beta"]["retrieval_ci95_low"] == ""  # no interval recorded: empty, never invented
    assert rows["alpha"]["classic-ir:ndcg@10"] == "0.500000"  # the raw score stays a number
    assert svg.count("<g id=\"LineCollection") >= 2  # error bars drawn (x and y)


def legend(svg: str) -> list[str]:
    """The plot legend's entries (and title), as the SVG's text."""
    root = ET.fromstring(svg)
    (box,) = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("id", "").startswith("legend_")]
    return [t.strip() for t in box.itertext() if t.strip()]


def test_the_legend_lists_only_what_is_drawn(env, tmp_path):
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta")}
    save(results, retrieval_results("alpha", "classic-ir", {"medline": 0.5}, submission_hash=h["alpha"]))
    save(results, nearmiss_results("alpha", "nearmiss", 0.8, submission_hash=h["alpha"]))
    one = legend(write_all(build(results, Registry([subs]).all()), tmp_path / "one")[3].read_text())
    # one point: no front line (a step through one point draws nothing), no error bars (no intervals), no controls
    assert one == ["kind · marks", "encoder", "random ranking 0.50"]
    # a zero-width interval draws no bar either
    ret = retrieval_results("alpha", "classic-ir", {"medline": 0.5}, submission_hash=h["alpha"])
    save(results, ret.model_copy(update={"main_score_ci95": (0.5, 0.5)}))
    assert "error bars: 95% interval" not in legend(write_all(build(results, Registry([subs]).all()), tmp_path / "flat")[3].read_text())
    # two points on the front, intervals, a control: each drawn, each listed
    save(results, ret.model_copy(update={"main_score_ci95": (0.45, 0.55)}))
    save(results, retrieval_results("beta", "classic-ir", {"medline": 0.6}, submission_hash=h["beta"]))
    save(results, nearmiss_results("beta", "nearmiss", 0.7, submission_hash=h["beta"]))
    save(results, nearmiss_results("ctl", "nearmiss", 0.5, kind="control"))
    full = legend(write_all(build(results, Registry([subs]).all()), tmp_path / "two")[3].read_text())
    assert full == ["kind · marks", "encoder", "error bars: 95% interval", "Pareto front (labelled)", "controls 0.50–0.50 (chance)", "random ranking 0.50"]


def test_a_fusion_curve_is_listed_with_its_star_only_when_one_is_drawn(env, tmp_path):
    from harness.fusion.curves import CurvePoint, FusionCurves
    from harness.leaderboard.plot import tradeoff_svg

    subs, results = env
    for name, (ret, comp) in {"alpha": (0.5, 0.8), "beta": (0.6, 0.7)}.items():
        save(results, retrieval_results(name, "classic-ir", {"medline": ret}, submission_hash=submission_hash(subs, name)))
        save(results, nearmiss_results(name, "nearmiss", comp, submission_hash=submission_hash(subs, name)))
    lb = build(results, Registry([subs]).all())

    def curve(weight: float, points: list[tuple[float | None, float, float]]) -> FusionCurves:
        return FusionCurves(
            submission="beta", submission_hash="0" * 16, first_stage="alpha", verifier="v", weight=weight, retrieval_suite="classic-ir",
            suites=["nearmiss"], points=[CurvePoint(weight=w, retrieval=x, composition={"nearmiss": y}) for w, x, y in points],
            sources={}, cbench_version="0", git_commit=None, date="2026-01-01", command="cbench fusion-curves",
        )  # fmt: skip

    entries = {
        "a curve, its weight on it": (0.5, [(0.0, 0.5, 0.8), (0.5, 0.55, 0.75), (None, 0.3, 0.9)]),
        "a curve, its weight off the grid": (0.7, [(0.0, 0.5, 0.8), (0.5, 0.55, 0.75), (None, 0.3, 0.9)]),
        "one distinct point": (0.5, [(0.0, 0.5, 0.8), (0.5, 0.5, 0.8)]),
    }
    got = {}
    for what, (weight, points) in entries.items():
        lb.curves = {"beta": curve(weight, points)}
        got[what] = [t for t in legend(tradeoff_svg(lb)) if t.startswith(("fusion", "★"))]
    assert got == {
        "a curve, its weight on it": ["fusion curve, w = 0 → verifier alone (test);", "★ = w chosen on dev"],
        "a curve, its weight off the grid": ["fusion curve, w = 0 → verifier alone (test)"],
        "one distinct point": [],
    }

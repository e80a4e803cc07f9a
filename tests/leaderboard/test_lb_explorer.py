"""The explorer's data (heatmaps, failure browser, reranking per query) from the tiny board of
explorer_fixture.py, and the files beside index.html it is loaded from."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from explorer_fixture import ITEMS, TRIPLETS, revisions, scores, with_revisions, write_board
from lb_helpers import five_text_items, nearmiss_results, save, save_scored

from harness.leaderboard.chance import Band
from harness.leaderboard.collect import build
from harness.leaderboard.explorer import (
    SCALE,
    BrowserData,
    browser_data,
    changed_spans,
    comparison_legend,
    read_explore_file,
    submission_payload,
    suite_payload,
)
from harness.leaderboard.heatmap import ABOVE_RAMP, BELOW_RAMP, NEUTRAL, RAMP, centred_colour, colour, heatmaps
from harness.leaderboard.render import write_all
from harness.leaderboard.reranks import reranks
from harness.submissions import Registry

FIVE = ["close_close", "close_far", "far_close", "far_far"]


@pytest.fixture
def board(env, tmp_path, monkeypatch):
    subs, results = env
    write_board(tmp_path, monkeypatch, results)
    return build(results, Registry([subs]).all())


def wrong(data: BrowserData, suite: str, name: str) -> list[tuple[str, str]]:
    """(item, comparison) a submission got wrong, decoded from the embedded data."""
    s = next(x for x in data.suites if x.suite == suite)
    right = s.submissions[name].right
    return [(item[1], c[0]) for i, item in enumerate(s.items) for k, c in enumerate(s.comparisons) if right[i] >= 0 and not right[i] >> k & 1]


def test_browser_data(board):
    data = browser_data(board)
    assert data.submissions == ["gamma", "alpha", "beta"]  # ranked, page order; no control
    assert [s.suite for s in data.suites] == ["nearmiss", "toy-triplets"]
    assert data.notes == ["External: not in the browser: its data is not in the repository, so this page has no texts for it (per-item scores: cbench compare)"]
    nm = data.suites[0]
    assert nm.datasets == ["role_swap", "negation"]  # the suite's category order
    assert [i[1] for i in nm.items] == ["role-1", "role-2", "role-3", "neg-1", "neg-2", "neg-3"]
    assert nm.fields == ["anchor", "pos_close", "pos_far", "neg_close", "neg_far"]
    assert nm.items[4] == (1, "neg-2", list(ITEMS["neg-2"][1:]))
    assert [c[0] for c in nm.comparisons] == FIVE
    assert sorted(nm.submissions) == ["alpha", "beta", "gamma"]
    assert wrong(data, "nearmiss", "alpha") == [("role-2", c) for c in FIVE] + [("neg-1", "close_close")]
    assert wrong(data, "nearmiss", "beta") == [("role-2", c) for c in FIVE] + [("neg-2", "far_far")]
    assert wrong(data, "nearmiss", "gamma") == []
    # alpha's four scores of neg-1, by slot: s(anchor, pos_close) 0.5, s(anchor, neg_close) 0.6, ...
    slots = {slot: k for k, slot in enumerate(nm.slots)}
    got = nm.submissions["alpha"].scores[3 * len(nm.slots) : 4 * len(nm.slots)]
    assert [got[slots[("anchor", f)]] / SCALE for f in ("pos_close", "pos_far", "neg_close", "neg_far")] == [0.5, 0.8, 0.6, 0.2]
    trip = data.suites[1]
    assert trip.label == "Toy triplets" and trip.fields == ["anchor", "positive", "negative"]
    assert [i[2] for i in trip.items] == [list(v[1:]) for v in TRIPLETS.values()]
    assert wrong(data, "toy-triplets", "alpha") == [("tr-2", "anchor_negative")] and wrong(data, "toy-triplets", "beta") == []


def test_submissions_scored_on_other_data_are_left_out(board, env):
    _subs, results = env
    r = nearmiss_results("beta", "nearmiss", 0.0, categories=["negation", "role_swap"])  # revisions: not the file's
    save(results, r)  # its per-item scores file no longer matches either
    lb = build(results, Registry([env[0]]).all())
    data = browser_data(lb)
    assert sorted(data.suites[0].submissions) == ["alpha", "gamma"]
    assert any(n.startswith("nearmiss: beta is not in the browser: ") for n in data.notes), data.notes


def test_items_no_submission_scored_are_not_embedded(board, env):
    _subs, results = env
    for name in ("alpha", "beta", "gamma"):  # role_swap only: negation's texts stay out of the page
        ids = ["role-1", "role-2", "role-3"]
        r = with_revisions(nearmiss_results(name, "nearmiss", 0.0, categories=["role_swap"]), revisions("nearmiss"))
        save_scored(results, r, five_text_items("role_swap", ids, [scores(name, i) for i in ids]))
    nm = browser_data(build(results, Registry([env[0]]).all())).suites[0]
    assert nm.datasets == ["role_swap"] and [i[1] for i in nm.items] == ["role-1", "role-2", "role-3"]


def test_heatmaps(board):
    maps = {h.suite: h for h in heatmaps(board)}
    assert list(maps) == ["nearmiss", "toy-external", "toy-triplets", "classic-ir"]
    nm = maps["nearmiss"]
    assert nm.columns == ["role_swap", "negation"] and nm.metric == "triplet_accuracy"
    assert [(r.submission, r.control) for r in nm.rows] == [("gamma", False), ("alpha", False), ("beta", False), ("ctl", True)]
    # centred on each column's band: the control scores 1 on role_swap and 0 on negation
    assert nm.centred and nm.bands == ["controls 1.0000 (1)", "controls 0.0000 (1)"]
    ctl = nm.rows[3].cells
    assert (ctl[0].colour, ctl[1].colour) == (NEUTRAL, NEUTRAL)  # the control is its own band
    gamma, alpha = nm.rows[0].cells, nm.rows[1].cells
    assert gamma[0].colour == NEUTRAL  # 1.0 on role_swap: no better than the control
    assert alpha[0].text == "0.667" and alpha[0].colour == colour((1 - 2 / 3) / 0.5, BELOW_RAMP)[0]  # below the band: orange
    assert gamma[1].colour == ABOVE_RAMP[-1]  # 1.0 on negation, where the control scores 0: darkest blue
    assert "below the band: controls 1.0000 (1)" in alpha[0].title
    cir = maps["classic-ir"]  # no controls, no chance level: sequential, lowest to highest
    assert not cir.centred and [r.submission for r in cir.rows] == ["gamma", "alpha", "beta"]
    assert maps["toy-external"].rows[-1].cells[0].text == "0.500"  # a control without per-item scores is still a row
    assert colour(0.0) == (RAMP[0], False) and colour(1.0) == (RAMP[-1], True)


def test_heatmap_colours_centre_on_chance():
    at_chance = Band("x", 0.5, (0.45, 0.55), 3)
    assert centred_colour(0.5, at_chance) == (NEUTRAL, False) and centred_colour(0.55, at_chance) == (NEUTRAL, False)
    assert centred_colour(1.05, at_chance)[0] == ABOVE_RAMP[-1] and centred_colour(0.0, at_chance)[0] == colour(0.9, BELOW_RAMP)[0]
    assert centred_colour(0.80, at_chance)[0] == colour(0.5, ABOVE_RAMP)[0]  # 0.25 above the band: halfway to the darkest
    assert centred_colour(0.56, at_chance)[0] == colour(0.02, ABOVE_RAMP)[0]  # just above: pale
    below_chance = Band("NevIR", 0.25, (0.0, 0.0), 2)  # query-blind controls score 0: the band reaches up to chance
    assert below_chance.reference == (0.0, 0.25) and centred_colour(0.2, below_chance) == (NEUTRAL, False)


def test_reranks(board):
    (rr,) = reranks(board)
    assert (rr.reranker, rr.first_stage, rr.suite) == ("gamma", "alpha", "classic-ir")
    assert (rr.queries, rr.helped, rr.hurt) == (6, 3, 1)
    assert rr.mean_delta == pytest.approx((0.2 + 0 - 0.8 + 0.1 + 0 + 0.3) / 6)
    assert [(q.dataset, q.query, round(q.delta, 6)) for q in rr.top_helped] == [("medline", "q1", 0.3), ("cranfield", "q0", 0.2), ("cranfield", "q3", 0.1)]
    assert [(q.dataset, q.query, round(q.delta, 6)) for q in rr.top_hurt] == [("cranfield", "q2", -0.8)]


def test_a_reranker_whose_first_stage_has_no_per_query_scores(board, env):
    _subs, results = env
    (results / "alpha" / "classic-ir.items.jsonl.gz").unlink()
    (rr,) = reranks(build(results, Registry([env[0]]).all()))
    assert rr.queries == 0 and rr.note.startswith("alpha: no per-item scores")


def explore_index(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="explore-index">(.*?)</script>', html, re.S).group(1))


def test_page_lists_the_explorer_files(board, tmp_path):
    out = tmp_path / "out"
    paths = write_all(board, out)
    html = paths[2].read_text()
    assert 'id="heatmap-nearmiss"' in html and 'id="heatmap-classic-ir"' in html
    assert re.search(r'<tr class="control first-control" data-name="ctl"><th scope="row">ctl <span class="tag">control</span>', html)
    assert '<select id="fb-sub">' in html and '<option value="gamma">gamma</option>' in html
    assert '<div class="controls picker" id="fb-picker" hidden>' in html  # shown by the script
    assert "<noscript>" in html and "cbench compare" in html.split("<noscript>")[1]
    assert "External: not in the browser" in html
    assert "<dt>close_far</dt><dd>s(anchor, pos_close) vs s(anchor, neg_far): right when the first score is higher</dd>" in html
    assert "<dt>neg_far</dt><dd>the same wrong meaning as neg_close, restructured like pos_far</dd>" in html
    assert "gamma reranks alpha on classic-ir: 6 queries; better on 3, worse on 1, unchanged on 2" in html  # the counts stay in the page
    # the texts, scores and query tables are not in the page: in one file per suite and per submission
    assert "The door is open." not in html and "Mia" not in html and "q2" not in html
    files = {p.relative_to(out).as_posix(): p for p in paths[4:]}
    assert sorted(files) == ["explore/alpha.js", "explore/beta.js", "explore/gamma.js", "explore/items/nearmiss.js", "explore/items/toy-triplets.js"]
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.js")) == sorted(files)
    index = explore_index(html)
    assert index["scale"] == SCALE
    assert index["suites"]["nearmiss"]["datasets"] == ["role_swap", "negation"] and index["suites"]["toy-triplets"]["label"] == "Toy triplets"
    assert list(index["submissions"]) == ["gamma", "alpha", "beta"]  # page order
    data = browser_data(board)
    got = {}
    for rel, path in files.items():
        text = path.read_text()
        assert text.count("\n") == 2 and "cbenchExplore(" in text  # a comment line, one call
        kind, name, fid, payload = read_explore_file(text)
        entry = index["suites" if kind == "items" else "submissions"][name]
        assert (entry["path"], entry["id"]) == (rel, fid)
        got[(kind, name)] = payload
    assert got[("items", "nearmiss")] == json.loads(json.dumps(suite_payload(data.suites[0])))
    assert got[("items", "nearmiss")]["items"][2][2][0] == "Mia <b>called</b> Tom & left."  # role-3's anchor, intact
    (rr,) = reranks(board)
    for name in ("alpha", "beta", "gamma"):
        assert got[("submission", name)] == json.loads(json.dumps(submission_payload(name, data, [rr])))
        assert got[("submission", name)]["suites"]["nearmiss"] == data.suites[0].submissions[name].model_dump()
    gamma = got[("submission", "gamma")]["reranks"]
    assert [(r["suite"], r["first_stage"]) for r in gamma] == [("classic-ir", "alpha")]
    assert [q[:2] for q in gamma[0]["helped"]] == [["medline", "q1"], ["cranfield", "q0"], ["cranfield", "q3"]]
    assert gamma[0]["hurt"] == [["cranfield", "q2", 0.9, 0.1]]
    assert got[("submission", "alpha")]["reranks"] == []


def test_explorer_files_follow_the_board(board, env, tmp_path):
    """Rebuilt: the same bytes; a submission gone from the board: its file goes too; a name that is
    no plain file name gets a hashed one."""
    subs, results = env
    out = tmp_path / "out"
    first = {p: p.read_bytes() for p in write_all(board, out)}
    assert {p: p.read_bytes() for p in write_all(board, out)} == first
    (out / "explore" / "items" / "old-suite.js").write_text("stale")
    (out / "explore" / "notes.txt").write_text("not ours")
    shutil.rmtree(results / "beta")
    paths = write_all(build(results, Registry([subs]).all()), out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.js")) == sorted(p.relative_to(out).as_posix() for p in paths[4:])
    assert not (out / "explore" / "beta.js").exists() and not (out / "explore" / "items" / "old-suite.js").exists()
    assert (out / "explore" / "notes.txt").read_text() == "not ours"  # only explorer files are removed
    assert '"beta"' not in explore_index(paths[2].read_text())["submissions"]


def test_names_that_are_not_file_names(env, tmp_path, monkeypatch):
    from harness.leaderboard.explorer import _stems

    stems = _stems(["alpha", "Alpha", "x<b>&'\"", "all-MiniLM-L6-v2"])
    assert stems["Alpha"] == "Alpha" and stems["all-MiniLM-L6-v2"] == "all-MiniLM-L6-v2"
    assert re.fullmatch(r"_[0-9a-f]{16}", stems["alpha"]) and re.fullmatch(r"_[0-9a-f]{16}", stems["x<b>&'\""])  # same but for case; not a name
    from harness.leaderboard.render import _script_json

    inline = _script_json({"submissions": {"x<b>&'\"</script>": {"path": "explore/_0.js"}}})  # the page's index of the files
    assert not re.search(r"[<>&]", inline) and json.loads(inline) == {"submissions": {"x<b>&'\"</script>": {"path": "explore/_0.js"}}}


def test_changed_words():
    anchor = "The door is open."
    assert changed_spans(anchor, "The door is not open.") == [(12, 15)]  # "not"
    assert changed_spans(anchor, "The door is wide open.") == [(12, 16)]
    assert changed_spans(anchor, "the DOOR is open") == []  # case and edge punctuation aside
    assert changed_spans(anchor, "Someone has opened the door.") == [(0, 18)]  # replaced words, then kept ones
    assert changed_spans("A \U0001f600 cat sat.", "A \U0001f600 dog sat.") == [(5, 8)]  # UTF-16 indices, as JavaScript counts


def test_browser_changed_spans_and_legend(board):
    data = browser_data(board)
    nm = data.suites[0]
    i = [it[1] for it in nm.items].index("neg-1")
    spans = dict(zip(nm.fields, nm.changed[i], strict=True))
    assert spans["anchor"] == [] and spans["neg_close"] == [(12, 15)]  # "The door is not open."
    codes = dict(comparison_legend(data))
    assert codes["close_close"] == "s(anchor, pos_close) vs s(anchor, neg_close): right when the first score is higher"
    assert codes["anchor_negative"].startswith("s(anchor, positive) vs s(anchor, negative)")
    assert codes["pos_close"] == "same meaning as the anchor, a minimal in-place change"


def test_superseded_suites_stay_out_of_the_browser(env, tmp_path, monkeypatch):
    subs, results = env
    write_board(tmp_path, monkeypatch, results)
    yaml = tmp_path / "suites" / "toy-triplets.yaml"
    yaml.write_text(
        yaml.read_text().replace("leaderboard: {label: Toy triplets, role: extra}", "leaderboard: {label: Toy triplets, role: extra, superseded_by: nearmiss}")
    )
    lb = build(results, Registry([subs]).all())
    data = browser_data(lb)
    assert [s.suite for s in data.suites] == ["nearmiss"]
    assert "Toy triplets: not in the browser: superseded by nearmiss (its column and heatmap stay; per-item scores: cbench compare)" in data.notes
    assert "toy-triplets" in [h.suite for h in heatmaps(lb)]


def test_page_does_not_depend_on_the_data_dir(board, env, tmp_path, monkeypatch):
    """toy-external's data under a data dir: still no texts for it, the same bytes."""
    monkeypatch.delenv("CBENCH_DATA_DIR", raising=False)
    without = [p.read_bytes() for p in write_all(board, tmp_path / "one")]
    ext = tmp_path / "data" / "external"
    ext.mkdir(parents=True)
    (ext / "ext.jsonl").write_text(json.dumps({"id": "e-1", "category": "ext", "anchor": "a", "positive": "b", "negative": "c"}) + "\n")
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "data"))
    lb = build(env[1], Registry([env[0]]).all())
    assert [p.read_bytes() for p in write_all(lb, tmp_path / "two")] == without

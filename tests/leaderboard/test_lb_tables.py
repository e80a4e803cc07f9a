"""Results and the leaderboard as pandas DataFrames (harness.tables)."""

from __future__ import annotations

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save

import harness
from harness.errors import CBenchError


def test_results_frame_is_long_and_marks_main_scores(env):
    _subs, results = env
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3, "medline": 0.5}))
    save(results, nearmiss_results("alpha", "nearmiss", 0.8))
    save(results, nearmiss_results("ctl", "nearmiss", 0.5, kind="control"))
    df = harness.results_frame(results)
    assert set(df.submission) == {"alpha", "ctl"} and set(df.suite) == {"classic-ir", "nearmiss"}
    main = df[df.is_main & (df.dataset == "(mean)")].set_index(["submission", "suite"]).value
    assert main[("alpha", "classic-ir")] == pytest.approx(0.4)
    assert main[("alpha", "nearmiss")] == pytest.approx(0.8)
    per = df[(df.submission == "alpha") & (df.metric == "ndcg@10") & (df.dataset != "(mean)")].set_index("dataset").value
    assert per.to_dict() == pytest.approx({"cranfield": 0.3, "medline": 0.5})
    assert set(df[df.submission == "ctl"].kind) == {"control"}


def test_leaderboard_frame_matches_the_csv(env, monkeypatch):
    subs, results = env
    monkeypatch.setenv("CBENCH_SUBMISSIONS", str(subs))
    save(results, retrieval_results("alpha", "classic-ir", {"medline": 0.5}))
    save(results, nearmiss_results("alpha", "nearmiss", 0.8))
    save(results, nearmiss_results("ctl", "nearmiss", 0.55, kind="control"))
    df = harness.leaderboard_frame(results).set_index("submission")
    assert df.loc["alpha", "rank"] == 1 and df.loc["alpha", "group"] == "ranked"
    assert df.loc["alpha", "nearmiss:triplet_accuracy"] == pytest.approx(0.8)
    assert df.loc["ctl", "group"] == "control" and df.loc["ctl", "nearmiss:triplet_accuracy"] == pytest.approx(0.55)


def test_missing_folder_is_one_error(tmp_path):
    with pytest.raises(CBenchError, match="no such results folder"):
        harness.results_frame(tmp_path / "nope")

"""`kind: verifier` end to end with the real MiniLM on tiny data: rerank, provenance, caching, training."""

import json

import pytest
from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.mark.slow
def test_maxsim_reranks_the_first_stage_and_records_provenance(tiny_beir, tmp_path):
    res = tmp_path / "r"
    r = run("run", "--model", "minilm-maxsim", "--suite", str(tiny_beir), "--results-dir", str(res), "-q", "--top-k", "3")
    assert r.exit_code == 0, r.output
    out = json.loads((res / "minilm-maxsim" / "tiny.json").read_text())
    scorer = out["metadata"]["scorer"]
    assert scorer["first_stage"] == "all-MiniLM-L6-v2" and scorer["rerank_depth"] == 100 and scorer["verifier"] == "maxsim"
    assert out["metadata"]["dependencies"].keys() == {"all-MiniLM-L6-v2"}
    details = out["details"]["tiny"]
    assert set(details["first_stage"]) == set(out["datasets"]["tiny"])
    change = details["change_vs_first_stage"]["ndcg@10"]
    assert change == pytest.approx(out["datasets"]["tiny"]["ndcg@10"] - details["first_stage"]["ndcg@10"])
    # a second verifier over the same encoder encodes nothing: pooled and token embeddings are cached
    r = run("run", "--model", "minilm-align", "--suite", str(tiny_beir), "--results-dir", str(res))  # not -q: it hides the count
    assert r.exit_code == 0 and "texts encoded this run: 0" in r.stderr


@pytest.mark.slow
def test_trained_transformer_scores_pairs(tmp_path):
    from harness.run_context import RunContext
    from harness.submissions import Registry, build_submission_scorer

    reg = Registry()
    scorer = build_submission_scorer(reg.get("minilm-transformer"), RunContext(), reg)
    a = ["The dog bit the man.", "The food is safe."]
    b = ["The man bit the dog.", "The food is not safe."]
    s = scorer.score_pairs(a, b)
    assert s.shape == (2,) and ((-1 <= s) & (s <= 1)).all()
    assert (scorer.score_pairs(a, a) > s).all()  # identical texts beat near-misses


def test_missing_checkpoint_is_one_line(tmp_path, tiny_beir):
    sub = tmp_path / "v.yaml"
    sub.write_text("name: v\nkind: verifier\nfirst_stage: all-MiniLM-L6-v2\nencoder: all-MiniLM-L6-v2\narch: cnn\ncheckpoint: ./nothing-here\n")
    r = runner.invoke(app, ["run", "--model", str(sub), "--suite", str(tiny_beir), "--results-dir", str(tmp_path / "r")])
    assert r.exit_code == 2 and "checkpoint" in r.stderr and "Traceback" not in r.output


@pytest.mark.slow
def test_train_verifier_command_on_a_tiny_train_split(tmp_path):
    rows = []
    for i in range(8):
        rows.append({"id": f"t{i}", "category": "role_swap", "split": "train", "anchor": f"Team {i} beat the visitors.",
                     "positive": f"The visitors lost to team {i}.", "negative": f"The visitors beat team {i}."})  # fmt: skip
    (tmp_path / "tiny.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "tiny.yaml").write_text("name: tiny-nm\ntype: nearmiss\nformat: triplets-jsonl\nfiles:\n  - {name: tiny, path: tiny.jsonl}\n")
    out = tmp_path / "ckpt"
    r = run("train-verifier", "--encoder", "all-MiniLM-L6-v2", "--arch", "cnn", "--out", str(out), "--steps", "3",
            "--batch-size", "4", "--suite", str(tmp_path / "tiny.yaml"), "-q")  # fmt: skip
    assert r.exit_code == 0, r.output
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["arch"] == "cnn" and cfg["steps"] == 3 and cfg["encoder"] == "all-MiniLM-L6-v2"
    assert cfg["n_triplets"] == 16  # 8 items + their identity triplets
    assert cfg["train_data"]["split"] == "train" and cfg["train_data"]["identity_positives"]
    assert (out / "verifier.safetensors").is_file() and (out / "curve.png").is_file()


@pytest.mark.slow
def test_results_are_recomputed_when_the_checkpoint_changes(tmp_path):
    rows = [{"id": f"t{i}", "category": "c", "split": "train", "anchor": f"Team {i} beat the visitors.",
             "positive": f"The visitors lost to team {i}.", "negative": f"The visitors beat team {i}."} for i in range(4)]  # fmt: skip
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = tmp_path / "t.yaml"
    suite.write_text("name: t\ntype: nearmiss\nformat: triplets-jsonl\nfiles:\n  - {name: t, path: t.jsonl}\n")
    (tmp_path / "subs").mkdir()
    sub = tmp_path / "subs" / "v.yaml"
    sub.write_text("name: v\nkind: verifier\nfirst_stage: all-MiniLM-L6-v2\nencoder: all-MiniLM-L6-v2\narch: cnn\ncheckpoint: ../ckpt\n")

    def train(seed):
        r = run("train-verifier", "--encoder", "all-MiniLM-L6-v2", "--arch", "cnn", "--out", str(tmp_path / "ckpt"), "--steps", "2",
                "--batch-size", "4", "--seed", str(seed), "--suite", str(suite), "-q")  # fmt: skip
        assert r.exit_code == 0, r.output

    args = ["run", "--model", str(sub), "--suite", str(suite), "--results-dir", str(tmp_path / "r")]
    train(1)
    assert "computed" in run(*args).stdout
    assert "reused" in run(*args).stdout
    train(2)  # same YAML, new weights: the old results must not be reused
    r = run(*args)
    assert "computed" in r.stdout and "reused" not in r.stdout

"""`cbench finetune --recipe cross-encoder` on a tiny BERT: labelled pairs of the train split only,
outputs a runnable `kind: cross-encoder` submission, resumes after a real kill, refuses
evaluation data with one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from harness.paths import PROJECT_ROOT, SUITES_DIR

from .conftest import cbench, make_items, one_line_error, write_lines


@pytest.fixture
def base_dir(tiny_st, tmp_path) -> Path:
    """A submissions folder with an encoder submission over the tiny model (the cross-encoder's
    base and, in the generated submission, its first stage)."""
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "tiny-enc.yaml").write_text(yaml.safe_dump({"name": "tiny-enc", "kind": "encoder", "model": str(tiny_st), "max_seq_length": 32}))
    return folder


def _args(base_dir: Path, suite: Path, out: Path, *extra) -> list:
    return [
        "finetune", "--recipe", "cross-encoder", "--base", "tiny-enc", "--submissions-dir", base_dir, "--data-suite", suite,
        "--steps", 6, "--batch-size", 8, "--max-seq-length", 32, "--save-every", 2, "--out", out, "--name", "ce-tiny", "--quiet", *extra,
    ]


def test_labelled_pairs_train_split_only(nearmiss_suite):
    from harness.finetune.cross_encoder import CrossSettings, cross_encoder_data

    data = cross_encoder_data(CrossSettings(), str(nearmiss_suite))
    train, test = make_items("train", 16), make_items("test", 8, offset=1)
    assert len(data.pairs) == 16 * 5  # 2 positives, 2 near-misses, 1 unrelated per train item
    by_anchor: dict[str, list] = {}
    for a, b, y in data.pairs:
        by_anchor.setdefault(a, []).append((b, y))
    assert set(by_anchor) == {i["anchor"] for i in train}  # no test item is an anchor
    for item in train:
        got = by_anchor[item["anchor"]]
        assert got[:4] == [(item["pos_close"], 1), (item["pos_far"], 1), (item["neg_close"], 0), (item["neg_far"], 0)]
        (text, label), = got[4:]
        assert label == 0 and text not in {item[k] for k in ("anchor", "pos_close", "pos_far", "neg_close", "neg_far")}
        assert any(text in (o["anchor"], o["pos_close"], o["pos_far"], o["neg_close"], o["neg_far"]) for o in train if o is not item)
    test_texts = {i[k] for i in test for k in ("anchor", "pos_close", "pos_far", "neg_close", "neg_far")} - {
        i[k] for i in train for k in ("anchor", "pos_close", "pos_far", "neg_close", "neg_far")
    }
    assert not test_texts & {b for _, b, _ in data.pairs}
    # seeded: the same pairs again; another seed draws other unrelated texts
    again = cross_encoder_data(CrossSettings(), str(nearmiss_suite))
    other = cross_encoder_data(CrossSettings(seed=14), str(nearmiss_suite))
    assert again.pairs == data.pairs and again.provenance()["pairs_sha256"] == data.provenance()["pairs_sha256"]
    assert other.pairs != data.pairs
    assert len(cross_encoder_data(CrossSettings(max_items=6, batch_size=8), str(nearmiss_suite)).pairs) == 30  # a seeded subset of 6 items


def test_train_file_rows(tmp_path):
    from harness.finetune.cross_encoder import CrossSettings, cross_encoder_data
    from harness.finetune.data import read_train_file

    rows = [{"anchor": f"a{i}", "positive": f"p{i}", "negative": f"n{i}"} for i in range(4)]
    data = cross_encoder_data(CrossSettings(batch_size=4), "nearmiss-hand", read_train_file(write_lines(tmp_path / "t.jsonl", rows)))
    assert data.pairs[:2] == [("a0", "p0", 1), ("a0", "n0", 0)] and len(data.pairs) == 12  # the suite is not read
    assert data.provenance()["source"] == "--train" and data.provenance()["files"][0]["rows"] == 4
    assert all(b[1:] != a[1:] for a, b, y in data.pairs[2::3]) and [y for *_, y in data.pairs[2::3]] == [0] * 4  # unrelated: another row


def test_unrelated_pairs_come_from_other_frames():
    from harness.finetune.cross_encoder import Unit, labelled_pairs

    units = [Unit("f1", "a1", ("p1",), ("n1",)), Unit("f1", "a2", ("p2",), ("n2",)), Unit("f2", "a3", ("p3",), ("n3",))]
    pairs = labelled_pairs(units, 3, seed=0)
    f1_texts = {"a1", "p1", "n1", "a2", "p2", "n2"}
    for a, b, y in pairs:
        if y == 0 and b not in {"n1", "n2", "n3"}:  # an unrelated pair
            assert (a in {"a1", "a2"}) == (b in {"a3", "p3", "n3"}) and (a == "a3") == (b in f1_texts)


def test_cli_trains_and_the_scorer_runs_it(base_dir, nearmiss_suite, tmp_path, monkeypatch):
    from harness.submissions import load_submission

    out = tmp_path / "ce"
    r = cbench(*_args(base_dir, nearmiss_suite, out))
    assert r.exit_code == 0, r.stderr
    sub = load_submission(out / "ce-tiny.yaml")
    cfg = sub.config
    assert (cfg.kind, cfg.model, cfg.first_stage, cfg.rerank_depth, cfg.max_length) == ("cross-encoder", "./model", "tiny-enc", 100, 32)
    prov = cfg.provenance
    assert prov["final_step"] == prov["steps"] == 6 and prov["resumed_from_step"] is None
    assert (prov["lr"], prov["epochs"], prov["unrelated_per_item"], prov["seed"]) == (2e-5, 1, 1, 13)  # the recipe's own defaults
    assert (
        prov["data"]["records_used"] == 16 and prov["data"]["pairs"] == 80 and prov["data"]["positive_pairs"] == 32 and len(prov["data"]["pairs_sha256"]) == 64
    )
    assert prov["data"]["source"].endswith("split train") and len(prov["data"]["files"][0]["sha256"]) == 64
    assert prov["base"]["submission"] == "tiny-enc" and len(prov["base"]["weights_fingerprint"]) == 64
    assert json.loads((out / "finetune-run.json").read_text())["recipe"] == "cross-encoder"
    assert json.loads((out / "curves.json").read_text())["train_loss"] and not (out / "checkpoints").exists()
    config = json.loads((out / "model" / "config.json").read_text())
    assert config["architectures"] == ["BertForSequenceClassification"] and len(config["id2label"]) == 1  # one logit
    # the cross-encoder kind loads the trained folder and scores the near-miss suite with it
    monkeypatch.setenv("CBENCH_SUBMISSIONS", str(base_dir))
    r = cbench("run", "--model", out / "ce-tiny.yaml", "--suite", nearmiss_suite, "--results-dir", tmp_path / "res", "--quiet")
    assert r.exit_code == 0, r.stderr
    res = json.loads((tmp_path / "res" / "ce-tiny" / "tinynm.json").read_text())
    assert 0.0 <= res["main_score"] <= 1.0
    # a finished run is not silently retrained
    monkeypatch.delenv("CBENCH_SUBMISSIONS")  # (the same folder named twice reads as two submissions of one name)
    one_line_error(cbench(*_args(base_dir, nearmiss_suite, out)), "--overwrite")


def test_rebuilds_missing_weights_without_touching_the_committed_record(base_dir, nearmiss_suite, tmp_path):
    """A checkout holds the run's YAML, run file and curves but not the weights (models/minilm-cross):
    the same command trains again in out/rebuild, moves the weights to out/model and leaves the
    committed files byte for byte; a committed record of other settings is refused, nothing written."""
    from harness.model_refs import folder_fingerprint

    out = tmp_path / "ce"
    assert cbench(*_args(base_dir, nearmiss_suite, out)).exit_code == 0
    first = folder_fingerprint(out / "model")
    committed = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert {"ce-tiny.yaml", "finetune-run.json", "curves.json"} <= set(committed)
    shutil.rmtree(out / "model")  # as git leaves it: model/ is ignored
    r = cbench(*_args(base_dir, nearmiss_suite, out))
    assert r.exit_code == 0, r.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == committed
    assert (out / "model" / "config.json").is_file() and not (out / "rebuild" / "model").exists()
    assert yaml.safe_load((out / "rebuild" / "ce-tiny.yaml").read_text())["provenance"]["final_step"] == 6
    assert folder_fingerprint(out / "model") == first  # seeded CPU training rebuilds the same weights
    # now finished: not retrained
    one_line_error(cbench(*_args(base_dir, nearmiss_suite, out)), "--overwrite")
    # other settings than the committed run: refused, naming the file and field
    shutil.rmtree(out / "model")
    shutil.rmtree(out / "rebuild")
    line = one_line_error(cbench(*_args(base_dir, nearmiss_suite, out, "--lr", "1e-4")), "finetune-run.json", "settings", "--overwrite")
    assert "Traceback" not in line and not (out / "model").exists() and not (out / "rebuild").exists()


DRIVER = """
import sys, time
import transformers
step = transformers.Trainer.training_step
def slow(self, *a, **k):
    time.sleep(1.0)  # a tiny model trains in milliseconds: give the test time to kill it mid-run
    return step(self, *a, **k)
transformers.Trainer.training_step = slow
from harness.cli import app
sys.argv = ["cbench", *sys.argv[1:]]
app()
"""


def _complete_checkpoints(folder: Path) -> list[int]:
    """Steps of the checkpoints whose trainer_state.json (the Trainer's last write) is readable."""
    out = []
    for p in folder.glob("checkpoint-*"):
        try:
            json.loads((p / "trainer_state.json").read_text())
        except (OSError, ValueError):
            continue
        out.append(int(p.name.split("-")[1]))
    return sorted(out)


def test_resume_after_a_real_kill(tiny_st, base_dir, nearmiss_suite, tmp_path):
    """A subprocess is killed (SIGKILL) after its first checkpoint; the same command then resumes
    from the last complete checkpoint and ends with the weights of a run that was never killed."""
    import torch
    from safetensors.torch import load_file

    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "OMP_NUM_THREADS": "1"}
    args = [str(a) for a in _args(base_dir, nearmiss_suite, out)]
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while not _complete_checkpoints(out / "checkpoints"):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint within 240 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "ce-tiny.yaml").exists() and not (out / "model").exists()
    done = _complete_checkpoints(out / "checkpoints")
    assert done and done[-1] < 6, done  # killed mid-run, after a checkpoint

    r = cbench(*_args(base_dir, nearmiss_suite, out))
    assert r.exit_code == 0, r.stderr
    prov = yaml.safe_load((out / "ce-tiny.yaml").read_text())["provenance"]
    assert prov["resumed_from_step"] == done[-1] and prov["final_step"] == 6 and prov["steps_timed"] == 6 - done[-1]

    straight = tmp_path / "straight"
    r = cbench(*_args(base_dir, nearmiss_suite, straight))
    assert r.exit_code == 0, r.stderr
    a, b = load_file(str(out / "model" / "model.safetensors")), load_file(str(straight / "model" / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # ... and training changed them: not the base's weights
    base = load_file(str(tiny_st / "model.safetensors"))
    layers = [k for k in a if k.startswith("bert.encoder.")]
    assert layers and all(k.removeprefix("bert.") in base for k in layers)
    assert not all(torch.equal(a[k], base[k.removeprefix("bert.")]) for k in layers)


def test_refuses_evaluation_data_with_one_line(base_dir, nearmiss_suite, tmp_path):
    out = tmp_path / "o"
    for suite in ("nearmiss-hand", "sugarcrepe-pp", "nevir", "paws"):
        # the last --data-suite counts
        one_line_error(cbench(*_args(base_dir, nearmiss_suite, out), "--data-suite", suite), f"suite '{suite}' is evaluation only")
    # a suite YAML of another name over the hand-written file: refused by its content
    shutil.copy(SUITES_DIR / "nearmiss-hand" / "nearmiss-hand.jsonl", tmp_path / "items.jsonl")
    innocent = tmp_path / "innocent.yaml"
    suite = yaml.safe_load(nearmiss_suite.read_text()) | {"name": "innocent", "files": [{"name": "x", "path": "items.jsonl"}]}
    innocent.write_text(yaml.safe_dump(suite))
    one_line_error(cbench(*_args(base_dir, innocent, out)), "items.jsonl", "evaluation data of suite 'nearmiss-hand'")
    # a --train file with test-split rows
    rows = [{"anchor": i["anchor"], "positive": i["pos_close"], "negative": i["neg_close"], "split": i["split"]} for i in make_items("test", 2)]
    one_line_error(cbench(*_args(base_dir, nearmiss_suite, out), "--train", write_lines(tmp_path / "t.jsonl", rows)), "t.jsonl", "split", "test")
    # options of the MNRL recipes are not silently ignored
    one_line_error(cbench(*_args(base_dir, nearmiss_suite, out), "--scale", 20), "--scale", "cross-encoder")
    assert not out.exists()


def test_shipped_submission_names_what_make_builds():
    """submissions/minilm-cross.yaml reads the folder `make minilm-cross` writes with the recipe."""
    import re
    import shlex

    from harness.submissions import load_submission

    sub = load_submission(PROJECT_ROOT / "submissions" / "minilm-cross.yaml").config
    assert (sub.kind, sub.first_stage, sub.rerank_depth) == ("cross-encoder", "all-MiniLM-L6-v2", 100)
    make = (PROJECT_ROOT / "Makefile").read_text()
    target, command = re.search(r"^(models/minilm-cross/\S+): .*\n\t(.+)$", make, flags=re.M).groups()
    args = shlex.split(command)
    out = args[args.index("--out") + 1]
    assert args[args.index("--recipe") + 1] == "cross-encoder" and args[args.index("--base") + 1] == sub.first_stage
    assert (PROJECT_ROOT / "submissions" / sub.model).resolve() == (PROJECT_ROOT / out / "model").resolve() == (PROJECT_ROOT / target).parent
    assert re.search(r"^minilm-cross: " + re.escape(target) + "$", make, flags=re.M)

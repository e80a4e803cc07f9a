"""Training-data readers: formats, one-line errors, refusal of evaluation data."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from harness.errors import CBenchError
from harness.finetune.data import identity_rows, meaning_pairs, read_structural_file, read_train_file, suite_train_records
from harness.paths import SUITES_DIR

from .conftest import cbench, make_items, one_line_error, write_lines


def test_formats(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("anchor,positive,negative,category\nq1,p1,n1,nq\nq2,p2,n2,nq\n")
    assert read_train_file(csv).rows == [("q1", "p1", "n1"), ("q2", "p2", "n2")]
    nq = tmp_path / "NQ-train_pairs.jsonl.gz"  # sentence-transformers' embedding-training-data layout
    nq.write_bytes(gzip.compress(b'["who wrote it", "she did"]\n["where", "here"]\n'))
    f = read_train_file(nq)
    assert f.rows == [("who wrote it", "she did"), ("where", "here")] and f.arity == 2 and len(f.sha256) == 64
    ms = write_lines(tmp_path / "ms.jsonl", [{"query": "q", "pos": ["p", "p2"], "neg": ["n"]}])
    assert read_train_file(ms).rows == [("q", "p", "n")]
    js = tmp_path / "t.json"
    js.write_text(json.dumps([{"anchor": "a", "positive": "b"}]))
    assert read_train_file(js).rows == [("a", "b")]


@pytest.mark.parametrize(
    ("name", "content", "needles"),
    [
        ("bad.csv", "anchor,negative\na,b\n", ["bad.csv", "header", "positive"]),
        ("bad.jsonl", '{"anchor": "a", "positive": "b", "negative": 3}\n', ["bad.jsonl", "line 1: negative", "string"]),
        ("bad2.jsonl", '{"anchor": "a", "positive": "b"}\n{"anchor": "a", "positive": "b", "negative": "c"}\n', ["bad2.jsonl", "line 2"]),
        ("bad3.jsonl", '{"anchor": "a", "positive": "", "negative": "c"}\n', ["bad3.jsonl", "line 1: positive", "empty"]),
        ("bad4.jsonl", '{"anchor": "a", "positive": "b", "split": "test"}\n', ["bad4.jsonl", "line 1: split", "test"]),
        ("bad5.jsonl", '{"anchor": "a", "positive": "b", "split": "dev"}\n', ["bad5.jsonl", "line 1: split", "'dev'", "development data"]),
        ("bad.txt", "x\n", ["bad.txt", "unknown file type"]),
    ],
)
def test_bad_train_file_one_line(tmp_path, name, content, needles):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(CBenchError) as e:
        read_train_file(p)
    for n in needles:
        assert n in e.value.line, e.value.line


def test_cli_bad_input_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"anchor": "a"}\n')
    r = cbench("finetune", "--base", str(tmp_path), "--train", bad, "--out", tmp_path / "o", "--steps", 1)
    one_line_error(r, "bad.jsonl", "line 1: positive")
    r = cbench("finetune", "--base", str(tmp_path), "--out", tmp_path / "o")
    one_line_error(r, "--train")


def test_structural_identity_triplets(tmp_path):
    items = write_lines(tmp_path / "s.jsonl", make_items("train", 2))
    f = read_structural_file(items)
    a = make_items("train", 1)[0]
    assert f.rows[:2] == [(a["anchor"], a["anchor"], a["neg_close"]), (a["anchor"], a["anchor"], a["neg_far"])]
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("sentence1,sentence2,category\nx y,x not y,negation\n")
    assert read_structural_file(pairs).rows == [("x y", "x y", "x not y")]


def test_test_split_and_eval_suites_refused(tmp_path, nearmiss_suite):
    mixed = write_lines(tmp_path / "mixed.jsonl", make_items("train", 2) + make_items("test", 1))
    with pytest.raises(CBenchError, match="test"):
        read_structural_file(mixed)
    hand = tmp_path / "copy-of-hand.jsonl"  # renamed, train-split-free copy still refused by content
    shutil.copy(SUITES_DIR / "nearmiss-hand" / "nearmiss-hand.jsonl", hand)
    with pytest.raises(CBenchError, match="test|nearmiss-hand"):
        read_structural_file(hand)
    with pytest.raises(CBenchError, match="evaluation only"):
        suite_train_records("nearmiss-hand")
    dev = tmp_path / "copy-of-dev.jsonl"  # the development split (gate thresholds) is not training data either
    shutil.copy(SUITES_DIR / "nearmiss" / "nearmiss-v2-dev.jsonl", dev)
    with pytest.raises(CBenchError, match="'dev' split record"):
        read_structural_file(dev)
    records, files = suite_train_records(str(nearmiss_suite))
    assert len(records) == 16 and all(r.split == "train" for r in records) and files[0].sha256
    assert len(meaning_pairs(records)) == 32 and len(identity_rows(records)) == 32


def test_recipe_refuses_eval_suite(tmp_path):
    r = cbench("finetune", "--recipe", "paper-ab", "--base", str(tmp_path), "--data-suite", "nearmiss-hand", "--out", tmp_path / "o")
    one_line_error(r, "nearmiss-hand", "evaluation only")


def test_provenance_field_is_descriptive():
    from harness.scorers.encoder import EncoderConfig
    from harness.submissions.registry import Submission

    plain = EncoderConfig(name="m", kind="encoder", model="x/y")
    made = EncoderConfig(name="m", kind="encoder", model="x/y", provenance={"steps": 3})
    assert "provenance" not in plain.model_dump(mode="json")  # results of other submissions unchanged
    assert made.model_dump(mode="json")["provenance"] == {"steps": 3}
    assert Submission(plain, None).hash == Submission(made, None).hash


def test_data_files_are_recorded_without_machine_paths():
    """The shipped suite's train file is named relative to the project in provenance (the generated
    submission YAML is meant to be shared)."""
    _records, files = suite_train_records("nearmiss")
    assert [f.path for f in files] == ["suites/nearmiss/nearmiss-v2.jsonl"]

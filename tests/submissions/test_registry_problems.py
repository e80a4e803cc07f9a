"""A submission folder with files that do not load: each blocks only its own name (runs of the
others go on), and `cbench submissions validate`, `submissions list` and `leaderboard --check` report
every problem of every such file, one line each, exit 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir, write_lexical
from harness.cli import app
from harness.errors import CBenchError
from harness.submissions import Registry, load_submission

runner = CliRunner()
KINDS = "control, cross-encoder, encoder, fusion, late-interaction, lexical, static, tfidf, verifier"


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """subs/: a good BM25 submission, a file that is not YAML, and one with three problems."""
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    subs = tmp_path / "subs"
    write_lexical(subs, "good-bm25")
    (subs / "broken.yaml").write_text("name: broken\nkind: lexical\nk1: [1.2\n")
    (subs / "three.yaml").write_text("name: three problems\nkind: encodr\nmodel: org/m\nmax_seq_lenght: 128\n")
    return subs


def test_three_problems_are_three_lines(tmp_path):
    path = tmp_path / "three.yaml"
    path.write_text("name: three problems\nkind: encodr\nmodel: org/m\nmax_seq_lenght: 128\n")
    with pytest.raises(CBenchError) as e:
        load_submission(path)
    assert e.value.lines == [
        f"{path}: kind: unknown kind 'encodr' (did you mean 'encoder'?); known kinds: {KINDS}",
        f"{path}: name: 'three problems' is not a valid name: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
        f"{path}: max_seq_lenght: unknown key (did you mean 'max_seq_length'?)",
    ]
    path.write_text("name: two problems\nparameters: -1\nmodel: org/m\n")  # no kind: the fields every kind has
    with pytest.raises(CBenchError) as e:
        load_submission(path)
    assert e.value.lines == [
        f"{path}: kind: missing; one of: {KINDS}",
        f"{path}: name: 'two problems' is not a valid name: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
        f"{path}: parameters: Input should be greater than or equal to 0",
    ]


def test_a_bad_file_blocks_only_itself(folder, tmp_path):
    beir = write_beir(tmp_path / "beir", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    reg = Registry([folder])
    assert "good-bm25" in reg.all() and "bm25" in reg.all() and "broken" not in reg.all()
    assert [p.source for p in reg.problems] == [str(folder / "broken.yaml"), str(folder / "three.yaml")]

    r = invoke("run", "--model", "good-bm25", "--suite", str(beir), "--submissions-dir", str(folder), "--results-dir", str(tmp_path / "res"), "-q")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "res" / "good-bm25" / "beir.json").is_file()

    for name in ("broken", "three"):  # by its name, or its file's stem when the name is bad too
        r = invoke("run", "--model", name, "--suite", str(beir), "--submissions-dir", str(folder), "--results-dir", str(tmp_path / "res"))
        assert r.exit_code == 2 and "Traceback" not in r.output
        assert all(ln.startswith(f"error: {folder / (name + '.yaml')}: ") for ln in lines(r.stderr))
    assert len(lines(r.stderr)) == 3


def test_validate_list_and_check_report_every_problem(folder, tmp_path):
    expected = [
        f"{folder / 'broken.yaml'}: line 4: invalid YAML: expected ',' or ']', but got '<stream end>'",
        f"{folder / 'three.yaml'}: kind: unknown kind 'encodr' (did you mean 'encoder'?); known kinds: {KINDS}",
        f"{folder / 'three.yaml'}: name: 'three problems' is not a valid name: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
        f"{folder / 'three.yaml'}: max_seq_lenght: unknown key (did you mean 'max_seq_length'?)",
    ]
    r = invoke("submissions", "validate", "--submissions-dir", str(folder))  # no files: every one in the folders
    assert r.exit_code == 2 and lines(r.stderr) == expected
    assert f"ok: {folder / 'good-bm25.yaml'} (lexical 'good-bm25')" in r.stdout

    r = invoke("submissions", "list", "--submissions-dir", str(folder))
    assert r.exit_code == 2 and "good-bm25" in r.stdout
    assert lines(r.stderr) == [f"error: {ln}" for ln in expected]

    (tmp_path / "res").mkdir()
    r = invoke("leaderboard", "--check", "--results-dir", str(tmp_path / "res"), "--submissions-dir", str(folder))
    assert r.exit_code == 2 and lines(r.stderr) == expected


def test_a_name_two_files_claim_is_nobodys(tmp_path, monkeypatch):
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    (tmp_path / "a.yaml").write_text("name: twice\nkind: lexical\nk1: many\n")  # does not validate, but claims the name
    (tmp_path / "b.yaml").write_text("name: twice\nkind: lexical\n")
    write_lexical(tmp_path, "other")
    reg = Registry([tmp_path])
    assert "twice" not in reg.all() and "other" in reg.all()
    assert [p.line for p in reg.problems][1] == f"{tmp_path / 'b.yaml'}: name: name 'twice' is also used by {tmp_path / 'a.yaml'}"
    with pytest.raises(CBenchError, match="k1: Input should be a valid number"):
        reg.get("twice")

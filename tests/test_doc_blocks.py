"""The generated blocks of README.md and docs/: each sits in the page its script writes, and the
ones made from the committed results are what their scripts print now."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import field_report, fusion_report, nearmiss_report, paper_ab_report, run_times, verifier_report
from scripts.doc_blocks import replace_block

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "leaderboard" / "results"


def block(page: Path, tag: str) -> str:
    text = page.read_text(encoding="utf-8")
    start, end = f"<!-- {tag}:start -->\n", f"<!-- {tag}:end -->"
    assert start in text and end in text, f"{page.relative_to(ROOT)} has no {tag} block"
    return text.split(start, 1)[1].split(end, 1)[0]


@pytest.mark.parametrize(
    ("page", "tag"),
    [
        ("README.md", "leaderboard"),
        ("docs/development.md", "runtimes"),
        ("docs/validity.md", "nearmiss-report"),
        ("docs/findings.md", "field"),
        ("docs/findings.md", "verifiers"),
        ("docs/finetuning.md", "paper-ab"),
        ("docs/finetuning.md", "paper-ab:all-mpnet-base-v2"),
        ("docs/deployment.md", "fusion"),
    ],
)
def test_each_block_is_in_its_page_once(page, tag):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert text.count(f"<!-- {tag}:start -->") == 1 and text.count(f"<!-- {tag}:end -->") == 1


def test_the_scripts_write_into_the_docs_pages():
    assert nearmiss_report.PAGE == ROOT / "docs" / "validity.md"
    assert field_report.PAGE == ROOT / "docs" / "findings.md"
    assert paper_ab_report.PAGE == ROOT / "docs" / "finetuning.md"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not any(f"<!-- {tag}:start -->" in readme for tag in ("nearmiss-report", "field", "paper-ab", "verifiers"))


def test_nearmiss_report_block_is_current():
    assert block(nearmiss_report.PAGE, "nearmiss-report") == nearmiss_report.report(RESULTS)


def test_field_block_is_current():
    assert block(field_report.PAGE, "field") == field_report.table(RESULTS)


def test_verifier_block_is_current():
    assert verifier_report.PAGE == ROOT / "docs" / "findings.md"
    assert block(verifier_report.PAGE, "verifiers") == verifier_report.report(RESULTS, ROOT / "leaderboard" / "cost")


@pytest.mark.slow  # paired tests of every fused row on six suites (about a minute)
def test_fusion_block_is_current():
    assert fusion_report.PAGE == ROOT / "docs" / "deployment.md"
    assert block(fusion_report.PAGE, "fusion") == fusion_report.report(RESULTS)


def test_runtimes_block_is_current():
    assert run_times.PAGE == ROOT / "docs" / "development.md"
    assert block(run_times.PAGE, "runtimes") == run_times.report(RESULTS)


def test_runtimes_sum_each_submissions_recorded_seconds_and_mark_cached_suites():
    rows = run_times.collect(RESULTS)
    bm25 = rows["bm25"]
    assert bm25.work.get("texts_indexed", 0) > 0 and not run_times.warm(bm25)  # lexical: nothing to cache
    frozen = rows["minilm-cnn-frozen"]  # reads the token embeddings minilm-maxsim's run cached
    assert frozen.encodes and "offline-ir" in run_times.warm(frozen)
    assert all(t.seconds > 0 for name, t in rows.items() if name.startswith("all-"))


def test_runtimes_mark_a_suite_whose_passages_another_run_encoded(tmp_path):
    # mpnet-ft-b encoded offline-ir's queries itself, its passages in a separate prefill run: the
    # suite computed something, but less than another encoder did on SciFact, so it is marked
    # (minilm-ft-a's run encoded SciFact cold; all-MiniLM-L6-v2's committed offline-ir is a rerun that
    # read every embedding from the cache, kept for its runs)
    for name in ("mpnet-ft-b", "minilm-ft-a"):
        (tmp_path / name).mkdir()
        shutil.copy(RESULTS / name / "offline-ir.json", tmp_path / name / "offline-ir.json")
    rows = run_times.collect(tmp_path)
    assert rows["mpnet-ft-b"].done[("offline-ir", "scifact")] < rows["minilm-ft-a"].done[("offline-ir", "scifact")]
    assert "offline-ir" in run_times.warm(rows["mpnet-ft-b"])
    assert "offline-ir" not in run_times.warm(rows["minilm-ft-a"])  # the cold run it is measured against


def test_replace_block_replaces_only_its_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("intro\n<!-- a:start -->\nold\n<!-- a:end -->\nmiddle\n<!-- b:start -->\nkept\n<!-- b:end -->\n")
    replace_block(page, "a", "new\n")
    assert page.read_text() == "intro\n<!-- a:start -->\nnew\n<!-- a:end -->\nmiddle\n<!-- b:start -->\nkept\n<!-- b:end -->\n"


def test_replace_block_names_the_page_without_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("no markers\n")
    with pytest.raises(SystemExit, match="page.md: no <!-- a:start -->"):
        replace_block(page, "a", "x\n")
    assert page.read_text() == "no markers\n"


def test_write_option_fills_the_given_page(tmp_path):
    page = tmp_path / "findings.md"
    page.write_text("# t\n<!-- field:start -->\n<!-- field:end -->\n")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "field_report.py"), "--write", str(page)], check=True, cwd=tmp_path)
    assert block(page, "field") == field_report.table(RESULTS)


def test_field_table_takes_the_finished_datasets_of_an_unfinished_suite(tmp_path):
    """A stopped run leaves its results file with the datasets it finished (complete: false): the
    dataset columns show them, the suite's mean stays a dash."""
    data = json.loads((RESULTS / "all-MiniLM-L6-v2" / "offline-ir.json").read_text(encoding="utf-8"))
    del data["datasets"]["nfcorpus"]
    data["ci95"].pop("nfcorpus", None)
    data.update(complete=False, main_score=None, main_score_ci95=None, aggregate={})
    (tmp_path / "all-MiniLM-L6-v2").mkdir()
    (tmp_path / "all-MiniLM-L6-v2" / "offline-ir.json").write_text(json.dumps(data), encoding="utf-8")
    row = next(line for line in field_report.table(tmp_path).splitlines() if line.startswith("| all-MiniLM-L6-v2 |"))
    mean, scifact, nfcorpus = (c.strip() for c in row.split("|")[2:5])
    assert (mean, nfcorpus) == ("—", "—")
    assert scifact == f"{data['datasets']['scifact']['ndcg@10']:.5f}"

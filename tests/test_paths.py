"""Results record paths without this machine's folders (harness.paths.portable)."""

from __future__ import annotations

from harness.paths import PROJECT_ROOT, portable, portable_command


def test_project_and_data_paths_become_portable(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data" / "beir" / "medline").mkdir(parents=True)
    assert portable(PROJECT_ROOT / "suites" / "nearmiss.yaml") == "suites/nearmiss.yaml"
    assert portable(tmp_path / "data" / "beir" / "medline") == "$CBENCH_DATA_DIR/beir/medline"
    assert portable(tmp_path / "elsewhere.yaml") == str(tmp_path / "elsewhere.yaml")  # a user's own file: as given
    assert portable("hub:zeta-alpha-ai/NanoNQ") == "hub:zeta-alpha-ai/NanoNQ" and portable(None) is None
    cmd = portable_command(["run", "--model", "m", "--suite", str(PROJECT_ROOT / "suites" / "classic-ir.yaml")])
    assert cmd == "cbench run --model m --suite suites/classic-ir.yaml"

"""README.md's hand-run example (the block that starts with `source .venv/bin/activate`), run the
way a new user runs it: in bash, from a fresh folder, with no CBENCH_DATA_DIR in the environment
(only the Hugging Face offline variables CI sets): the data directory must come from the project's
cbench.toml, the run must exit 0 and write a complete results file.

The README's `cbench run` line scores classic-ir and nearmiss; cold, classic-ir's three corpora
(3,893 passages) dominate, and nearmiss (3,500 items, no local data) adds minutes on two cores.
The slow test therefore runs the block as written except that `--suite nearmiss` is dropped from
that line (checked to be its only other suite); the leaderboard and compare lines run as written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.paths import PROJECT_ROOT

README = PROJECT_ROOT / "README.md"
FIRST_LINE = "source .venv/bin/activate"


def readme_block() -> list[str]:
    """The lines of README.md's ```bash block that starts with `source .venv/bin/activate`."""
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b.splitlines() for b in blocks if b.startswith(FIRST_LINE + "\n")]
    assert len(found) == 1, f"README.md has {len(found)} ```bash blocks starting with {FIRST_LINE!r}"
    return found[0]


def cbench_lines(block: list[str]) -> list[list[str]]:
    """Each `cbench ...` line of the block as arguments (comments dropped, as bash drops them)."""
    return [shlex.split(line, comments=True)[1:] for line in block if line.startswith("cbench ")]


def run_line(block: list[str]) -> str:
    (line,) = [ln for ln in block if ln.startswith("cbench run ")]
    return line


def test_the_readme_example_uses_commands_and_options_that_exist():
    """Cheap: every `cbench` line of the block names a command, and options, that `--help` lists."""
    block = readme_block()
    assert block[0] == FIRST_LINE
    runner = CliRunner()
    for args in cbench_lines(block):
        command = args[0]
        help_text = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
        assert "No such command" not in help_text, f"cbench {command}: {help_text}"
        for option in (a for a in args if a.startswith("--")):
            assert option in help_text, f"cbench {command} has no {option}"
    run_args = shlex.split(run_line(block), comments=True)
    assert "--results-dir" in run_args and "--data-dir" not in run_args  # the data directory comes from the rule


@pytest.mark.slow
def test_the_readme_example_runs_as_written_without_cbench_data_dir(tmp_path):
    if not (PROJECT_ROOT / ".venv" / "bin" / "activate").is_file():
        pytest.skip("no .venv in the checkout (the README's `make install` makes it)")
    block = readme_block()
    line = run_line(block)
    args = shlex.split(line, comments=True)
    suites = [args[i + 1] for i, a in enumerate(args) if a == "--suite"]
    assert suites == ["classic-ir", "nearmiss"], f"the README's run line changed ({line}): update this test"
    cheap = line.replace(" --suite nearmiss", "", 1)
    script = "set -e\n" + "\n".join(cheap if ln == line else ln for ln in block) + "\n"

    (tmp_path / ".venv").symlink_to(PROJECT_ROOT / ".venv")  # the README runs in the checkout; its outputs go here
    venv_bin = str(PROJECT_ROOT / ".venv" / "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("CBENCH_DATA_DIR", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin)  # cbench from `source` only
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr[-4000:]}"
    assert "skipped" not in done.stderr and "error" not in done.stderr.lower()

    results = tmp_path / Path(args[args.index("--results-dir") + 1]) / "all-MiniLM-L6-v2" / "classic-ir.json"
    out = json.loads(results.read_text())
    assert out["complete"] and out["main_score"] is not None and not out["skipped"]
    assert list(out["datasets"]) == ["cranfield", "cisi", "medline"]
    assert out["metadata"]["dataset_sources"]["medline"] == "$CBENCH_DATA_DIR/beir/medline"  # found through cbench.toml
    (board,) = [a[a.index("--out") + 1] for a in cbench_lines(block) if a[0] == "leaderboard"]
    assert (tmp_path / board / "leaderboard.md").is_file()
    assert "cbench compare: minilm-transformer" in done.stdout

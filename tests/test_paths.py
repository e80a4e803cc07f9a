"""Results record paths without this machine's folders (harness.paths.portable); where the data
directory is found (harness.paths.data_dir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import paths
from harness.errors import CBenchError
from harness.paths import PROJECT_ROOT, data_dir, data_dir_choice, portable, portable_command


def test_project_and_data_paths_become_portable(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data" / "beir" / "medline").mkdir(parents=True)
    assert portable(PROJECT_ROOT / "suites" / "nearmiss.yaml") == "suites/nearmiss.yaml"
    assert portable(tmp_path / "data" / "beir" / "medline") == "$CBENCH_DATA_DIR/beir/medline"
    assert portable(tmp_path / "elsewhere.yaml") == str(tmp_path / "elsewhere.yaml")  # a user's own file: as given
    assert portable("hub:zeta-alpha-ai/NanoNQ") == "hub:zeta-alpha-ai/NanoNQ" and portable(None) is None
    cmd = portable_command(["run", "--model", "m", "--suite", str(PROJECT_ROOT / "suites" / "classic-ir.yaml")])
    assert cmd == "cbench run --model m --suite suites/classic-ir.yaml"


# -- the data directory: --data-dir, then $CBENCH_DATA_DIR, then cbench.toml (here, then the project) --


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A project folder and a current folder, each able to hold a cbench.toml; no $CBENCH_DATA_DIR."""
    project, here = tmp_path / "project", tmp_path / "here"
    project.mkdir()
    here.mkdir()
    monkeypatch.setattr(paths, "PROJECT_ROOT", project)
    monkeypatch.chdir(here)
    monkeypatch.delenv("CBENCH_DATA_DIR", raising=False)
    return project, here


def test_data_dir_precedence_flag_env_here_project(places, tmp_path, monkeypatch):
    project, here = places
    assert data_dir() is None
    (project / "cbench.toml").write_text('data_dir = "../project-data"\n')
    assert data_dir() == tmp_path / "project-data"  # relative to the file's folder, not to the current one
    (here / "cbench.toml").write_text('data_dir = "data"  # a comment\n')
    assert data_dir() == here / "data"  # the current folder's file first
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "flag") == tmp_path / "flag"


def test_a_config_without_data_dir_passes_to_the_next(places, tmp_path):
    project, here = places
    (here / "cbench.toml").write_text("")
    (project / "cbench.toml").write_text('data_dir = "/abs/data"\n')
    choice = data_dir_choice()
    assert choice.path == Path("/abs/data") and not choice.found
    assert choice.looked == (
        "--data-dir: not given",
        "$CBENCH_DATA_DIR: not set",
        f"{here / 'cbench.toml'}: no data_dir",
        f'{project / "cbench.toml"}: data_dir = "/abs/data" (/abs/data)',
    )


def test_no_data_dir_line_says_where_it_looked_and_how_to_set_one(places):
    project, here = places
    choice = data_dir_choice()
    assert choice.path is None and not choice.found
    line = choice.missing_line()
    assert line.startswith(
        f"no data directory (looked at --data-dir: not given; $CBENCH_DATA_DIR: not set; {here / 'cbench.toml'}: no such file; "
        f'{project / "cbench.toml"}: no such file); pass --data-dir DIR, set CBENCH_DATA_DIR=DIR, or put data_dir = "DIR" in cbench.toml'
    )
    assert "\n" not in line


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ('datadir = "x"\n', "datadir", "unknown key; known: data_dir"),
        ("data_dir = 3\n", "data_dir", "expected a folder as a string"),
        ('data_dir = "x\n', None, "invalid TOML"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_file(places, text, field, message):
    _project, here = places
    (here / "cbench.toml").write_text(text)
    with pytest.raises(CBenchError) as e:
        data_dir()
    assert e.value.source == str(here / "cbench.toml") and e.value.field == field and message in e.value.message
    assert e.value.exit_code == 2 and len(e.value.lines) == 1


def test_the_shipped_config_names_the_shared_data_beside_the_checkout():
    """What `make` and .ci/run set CBENCH_DATA_DIR to, so a hand-run `cbench` finds the same data."""
    assert paths.read_config(PROJECT_ROOT / "cbench.toml") == {"data_dir": "../shared/data"}

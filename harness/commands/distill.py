"""`cbench distill` - make a model2vec static model from an encoder submission, offline.

model2vec runs the encoder once over every token of its vocabulary, keeps one vector per
token (mean-pooled the way the encoder pools), reduces it with PCA and weights it by token
frequency (SIF). The result is a folder that `kind: static` submissions load.

Needs model2vec's `distill` extra (the `skeletoken` package), which `make install` does not
install (see SKELETOKEN_PIN); without it the command stops, before it loads anything, with one
line naming the install command for the Python that runs cbench.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from harness.errors import CBenchError
from harness.ui import err_console, fail, out_console

SOURCE = "distill"
# skeletoken 0.4.x declares transformers>=4.55, which would replace the transformers that
# pylate pins; it works with the pinned one, so install it without its dependencies.
SKELETOKEN_PIN = "skeletoken>=0.4.1,<0.5"


def install_hint(requirement: str, *, no_deps: bool = False) -> str:
    """The pip command that installs ``requirement`` into the Python running cbench (``.venv`` after
    ``make install``, whichever ``pip`` is first on PATH)."""
    words = [sys.executable, "-m", "pip", "install", *(["--no-deps"] if no_deps else []), requirement]
    return shlex.join(words)


class Quantize(StrEnum):
    float16 = "float16"
    float32 = "float32"
    int8 = "int8"


def pooling_of(folder: Path) -> str:
    """model2vec pooling mode matching a sentence-transformers folder's Pooling module (default mean)."""
    try:
        modules = json.loads((folder / "modules.json").read_text())
    except (OSError, ValueError):
        return "mean"
    for m in modules if isinstance(modules, list) else []:
        if isinstance(m, dict) and str(m.get("type", "")).endswith("Pooling"):
            try:
                cfg = json.loads((folder / m.get("path", "") / "config.json").read_text())
            except (OSError, ValueError):
                return "mean"
            if cfg.get("pooling_mode_mean_tokens"):
                return "mean"
            if cfg.get("pooling_mode_cls_token"):
                return "first"
            if cfg.get("pooling_mode_lasttoken"):
                return "last"
            raise CBenchError(f"the encoder's pooling ({folder / m.get('path', '')}) has no model2vec equivalent (mean, cls or last token)", source=SOURCE)
    return "mean"


class _Bar:
    """Stand-in for the tqdm bar model2vec opens while it encodes the vocabulary: a Rich task
    when the progress display is on, silent otherwise (no tqdm lines in logs or --quiet)."""

    def __init__(self, progress: Any, *args: Any, total: int | None = None, desc: str | None = None, **kwargs: Any):
        self.progress = progress
        self.task = progress.add(desc or "distilling", total=total) if progress is not None else None

    def update(self, n: int = 1) -> None:
        if self.task is not None:
            self.progress.advance(self.task, n)

    def close(self) -> None:
        if self.task is not None:
            self.progress.finish(self.task)
            self.task = None

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@contextlib.contextmanager
def model2vec_progress(progress: Any) -> Iterator[None]:
    """Route model2vec's vocabulary-encoding progress bar into ours while distilling."""
    import model2vec.distill.inference as inference

    original = getattr(inference, "tqdm", None)
    if original is None:  # another model2vec version: leave its own bar alone
        yield
        return
    shown = progress if progress is not None and getattr(progress, "enabled", False) else None
    inference.tqdm = lambda *a, **k: _Bar(shown, *a, **k)
    try:
        yield
    finally:
        inference.tqdm = original


def _import_distill():
    try:
        from model2vec.distill import distill
    except ImportError as e:
        # model2vec says "`skeletoken`, is required ..." without setting ImportError.name.
        found = re.search(r"`([^`]+)`", str(e))
        missing = getattr(e, "name", None) or (found.group(1) if found else str(e).splitlines()[0])
        hint = install_hint(SKELETOKEN_PIN, no_deps=True) if missing == "skeletoken" else install_hint(missing)
        raise CBenchError(f"needs model2vec's distill extra; module '{missing}' is not installed: {hint}", source=SOURCE) from None
    return distill


def _set_card_license(readme: Path, license_: str | None) -> None:
    """model2vec's card says `license: mit`; a distilled model inherits the encoder's licence."""
    if not readme.is_file():
        return
    text = readme.read_text()
    value = license_ or "other"
    readme.write_text(re.sub(r"^license: .*$", f"license: {value}", text, count=1, flags=re.MULTILINE))


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def distill_submission(
    ref: str,
    out: Path,
    *,
    pca_dims: int | None,
    quantize_to: str,
    device: str,
    trust_remote_code: bool,
    overwrite: bool,
    submissions_dir: list[Path] | None,
    progress: Any,
) -> dict[str, Any]:
    """Distill the encoder that ``ref`` names into ``out``; returns a summary."""
    from harness.model_refs import check_remote_code, resolve_model
    from harness.submissions import Registry

    try:
        sub = Registry(submissions_dir).resolve(ref)
    except CBenchError as e:
        if e.source == "--model":
            raise CBenchError(e.message, source="--from") from None
        raise
    if sub.kind != "encoder":
        raise CBenchError(f"'{sub.name}' is a {sub.kind} submission; distill needs an encoder (a sentence-transformers model)", source=SOURCE, field="--from")
    distill = _import_distill()  # before anything is loaded or fetched
    sub.check_built()
    cfg = sub.config
    source = f"{sub.path} (submission {sub.name})" if sub.path else f"submission {sub.name}"
    resolved = resolve_model(cfg.model, cfg.revision, source=source)
    remote = check_remote_code(cfg.trust_remote_code, trust_remote_code, source)
    folder = Path(resolved.location)
    pooling = pooling_of(folder)
    out = out.expanduser()
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise CBenchError("exists and is not empty; pass --overwrite to replace it", source=out, field="--out")

    t0 = time.perf_counter()
    try:
        with model2vec_progress(progress):
            model = distill(
                model_name=str(folder),
                pca_dims=pca_dims,
                device=device,
                quantize_to=quantize_to,
                pooling=pooling,
                trust_remote_code=remote,
            )
    except (OSError, ValueError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise CBenchError(f"distillation of {cfg.model} failed: {msg}", source=SOURCE) from None
    seconds = time.perf_counter() - t0

    # Name the base model by its reference, not by this machine's path to it.
    model.base_model_name = cfg.model
    model.config["tokenizer_name"] = cfg.model
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:8]}"
    try:
        model.save_pretrained(tmp, model_name=out.name)
        _set_card_license(tmp / "README.md", cfg.license)
        if out.exists():
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "submission": sub.name,
        "model": cfg.model,
        "model_source": resolved.source,
        "pooling": pooling,
        "tokens": int(model.embedding.shape[0]),
        "dims": int(model.dim),
        "dtype": str(model.embedding.dtype),
        "bytes": _folder_size(out),
        "seconds": seconds,
        "out": out,
    }


def distill_cmd(
    from_: Annotated[str, typer.Option("--from", help="Encoder submission (name or YAML) or a model id / folder.")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the static model to.")],
    pca_dims: Annotated[int, typer.Option("--pca-dims", min=0, help="PCA dimensions (0: keep the encoder's, no PCA).")] = 256,
    quantize_to: Annotated[Quantize, typer.Option("--quantize-to", help="Storage type of the token vectors.")] = Quantize.float16,
    device: Annotated[str, typer.Option("--device", help="cpu, cuda, mps ...")] = "cpu",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace --out if it is not empty.")] = False,
    trust_remote_code: Annotated[bool, typer.Option("--trust-remote-code", help="Allow encoders that ask for it to run their own code.")] = False,
    submissions_dir: Annotated[list[Path] | None, typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Distill a static (model2vec) model from an encoder submission, offline, and save it. Needs the skeletoken package, """ \
    """which make install leaves out: the command says how to install it."""

    from harness.ui import Progress, setup_logging

    setup_logging(quiet)
    try:
        with Progress(enabled=not quiet and sys.stderr.isatty()) as progress:
            if not quiet:
                err_console.print(f"distilling {from_} (pca_dims={pca_dims or 'none'}, {quantize_to.value}) ...", highlight=False)
            summary = distill_submission(
                from_,
                out,
                pca_dims=pca_dims or None,
                quantize_to=quantize_to.value,
                device=device,
                trust_remote_code=trust_remote_code,
                overwrite=overwrite,
                submissions_dir=submissions_dir,
                progress=progress,
            )
    except CBenchError as e:
        fail(e)
    s = summary
    out_console.print(
        f"wrote {s['out']}: {s['tokens']} tokens x {s['dims']} dims, {s['dtype']}, {s['bytes'] / 1e6:.1f} MB, "
        f"from {s['model']} ({s['model_source']}, {s['pooling']} pooling) in {s['seconds']:.0f} s",
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command("distill")(distill_cmd)

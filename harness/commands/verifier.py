"""`cbench train-verifier`: train a CNN/Transformer verifier on the nearmiss train split."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.errors import CBenchError


def training_triplets(suite_name: str = "nearmiss", split: str = "train", identity: bool = True) -> tuple[list[tuple[str, str, str]], str]:
    """(anchor, positive, negative) of the suite's ``split`` and the data file it came from.

    Five-text items give their four comparisons (every positive against every negative).
    With ``identity`` each item also gives identity triplets (anchor, anchor, negative), as in
    the reference experiment's training data: without them a verifier can learn the shortcut
    "near-identical token map = near-miss" and reject exact repeats (seen here: the first
    transformer trained on rewrites only scored identical texts below their near-misses)."""
    from harness.data.nearmiss import NearMissItem, Triplet, identity_triplets, read_records
    from harness.suites.registry import resolve_suite

    suite = resolve_suite(suite_name, None)
    records: list = []
    sources = []
    for f in suite.config.files:
        path = suite._locate(f)  # noqa: SLF001 - same resolution rules as the suite
        sources.append(str(path))
        records += [r for r in read_records(path, suite.config.format) if isinstance(r, (Triplet, NearMissItem)) and r.split == split]
    if not records:
        raise CBenchError(f"no '{split}' records", source=", ".join(sources) or suite_name)
    if identity:
        return identity_triplets(records), ", ".join(sources)
    out: list[tuple[str, str, str]] = []
    for r in records:
        out += r.triplets() if isinstance(r, NearMissItem) else [(r.anchor, r.positive, r.negative)]
    return out, ", ".join(sources)


def record_provenance(out: Path, *, encoder: str, fingerprint: str, max_length: int, suite: str, source: str, identity: bool) -> None:
    """Add what the trainer cannot know to config.json: encoder, token length, data, command."""
    import json
    import shlex
    import sys

    from harness.atomic import atomic_write_text
    from harness.paths import PROJECT_ROOT

    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text())
    files = [str(Path(p).resolve().relative_to(PROJECT_ROOT)) if Path(p).resolve().is_relative_to(PROJECT_ROOT) else p for p in source.split(", ")]
    cfg.update(
        encoder=encoder,
        encoder_weights_fingerprint=fingerprint,
        token_max_length=max_length,
        train_data={"suite": suite, "split": "train", "files": files, "identity_positives": identity},
        command=shlex.join(["cbench", *sys.argv[1:]]) if sys.argv[1:2] == ["train-verifier"] else None,
    )
    atomic_write_text(cfg_path, json.dumps(cfg, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    @app.command("train-verifier")
    def train_verifier_cmd(
        encoder: Annotated[str, typer.Option("--encoder", help="Encoder submission whose token embeddings build the maps.")],
        arch: Annotated[str, typer.Option("--arch", help="cnn | transformer (mean/maxsim/align have no parameters).")],
        out: Annotated[Path, typer.Option("--out", help="Output folder for checkpoint, config and curves.")],
        end_to_end: Annotated[bool, typer.Option("--end-to-end", help="Also fine-tune the encoder (slow on CPU).")] = False,
        train_layers: Annotated[
            int | None,
            typer.Option("--train-layers", min=1, help="With --end-to-end: train only the encoder's top N layers and save them as encoder-delta.safetensors."),
        ] = None,
        encoder_lr: Annotated[float, typer.Option("--encoder-lr", help="With --end-to-end: the encoder's learning rate.")] = 2e-5,
        steps: Annotated[int, typer.Option("--steps", min=1)] = 1000,
        batch_size: Annotated[int, typer.Option("--batch-size", min=2)] = 32,
        lr: Annotated[float, typer.Option("--lr")] = 1e-4,
        seed: Annotated[int, typer.Option("--seed")] = 13,
        temperature: Annotated[float, typer.Option("--temperature")] = 0.1,
        max_length: Annotated[int, typer.Option("--max-length")] = 128,
        suite: Annotated[str, typer.Option("--suite", help="Near-miss suite whose train split is used.")] = "nearmiss",
        identity: Annotated[bool, typer.Option("--identity-positives/--no-identity-positives", help="Add (anchor, anchor, near-miss) triplets.")] = True,
        device: Annotated[str, typer.Option("--device")] = "cpu",
        quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    ) -> None:
        """Train a verifier with the reference loss (in-batch positives + own near-miss, T=0.1)."""
        import torch

        from harness.run_context import RunContext
        from harness.scorers.encoder import EncoderScorer
        from harness.scorers.verifier import VerifierConfig, VerifierScorer
        from harness.simmap_nets.train import train_verifier
        from harness.submissions import Registry, build_submission_scorer
        from harness.ui import Progress, err_console, fail, setup_logging

        setup_logging(quiet)
        try:
            if train_layers and not end_to_end:
                raise CBenchError("--train-layers needs --end-to-end", source="--train-layers")
            if arch not in {"cnn", "transformer"}:
                raise CBenchError(f"'{arch}' has no parameters to train; choose cnn or transformer", source="--arch")
            triplets, source = training_triplets(suite, identity=identity)
            registry = Registry()
            with Progress(enabled=not quiet) as progress:
                ctx = RunContext(device=device, progress=progress)
                enc = build_submission_scorer(registry.get(encoder, source="--encoder"), ctx, registry)
                if not isinstance(enc, EncoderScorer):
                    raise CBenchError(f"'{encoder}' is not an encoder submission", source="--encoder")
                helper = VerifierScorer(
                    VerifierConfig(name="train-tokens", kind="verifier", first_stage=encoder, encoder=encoder, arch="maxsim", max_length=max_length),
                    ctx,
                    first_stage=enc,
                    encoder=enc,
                )
                task = progress.add(f"training {arch}", total=steps)
                done = 0

                def on_step(step: int, total: int, record: dict) -> None:
                    nonlocal done
                    progress.advance(task, step - done)
                    done = step

                torch.manual_seed(seed)
                report = train_verifier(
                    arch,
                    triplets,
                    None if end_to_end else (lambda texts: helper.tokens(texts, "token embeddings (train)")),
                    out,
                    steps=steps,
                    batch_size=batch_size,
                    lr=lr,
                    seed=seed,
                    temperature=temperature,
                    max_length=max_length,
                    end_to_end_model=enc.model if end_to_end else None,
                    train_layers=train_layers,
                    encoder_lr=encoder_lr,
                    progress=on_step,
                )
            if end_to_end and train_layers:  # the trained top layers, applied by the encoder kind's weights_delta
                from harness.simmap_nets.train import save_encoder_delta

                save_encoder_delta(enc.model, train_layers, out / "encoder-delta.safetensors")
            elif end_to_end:  # the fine-tuned encoder belongs to the verifier: save it beside the checkpoint
                enc.model.save(str(out / "encoder"))
            record_provenance(out, encoder=encoder, fingerprint=enc.weights_fingerprint, max_length=max_length, suite=suite, source=source, identity=identity)
        except CBenchError as e:
            fail(e)
        err_console.print(
            f"trained {arch} on {len(triplets)} triplets from {source}: final loss {report.get('final_loss', float('nan')):.4f}, "
            f"accuracy {report.get('final_accuracy', float('nan')):.3f}; wrote {out}",
            highlight=False,
        )

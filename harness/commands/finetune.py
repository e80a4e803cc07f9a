"""`cbench finetune`: fine-tune a sentence-transformers encoder (MNRL), run the paper's A/B recipe, or
train a cross-encoder verifier on a near-miss train split (`--recipe cross-encoder`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from harness.errors import CBenchError


def register(app: typer.Typer) -> None:
    @app.command("finetune")
    def finetune_cmd(
        base: Annotated[str, typer.Option("--base", help="Encoder submission name, submission YAML, or model folder / hub id.")],
        out: Annotated[Path, typer.Option("--out", help="Output folder: model/, <name>.yaml, checkpoints/, curves.json/png.")],
        train: Annotated[
            Path | None,
            typer.Option("--train", help="Triplet/pair file: CSV/TSV/JSONL/JSON (anchor, positive[, negative]; NQ-style JSON lists), optionally .gz."),
        ] = None,
        structural: Annotated[
            list[Path] | None,
            typer.Option(
                "--structural",
                help="Near-miss records (items/triplets JSONL, pairs CSV) added as identity triplets (anchor, anchor, negative). Repeatable.",
            ),
        ] = None,
        recipe: Annotated[
            str | None,
            typer.Option(
                "--recipe",
                help="paper-ab: Model A (meaning pairs) vs Model B (+ identity triplets), same steps, every seed. cross-encoder: the base's weights under a "
                "new one-logit head, BCE on (anchor, positive)=1, (anchor, near-miss | unrelated text)=0 pairs of --data-suite's train split (or --train).",
            ),
        ] = None,
        seeds: Annotated[str | None, typer.Option("--seeds", help="With --recipe: comma-separated seeds, e.g. 13,14,15.")] = None,
        arms: Annotated[
            str,
            typer.Option("--arms", help="With --recipe paper-ab: which arms to train (a, b or a,b); one per process trains them in parallel."),
        ] = "a,b",
        data_suite: Annotated[
            str,
            typer.Option("--data-suite", help="With --recipe: near-miss suite whose TRAIN split gives the pairs and structural negatives."),
        ] = "nearmiss",
        steps: Annotated[
            int | None,
            typer.Option("--steps", min=1, help="Optimizer steps (same for A and B) [default: 3375; cross-encoder: one pass over its pairs]."),
        ] = None,
        batch_size: Annotated[int | None, typer.Option("--batch-size", min=2, help="[default: 128; cross-encoder: 32]")] = None,
        lr: Annotated[float | None, typer.Option("--lr", help="[default: 1e-4; cross-encoder: 2e-5]")] = None,
        weight_decay: Annotated[float | None, typer.Option("--weight-decay", help="[default: 0.001; cross-encoder: 0.01]")] = None,
        warmup_ratio: Annotated[float | None, typer.Option("--warmup-ratio", min=0.0, max=1.0, help="[default: 0.1]")] = None,
        scale: Annotated[float | None, typer.Option("--scale", help="MNRL scale (1 / temperature) [default: 10].")] = None,
        max_seq_length: Annotated[int | None, typer.Option("--max-seq-length", min=8, help="[default: 128]; cross-encoder: tokens of the pair")] = None,
        seed: Annotated[int, typer.Option("--seed")] = 13,
        eval_suite: Annotated[str | None, typer.Option("--eval-suite", help="Near-miss suite evaluated every --eval-every steps (NearMissEvaluator).")] = None,
        eval_retrieval: Annotated[
            str | None,
            typer.Option("--eval-retrieval", help="Retrieval suite (local data, e.g. nanobeir or a BEIR folder) evaluated every --eval-every steps."),
        ] = None,
        eval_every: Annotated[int, typer.Option("--eval-every", min=1, help="Evaluate (and log) every N steps.")] = 250,
        save_every: Annotated[
            int | None,
            typer.Option("--save-every", min=1, help="Checkpoint every N steps (resume point after a kill) [default: 250; cross-encoder: 100]."),
        ] = None,
        name: Annotated[str | None, typer.Option("--name", help="Submission name (default ft-<base>-s<seed>; with --recipe a prefix).")] = None,
        device: Annotated[str, typer.Option("--device")] = "cpu",
        fp16: Annotated[bool | None, typer.Option("--fp16/--no-fp16", help="Mixed precision (default: on for CUDA, as the reference).")] = None,
        keep_checkpoints: Annotated[
            bool,
            typer.Option("--keep-checkpoints", help="Keep OUT/checkpoints after a run completes (default: deleted; model/ holds the weights)."),
        ] = False,
        threads: Annotated[int | None, typer.Option("--threads", min=1, help="torch CPU threads (on a busy shared CPU, 1 can be much faster).")] = None,
        overwrite: Annotated[bool, typer.Option("--overwrite", help="Delete a previous run in --out and train again.")] = False,
        trust_remote_code: Annotated[bool, typer.Option("--trust-remote-code")] = False,
        submissions_dir: Annotated[list[Path] | None, typer.Option("--submissions-dir")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    ) -> None:
        """Fine-tune an encoder with SentenceTransformerTrainer + MultipleNegativesRankingLoss
        (--recipe cross-encoder: train a cross-encoder verifier with BCE instead).

        Writes OUT/model (last-step weights) and OUT/<name>.yaml (kind: encoder, or cross-encoder,
        with provenance); rerun the same command after a kill to resume from OUT/checkpoints."""
        from harness.ui import err_console, fail, setup_logging

        setup_logging(quiet)
        if quiet:
            import os

            os.environ["TQDM_DISABLE"] = "1"  # sentence-transformers' model-card and encode bars
        try:
            if recipe not in (None, "paper-ab", "cross-encoder"):
                raise CBenchError(f"unknown recipe '{recipe}'; known: paper-ab, cross-encoder", source="--recipe")
            if seeds is not None and recipe is None:
                raise CBenchError("--seeds needs --recipe (use --seed for one run)", source="--seeds")
            if recipe == "paper-ab" and structural:
                raise CBenchError("paper-ab takes its structural negatives from --data-suite's train split", source="--structural")
            if recipe is None and train is None and not structural:
                raise CBenchError("nothing to train on: give --train and/or --structural (or --recipe paper-ab)", source="--train")
            seed_list = _seeds(seeds) if seeds else [seed]
            arm_list = _arms(arms)
            if arm_list != ["a", "b"] and recipe != "paper-ab":
                raise CBenchError("--arms needs --recipe paper-ab", source="--arms")
            if name is not None and not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$", name):
                raise CBenchError("use letters, digits, '.', '_' and '-' (at most 80)", source="--name")

            from harness.finetune.data import read_structural_file, read_train_file
            from harness.finetune.train import Settings, resolve_base

            train_data = read_train_file(train) if train is not None else None
            given = {
                "steps": steps, "batch_size": batch_size, "lr": lr, "weight_decay": weight_decay, "warmup_ratio": warmup_ratio,
                "max_seq_length": max_seq_length, "save_every": save_every,
            }
            given = {k: v for k, v in given.items() if v is not None}
            if threads:
                import torch

                torch.set_num_threads(threads)
            if recipe == "cross-encoder":
                prov = _cross_encoder(
                    base, out, train_data, data_suite, given, seed=seed, fp16=fp16, device=device, name=name, overwrite=overwrite, quiet=quiet,
                    keep_checkpoints=keep_checkpoints, submissions_dir=submissions_dir, trust_remote_code=trust_remote_code,
                    refused={"--seeds": seeds, "--structural": structural, "--scale": scale, "--eval-suite": eval_suite, "--eval-retrieval": eval_retrieval},
                )
                err_console.print(
                    f"trained {prov['final_step']} steps ({prov['seconds_per_step']} s/step) on {prov['data']['pairs']} pairs; wrote {out / 'model'}",
                    highlight=False, soft_wrap=True, markup=False,
                )
                return
            structural_data = [read_structural_file(p) for p in structural or []]
            settings = Settings(**given, **({"scale": scale} if scale is not None else {}), seed=seed, eval_every=eval_every, fp16=fp16, device=device)

            def make_evaluator():
                if not eval_suite and not eval_retrieval:
                    return None
                from sentence_transformers.evaluation import SequentialEvaluator

                from harness.finetune.evaluator import NearMissEvaluator, retrieval_evaluators

                evs = [NearMissEvaluator.from_suite(eval_suite)] if eval_suite else []
                evs += retrieval_evaluators(eval_retrieval) if eval_retrieval else []
                return evs[0] if len(evs) == 1 else SequentialEvaluator(evs)

            base_model = resolve_base(base, device, submissions_dir, trust_remote_code)
            if recipe == "paper-ab":
                from harness.finetune.recipe import run_paper_ab

                def done(key, sub, prov):
                    err_console.print(
                        f"{key}: {prov['final_step']} steps, {prov['seconds_per_step']} s/step; wrote {sub}", highlight=False, soft_wrap=True, markup=False
                    )

                summary = run_paper_ab(
                    base_model, out, settings, seed_list, data_suite=data_suite, train_file=train_data,
                    make_evaluator=make_evaluator, prefix=name, overwrite=overwrite, quiet=quiet, on_done=done, keep_checkpoints=keep_checkpoints,
                    arms=arm_list,
                )
                err_console.print(f"paper-ab: {len(summary['runs'])} runs; summary {out / 'paper-ab.json'}", highlight=False, markup=False)
                return
            from harness.finetune.train import finetune

            run_name = name or f"ft-{base_model.submission}-s{seed}"
            data = [*([train_data] if train_data else []), *structural_data]
            prov = finetune(
                base_model, data, out, settings, name=run_name, evaluator=make_evaluator(), overwrite=overwrite, quiet=quiet, keep_checkpoints=keep_checkpoints
            )
        except CBenchError as e:
            fail(e)
        err_console.print(
            f"trained {prov['final_step']} steps ({prov['seconds_per_step']} s/step); wrote {out / 'model'} and {out / (run_name + '.yaml')}",
            highlight=False,
            soft_wrap=True,
        )


def _arms(text: str) -> list[str]:
    out = [s.strip().lower() for s in text.split(",") if s.strip()]
    if not out or any(a not in ("a", "b") for a in out) or len(set(out)) != len(out):
        raise CBenchError(f"'{text}' is not a list of arms: give a, b or a,b", source="--arms")
    return sorted(out)


def _seeds(text: str) -> list[int]:
    try:
        out = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise CBenchError(f"'{text}' is not a comma-separated list of integers", source="--seeds") from None
    if not out or len(set(out)) != len(out):
        raise CBenchError("give distinct seeds, e.g. 13,14,15", source="--seeds")
    return out


def _cross_encoder(
    base: str, out: Path, train_data, data_suite: str, given: dict, *, seed: int, fp16: bool | None, device: str, name: str | None,
    overwrite: bool, quiet: bool, keep_checkpoints: bool, submissions_dir: list[Path] | None, trust_remote_code: bool, refused: dict,
) -> dict:
    """--recipe cross-encoder (harness.finetune.cross_encoder): settings not given keep the recipe's."""
    import shlex
    import sys

    from harness.finetune.cross_encoder import CrossSettings, cross_encoder_data, train_cross_encoder
    from harness.finetune.train import resolve_base

    for option, value in refused.items():
        if value:
            raise CBenchError("not used by the cross-encoder recipe (BCE on labelled pairs; no evaluation during training)", source=option)
    if "max_seq_length" in given:
        given["max_length"] = given.pop("max_seq_length")
    settings = CrossSettings(**given, seed=seed, fp16=fp16, device=device)
    data = cross_encoder_data(settings, data_suite, train_data)  # evaluation data is refused before a model loads
    base_model = resolve_base(base, device, submissions_dir, trust_remote_code)
    command = shlex.join(["cbench", *sys.argv[1:]]) if sys.argv[1:2] == ["finetune"] else None
    return train_cross_encoder(
        base_model, data, out, settings, name=name or f"ce-{base_model.submission}-s{seed}", first_stage=base_model.submission,
        command=command, overwrite=overwrite, quiet=quiet, keep_checkpoints=keep_checkpoints,
    )

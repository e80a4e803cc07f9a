"""One fine-tuning run: SentenceTransformerTrainer + MultipleNegativesRankingLoss, checkpoints
every N steps (a killed run resumes from its last checkpoint), last-step weights saved as a model
folder beside a generated `kind: encoder` submission YAML, loss/evaluation curves as JSON + PNG.

Defaults follow the reference recipe (``train.py`` and ``run_experiments.sh`` of
github.com/radoslavralev/limitations-text-retrieval, the all-MiniLM-L6-v2 row): MNRL with cosine and scale
10, AdamW (adamw_torch), linear schedule with warmup ratio 0.1, batch 128, lr 1e-4, weight decay
0.001, max_seq_length 128, drop_last, the default (duplicate-allowing) batch sampler, fp16 on CUDA.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import CBenchError
from harness.finetune.data import Row, TrainFile

log = logging.getLogger("cbench")

RUN_FILE = "finetune-run.json"  # settings + data of the run in this folder (checked on resume)
CURVES_JSON = "curves.json"
CURVES_PNG = "curves.png"
COLUMNS = ("anchor", "positive", "negative")


@dataclass
class Settings:
    steps: int = 3375
    batch_size: int = 128
    lr: float = 1e-4
    weight_decay: float = 0.001
    warmup_ratio: float = 0.1
    scale: float = 10.0
    max_seq_length: int = 128
    seed: int = 13
    save_every: int = 250
    eval_every: int | None = None
    log_every: int | None = None
    fp16: bool | None = None  # None: on for CUDA (as the reference), off otherwise
    device: str = "cpu"

    def identity(self) -> dict:
        """What must not change between a run and its resumption."""
        d = asdict(self)
        for k in ("eval_every", "log_every", "device", "save_every"):
            d.pop(k)
        return d


@dataclass
class BaseModel:
    """The encoder to start from, resolved from a submission or a model path / hub id."""

    reference: str  # what --base said
    submission: str  # the submission's name
    model: str  # its model field
    location: str  # what is loaded
    fingerprint: str
    scorer: Any = field(repr=False, default=None)

    def provenance(self) -> dict:
        return {"reference": self.reference, "submission": self.submission, "model": self.model, "weights_fingerprint": self.fingerprint}


def resolve_base(ref: str, device: str = "cpu", submissions_dirs: list[Path] | None = None, trust_remote_code: bool = False) -> BaseModel:
    from harness.scorers.base import RunContext
    from harness.scorers.encoder import EncoderScorer
    from harness.submissions import Registry

    registry = Registry(submissions_dirs)
    try:
        sub = registry.resolve(ref)
    except CBenchError as e:
        e.source = e.source if e.source and e.source != "--model" else "--base"
        raise
    if sub.kind != "encoder":
        raise CBenchError(f"'{sub.name}' is a {sub.kind} submission; fine-tuning needs kind encoder", source="--base")
    ctx = RunContext(device=device, trust_remote_code=trust_remote_code, use_cache=False)
    config = sub.config.model_copy(update={"backend": "torch"})  # training needs the torch model; same weights
    scorer = EncoderScorer(config, ctx, base_dir=sub.path.parent if sub.path else None)
    if sub.config.query_prompt or sub.config.document_prompt:
        log.warning("%s has prompts; fine-tuning and the generated submission use none", sub.name)
    return BaseModel(ref, sub.name, sub.config.model, scorer.resolved.location, scorer.weights_fingerprint, scorer)


def build_dataset(groups: list[TrainFile], batch_size: int):
    """One Dataset when all rows have the same number of texts (rows mix freely in batches, as in
    the reference's single CSV); otherwise a DatasetDict of pairs and triplets, each batch drawn
    from one of them in proportion to its size (ST's PROPORTIONAL multi-dataset sampler)."""
    from datasets import Dataset, DatasetDict

    by_arity: dict[int, list[Row]] = {}
    for g in groups:
        by_arity.setdefault(g.arity, []).extend(g.rows)
    parts = {}
    for arity, rows in sorted(by_arity.items()):
        if len(rows) < batch_size:
            raise CBenchError(f"{len(rows)} rows with {arity} texts, fewer than one batch of {batch_size} (batches drop the remainder)", source="--batch-size")
        parts["pairs" if arity == 2 else "triplets"] = Dataset.from_dict({c: [r[i] for r in rows] for i, c in enumerate(COLUMNS[:arity])})
    if len(parts) == 1:
        return next(iter(parts.values()))
    return DatasetDict(parts)


def _callbacks(out: Path, timings: dict):
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        """Seconds per optimizer step (forward, backward, update; not evaluation or saving)."""

        def on_step_begin(self, args, state, control, **kw):
            self.t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            timings.setdefault("steps", []).append(time.perf_counter() - self.t0)

    class CurveWriter(TrainerCallback):
        """curves.json after every log / evaluation, so a long run can be watched."""

        def on_log(self, args, state, control, logs=None, **kw):
            write_curves(out, state.log_history, timings, png=False)

    return [StepTimer(), CurveWriter()]


def curves_from(log_history: list[dict]) -> dict:
    loss = [[h["step"], h["loss"]] for h in log_history if "loss" in h and "step" in h]
    evals: dict[str, list] = {}
    for h in log_history:
        for k, v in h.items():
            if k.startswith("eval_") and isinstance(v, (int, float)) and k not in {
                "eval_runtime",
                "eval_samples_per_second",
                "eval_steps_per_second",
                "eval_loss",
            }:
                evals.setdefault(k[5:], []).append([h["step"], v])
    lr = [[h["step"], h["learning_rate"]] for h in log_history if "learning_rate" in h]
    return {"train_loss": loss, "learning_rate": lr, "eval": evals}


def write_curves(out: Path, log_history: list[dict], timings: dict, png: bool = True) -> None:
    from harness.atomic import atomic_write_text

    data = curves_from(log_history)
    steps = timings.get("steps", [])
    data["seconds_per_step"] = sum(steps) / len(steps) if steps else None
    data["steps_timed"] = len(steps)
    atomic_write_text(out / CURVES_JSON, json.dumps(data, indent=1) + "\n")
    if png:
        plot_curves(data, out / CURVES_PNG)


def plot_curves(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = data["eval"]
    # the axes worth plotting: near-miss accuracy / AUROC / false accepts, retrieval nDCG@10
    keys = [k for k in evals if k.endswith(("triplet_accuracy", "tot_accuracy", "auroc", "false_accept@95", "ndcg@10"))] or list(evals)[:6]
    fig, axes = plt.subplots(1, 2 if keys else 1, figsize=(11 if keys else 6, 4), squeeze=False)
    ax = axes[0][0]
    if data["train_loss"]:
        s, v = zip(*data["train_loss"], strict=True)
        ax.plot(s, v, marker=".")
    ax.set(title="training loss (MNRL)", xlabel="step", ylabel="loss")
    if keys:
        ax = axes[0][1]
        for k in keys:
            s, v = zip(*evals[k], strict=True)
            ax.plot(s, v, marker=".", label=k)
        ax.set(title="evaluation", xlabel="step")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _check_or_write_run(out: Path, run: dict, resuming: bool) -> None:
    from harness.atomic import atomic_write_text

    path = out / RUN_FILE
    if resuming and path.is_file():
        key = _other_key(path, run, ("settings", "data", "base"))
        if key:
            raise CBenchError(f"{out} holds checkpoints of a run with other {key}; use another --out or --overwrite", source=path, field=key)
        return
    atomic_write_text(path, json.dumps(run, indent=2) + "\n")


def _other_key(path: Path, run: dict, keys) -> str | None:
    """The first of ``keys`` on which the run record at ``path`` differs from ``run``."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise CBenchError(f"cannot read the run record: {e}", source=path) from None
    return next((k for k in keys if old.get(k) != run[k]), None)


def last_complete_checkpoint(ckpt_dir: Path) -> str | None:
    """The newest checkpoint-N folder whose trainer_state.json (the Trainer writes it after the
    weights, optimizer, scheduler and RNG states) is readable. Newer, incomplete folders (a kill
    during saving) are deleted so the resumed run can write them again."""
    if not ckpt_dir.is_dir():
        return None
    found = sorted((int(p.name.split("-")[1]), p) for p in ckpt_dir.glob("checkpoint-*") if p.is_dir() and p.name.split("-")[1].isdigit())
    for _step, p in reversed(found):
        try:
            json.loads((p / "trainer_state.json").read_text())
            return str(p)
        except (OSError, ValueError):
            log.warning("checkpoint %s is incomplete (killed while saving?); removing it", p)
            shutil.rmtree(p, ignore_errors=True)
    return None


REBUILD_DIR = "rebuild"  # where a rebuild of committed-provenance weights writes its own record


@dataclass
class OutPlan:
    """Where a training run writes. ``work`` is ``out``, except when ``out`` holds the committed
    provenance of a finished run (its YAML and run file) but not the weights, which are not
    committed: the run then trains again in ``out/rebuild`` (its own YAML, curves and run file;
    the committed ones are left as they are) and moves the weights to ``out/model``."""

    out: Path
    work: Path
    sub_path: Path  # the YAML this run writes
    ckpt_dir: Path
    last: str | None  # the checkpoint to resume from

    @property
    def rebuild(self) -> bool:
        return self.work != self.out

    def finish(self) -> None:
        """Put a rebuild's weights where the committed YAML reads them."""
        if self.rebuild:
            os.replace(self.work / "model", self.out / "model")
            log.warning("rebuilt %s from the provenance in %s; this run's own record is in %s", self.out / "model", self.out, self.work)


def prepare_out(out: Path, name: str, overwrite: bool, run: dict) -> OutPlan:
    """Clear ``out`` when overwriting, refuse a finished run, plan a rebuild of missing weights,
    find the checkpoint to resume from and write (or check) the run record."""
    sub_path = out / f"{name}.yaml"
    if overwrite and out.exists():
        for p in ("checkpoints", "model", REBUILD_DIR, RUN_FILE, CURVES_JSON, CURVES_PNG, sub_path.name):
            target = out / p
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    work = out
    if sub_path.exists():
        if (out / "model").exists() or not (out / RUN_FILE).is_file():
            raise CBenchError(f"already trained ({sub_path} exists); use --overwrite to train again", source="--out")
        key = _other_key(out / RUN_FILE, run, run)  # a rebuild must be the committed run: same base weights, settings, data
        if key:
            raise CBenchError(
                f"the weights are missing and the committed run had other {key}, so training again would not rebuild them; "
                "use --overwrite to train a new model",
                source=out / RUN_FILE,
                field=key,
            )
        work = out / REBUILD_DIR
    ckpt_dir = work / "checkpoints"
    last = last_complete_checkpoint(ckpt_dir)
    work.mkdir(parents=True, exist_ok=True)
    _check_or_write_run(work, run, resuming=last is not None)
    return OutPlan(out=out, work=work, sub_path=work / sub_path.name, ckpt_dir=ckpt_dir, last=last)


def trainer_arguments(
    args_cls: Any,
    ckpt_dir: Path,
    *,
    steps: int,
    batch_size: int,
    lr: float,
    weight_decay: float,
    warmup_ratio: float,
    seed: int,
    device: str,
    fp16: bool,
    logging_steps: int,
    save_every: int,
    quiet: bool,
    eval_every: int | None = None,
) -> Any:
    """The training arguments every recipe shares (AdamW, linear schedule with warmup, drop_last,
    a checkpoint every ``save_every`` steps, two kept); ``args_cls`` is the trainer's own class."""
    cuda = device.startswith("cuda")
    return args_cls(
        output_dir=str(ckpt_dir),
        max_steps=steps,
        per_device_train_batch_size=batch_size,
        learning_rate=lr,
        weight_decay=weight_decay,
        warmup_ratio=warmup_ratio,
        lr_scheduler_type="linear",
        optim="adamw_torch",
        seed=seed,
        fp16=fp16,
        use_cpu=not cuda and not device.startswith("mps"),
        dataloader_drop_last=True,
        dataloader_pin_memory=cuda,
        logging_steps=logging_steps,
        save_strategy="steps",
        save_steps=save_every,
        save_total_limit=2,
        eval_strategy="steps" if eval_every else "no",
        eval_steps=eval_every,
        eval_on_start=bool(eval_every),
        report_to="none",
        disable_tqdm=quiet,
    )


def train_resumable(trainer: Any, out: Path, last: str | None, quiet: bool) -> float:
    """Run ``trainer`` from checkpoint ``last`` (or from the start); returns this process's wall seconds."""
    if quiet:  # disable_tqdm swaps the progress bar for a printer of every log dict
        from transformers.trainer_callback import PrinterCallback

        trainer.remove_callback(PrinterCallback)
    if last:
        log.warning("resuming %s from %s", out, Path(last).name)
    t0 = time.perf_counter()
    trainer.train(resume_from_checkpoint=last)
    return time.perf_counter() - t0


def step_provenance(trainer: Any, last: str | None, timings: dict, wall: float) -> dict:
    """Where the run ended, where it resumed from, and how long its steps took."""
    steps_timed = timings.get("steps", [])
    return {
        "final_step": trainer.state.global_step,
        "resumed_from_step": int(Path(last).name.rsplit("-", 1)[-1]) if last else None,
        "seconds_per_step": round(sum(steps_timed) / len(steps_timed), 4) if steps_timed else None,
        "steps_timed": len(steps_timed),
        "train_seconds_this_process": round(wall, 1),
    }


def finetune(
    base: BaseModel,
    data: list[TrainFile],
    out: Path,
    settings: Settings,
    *,
    name: str,
    evaluator: Any = None,
    callbacks: list | None = None,
    overwrite: bool = False,
    quiet: bool = False,
    extra_provenance: dict | None = None,
    keep_checkpoints: bool = False,
) -> dict:
    """Train, save ``out/model`` and ``out/<name>.yaml``; resume from ``out/checkpoints`` when a
    previous run of the same settings was killed. Returns the provenance written to the YAML."""
    import transformers
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.losses import MultipleNegativesRankingLoss

    run = {"base": base.provenance(), "settings": settings.identity(), "data": [d.provenance() for d in data], "name": name}
    plan = prepare_out(Path(out), name, overwrite, run)
    out, ckpt_dir, last = plan.work, plan.ckpt_dir, plan.last

    transformers.set_seed(settings.seed)
    model = base.scorer.model
    model.max_seq_length = settings.max_seq_length
    dataset = build_dataset(data, settings.batch_size)
    cuda = settings.device.startswith("cuda")
    fp16 = cuda if settings.fp16 is None else settings.fp16
    eval_every = settings.eval_every if evaluator is not None else None
    log_every = settings.log_every or min(eval_every or 50, 50, settings.steps)
    args = trainer_arguments(
        SentenceTransformerTrainingArguments,
        ckpt_dir,
        steps=settings.steps,
        batch_size=settings.batch_size,
        lr=settings.lr,
        weight_decay=settings.weight_decay,
        warmup_ratio=settings.warmup_ratio,
        seed=settings.seed,
        device=settings.device,
        fp16=fp16,
        logging_steps=log_every,
        save_every=settings.save_every,
        quiet=quiet,
        eval_every=eval_every,
    )
    timings: dict = {}
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        loss=MultipleNegativesRankingLoss(model, scale=settings.scale),
        evaluator=evaluator,
        callbacks=[*_callbacks(out, timings), *(callbacks or [])],
    )
    wall = train_resumable(trainer, out, last, quiet)
    if eval_every and trainer.state.global_step % eval_every:  # the last-step weights, evaluated
        trainer.evaluate()
    model.save(str(out / "model"), create_model_card=False)
    write_curves(out, trainer.state.log_history, timings)
    prov = {
        "tool": "cbench finetune",
        "base": base.provenance(),
        "data": [d.provenance() for d in data],
        "loss": {"name": "MultipleNegativesRankingLoss", "scale": settings.scale, "similarity": "cosine"},
        **settings.identity(),
        **step_provenance(trainer, last, timings, wall),
        "device": settings.device,
        "fp16": fp16,
        "weights": "last step",
        "curves": {"json": CURVES_JSON, "png": CURVES_PNG},
        **(extra_provenance or {}),
    }
    write_submission(plan.sub_path, name=name, base=base, settings=settings, provenance=prov, model=model)
    if not keep_checkpoints:  # the run is complete: model/ holds its weights; optimizer states are large
        shutil.rmtree(ckpt_dir, ignore_errors=True)
    plan.finish()
    return prov


def write_submission(path: Path, *, name: str, base: BaseModel, settings: Settings, provenance: dict, model: Any) -> None:
    import yaml

    from harness.atomic import atomic_write_text
    from harness.submissions import load_submission

    data = {
        "name": name,
        "kind": "encoder",
        "description": f"{base.submission} fine-tuned by cbench finetune: MNRL (scale {settings.scale:g}), {settings.steps} steps, seed {settings.seed}",
        "model": "./model",
        "max_seq_length": settings.max_seq_length,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "provenance": provenance,
    }
    header = "# Generated by `cbench finetune`. Evaluate: cbench run --model " + str(path) + "\n"
    atomic_write_text(path, header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    load_submission(path)  # the generated file must validate

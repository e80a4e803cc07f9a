"""`cbench finetune --recipe cross-encoder`: a sentence-transformers CrossEncoder verifier trained
with binary cross-entropy on labelled pairs from a near-miss suite's TRAIN split.

Model: the base encoder's transformer weights (e.g. all-MiniLM-L6-v2 from its offline package,
resolved like the submission) under a freshly initialised, seeded classification head with one
output (``AutoModelForSequenceClassification``, num_labels 1, as ``CrossEncoder`` builds it).

Pairs (text a, text b, label), all from TRAIN records only (the test split and evaluation-only
suites are refused, see harness.finetune.data):
- five-text items: (anchor, pos_close) = 1, (anchor, pos_far) = 1, (anchor, neg_close) = 0,
  (anchor, neg_far) = 0: both surface distances of both kinds;
- triplets: (anchor, positive) = 1, (anchor, negative) = 0; ``--train`` rows alike (pairs: the
  positive only);
- ``unrelated_per_item`` unrelated pairs per record: (anchor, a text of a record of another frame)
  = 0, the text drawn by a seeded generator. Without them every training pair shares its wording
  and the model could learn "similar wording = match" (and, as a reranker, score off-topic
  candidates high).

Settings (:class:`CrossSettings`) were fixed here before any evaluation; training runs in
sentence-transformers' CrossEncoderTrainer (a SentenceTransformerTrainer), so checkpoints, resume
after a kill, the run-identity check and the curves are those of harness.finetune.train. Output:
``OUT/model`` (the last-step CrossEncoder), ``OUT/<name>.yaml`` (a ``kind: cross-encoder``
submission with the provenance), ``OUT/finetune-run.json``, ``OUT/curves.json|png``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.errors import CBenchError
from harness.finetune.data import TrainFile
from harness.finetune.train import BaseModel

log = logging.getLogger("cbench")

RECIPE = "cross-encoder"
COLUMNS = ("text_a", "text_b", "label")


@dataclass(frozen=True)
class CrossSettings:
    """The recipe's settings, fixed before any evaluation.

    ``steps`` None trains ``epochs`` passes over the pairs (``epochs x (pairs // batch_size)``
    optimizer steps, the last partial batch of each pass dropped); a number trains exactly that
    many steps. ``max_items`` keeps a seeded random subset of the training records (None: all).

    CPU-sized: one step of 32 pairs (MiniLM-L6, ~40 tokens a pair) measured 3.3 s of CPU on one
    core of this 2-core machine while it was busy, so the whole nearmiss v2 train split (7,000
    items, 35,000 pairs, 1,093 steps) would take about 60 minutes; 5,000 items (a seeded subset
    covering the split's frames; 25,000 pairs, 781 steps) keep it under 45."""

    epochs: int = 1
    steps: int | None = None
    batch_size: int = 32
    lr: float = 2e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_length: int = 128
    unrelated_per_item: int = 1
    max_items: int | None = 5000
    seed: int = 13
    save_every: int = 100
    fp16: bool | None = None  # None: on for CUDA, off otherwise
    device: str = "cpu"

    def identity(self) -> dict:
        """What must not change between a run and its resumption."""
        d = asdict(self)
        for k in ("save_every", "device"):
            d.pop(k)
        return d


@dataclass(frozen=True)
class Unit:
    """One training record: its anchor, positives, near-miss negatives and the group (generator
    frame) whose texts are not unrelated to it."""

    group: str
    anchor: str
    positives: tuple[str, ...]
    negatives: tuple[str, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        return (self.anchor, *self.positives, *self.negatives)


def units_from_records(records: list) -> list[Unit]:
    """Units of near-miss records (five-text items, triplets); the group is the frame, else the id."""
    from harness.data.nearmiss import NearMissItem

    out = []
    for r in records:
        group = r.frame or r.id
        if isinstance(r, NearMissItem):
            out.append(Unit(group, r.anchor, (r.pos_close, r.pos_far), (r.neg_close, r.neg_far)))
        else:
            out.append(Unit(group, r.anchor, (r.positive,), (r.negative,)))
    return out


def units_from_rows(rows: list[tuple[str, ...]]) -> list[Unit]:
    """Units of ``--train`` rows (anchor, positive[, negative]); rows of one anchor are one group."""
    return [Unit(r[0], r[0], (r[1],), tuple(r[2:])) for r in rows]


def labelled_pairs(units: list[Unit], unrelated_per_item: int, seed: int) -> list[tuple[str, str, int]]:
    """(a, b, label) for every unit, in unit order: positives (1), near-misses (0), then
    ``unrelated_per_item`` texts of units of other groups (0), drawn by ``random.Random(seed)``."""
    rng = random.Random(seed)
    if unrelated_per_item and len({u.group for u in units}) < 2:
        raise CBenchError("unrelated pairs need records of at least two frames", source="training data")
    out: list[tuple[str, str, int]] = []
    for u in units:
        out += [(u.anchor, p, 1) for p in u.positives]
        out += [(u.anchor, n, 0) for n in u.negatives]
        for _ in range(unrelated_per_item):
            other = units[rng.randrange(len(units))]
            while other.group == u.group:
                other = units[rng.randrange(len(units))]
            out.append((u.anchor, rng.choice(other.texts), 0))
    return out


def pairs_sha256(pairs: list[tuple[str, str, int]]) -> str:
    """sha256 of the pairs in training order (JSON, UTF-8): identifies what was trained on."""
    blob = json.dumps(pairs, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


@dataclass
class CrossData:
    """The labelled pairs and where they came from."""

    pairs: list[tuple[str, str, int]]
    files: list[TrainFile]
    source: str  # "suite <name>, split train" or "--train"
    records: int  # training records (items, triplets, rows) the pairs come from

    def provenance(self) -> dict:
        pos = sum(1 for _, _, y in self.pairs if y == 1)
        files = [f.provenance() for f in self.files]
        for f in files:
            if f["role"] == "suite-train":
                f.pop("rows")  # its records are counted in the note
        return {
            "source": self.source,
            "files": files,
            "records_used": self.records,
            "pairs": len(self.pairs),
            "positive_pairs": pos,
            "negative_pairs": len(self.pairs) - pos,
            "pairs_sha256": pairs_sha256(self.pairs),
        }


def cross_encoder_data(settings: CrossSettings, data_suite: str = "nearmiss", train_file: TrainFile | None = None) -> CrossData:
    """Labelled pairs from ``data_suite``'s TRAIN split, or from ``train_file`` when given (already
    read by harness.finetune.data.read_train_file, which refuses test rows and evaluation files)."""
    from harness.finetune.data import suite_train_records

    if train_file is not None:
        units, files, source = units_from_rows(train_file.rows), [train_file], "--train"
    else:
        records, files = suite_train_records(data_suite)
        units, source = units_from_records(records), f"suite {data_suite}, split train"
    if settings.max_items is not None and settings.max_items < len(units):
        keep = sorted(random.Random(settings.seed).sample(range(len(units)), settings.max_items))
        units = [units[i] for i in keep]
    pairs = labelled_pairs(units, settings.unrelated_per_item, settings.seed)
    if len(pairs) < settings.batch_size:
        raise CBenchError(f"{len(pairs)} pairs, fewer than one batch of {settings.batch_size} (batches drop the remainder)", source="--batch-size")
    return CrossData(pairs, files, source, len(units))


def total_steps(settings: CrossSettings, n_pairs: int) -> int:
    return settings.steps if settings.steps is not None else settings.epochs * (n_pairs // settings.batch_size)


def train_cross_encoder(
    base: BaseModel,
    data: CrossData,
    out: Path,
    settings: CrossSettings,
    *,
    name: str,
    first_stage: str,
    rerank_depth: int = 100,
    command: str | None = None,
    callbacks: list | None = None,
    overwrite: bool = False,
    quiet: bool = False,
    keep_checkpoints: bool = False,
) -> dict:
    """Train, save ``out/model`` and ``out/<name>.yaml``; resume from ``out/checkpoints`` when a
    previous run of the same base, settings and pairs was killed. Returns the provenance."""
    import transformers
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    from harness.finetune.train import _callbacks, prepare_out, step_provenance, train_resumable, trainer_arguments, write_curves

    if getattr(base.scorer.config, "weights_delta", None):
        raise CBenchError(f"'{base.submission}' applies a weights_delta; a cross-encoder starts from a plain model folder", source="--base")
    out = Path(out)
    steps = total_steps(settings, len(data.pairs))
    if steps < 1:
        raise CBenchError("no optimizer step to take", source="--steps")
    identity = {**settings.identity(), "steps": steps}
    run = {"recipe": RECIPE, "base": base.provenance(), "settings": identity, "data": data.provenance(), "name": name}
    plan = prepare_out(out, name, overwrite, run)
    out, ckpt_dir, last = plan.work, plan.ckpt_dir, plan.last

    transformers.set_seed(settings.seed)  # the new classification head's initial weights
    cuda = settings.device.startswith("cuda")
    fp16 = cuda if settings.fp16 is None else settings.fp16
    model = CrossEncoder(base.location, num_labels=1, max_length=settings.max_length, device=settings.device, local_files_only=True)
    dataset = Dataset.from_dict({c: [p[i] for p in data.pairs] for i, c in enumerate(COLUMNS)})
    args = trainer_arguments(
        CrossEncoderTrainingArguments,
        ckpt_dir,
        steps=steps,
        batch_size=settings.batch_size,
        lr=settings.lr,
        weight_decay=settings.weight_decay,
        warmup_ratio=settings.warmup_ratio,
        seed=settings.seed,
        device=settings.device,
        fp16=fp16,
        logging_steps=min(50, steps),
        save_every=settings.save_every,
        quiet=quiet,
    )
    timings: dict = {}
    trainer = CrossEncoderTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        loss=BinaryCrossEntropyLoss(model),
        callbacks=[*_callbacks(out, timings), *(callbacks or [])],
    )
    wall = train_resumable(trainer, out, last, quiet)
    model.save(str(out / "model"))
    write_curves(out, trainer.state.log_history, timings)
    prov = {
        "tool": f"cbench finetune --recipe {RECIPE}",
        "command": command,
        "base": base.provenance(),
        "head": "new classification head (num_labels 1), seeded",
        "data": data.provenance(),
        "loss": {"name": "BinaryCrossEntropyLoss", "labels": "positive 1; near-miss and unrelated 0"},
        **identity,
        **step_provenance(trainer, last, timings, wall),
        "device": settings.device,
        "fp16": fp16,
        "weights": "last step",
        "curves": {"json": "curves.json", "png": "curves.png"},
    }
    write_submission(plan.sub_path, name=name, base=base, first_stage=first_stage, rerank_depth=rerank_depth, settings=settings, provenance=prov, model=model)
    if not keep_checkpoints:  # the run is complete: model/ holds its weights; optimizer states are large
        shutil.rmtree(ckpt_dir, ignore_errors=True)
    plan.finish()
    return prov


def write_submission(
    path: Path, *, name: str, base: BaseModel, first_stage: str, rerank_depth: int, settings: CrossSettings, provenance: dict, model: Any
) -> None:
    import yaml

    from harness.atomic import atomic_write_text
    from harness.submissions import load_submission

    data = {
        "name": name,
        "kind": "cross-encoder",
        "description": f"{base.submission} as a cross-encoder (new head) trained by cbench finetune --recipe {RECIPE}: "
        f"BCE on near-miss train pairs, seed {settings.seed}",
        "model": "./model",
        "max_length": settings.max_length,
        "activation": "sigmoid",
        "first_stage": first_stage,
        "rerank_depth": rerank_depth,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "provenance": provenance,
    }
    header = f"# Generated by `cbench finetune --recipe {RECIPE}`. Evaluate: cbench run --model {path}\n"
    atomic_write_text(path, header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    load_submission(path)  # the generated file must validate

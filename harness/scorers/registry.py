"""The one place where submission kinds are registered."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import CBenchError
from harness.scorers.base import RunContext, Scorer, SubmissionBase
from harness.scorers.control import ControlScorer
from harness.scorers.cross_encoder import CrossEncoderScorer
from harness.scorers.encoder import EncoderScorer
from harness.scorers.late_interaction import LateInteractionScorer
from harness.scorers.lexical import LexicalScorer
from harness.scorers.static import StaticScorer
from harness.scorers.verifier import VerifierScorer

SCORER_CLASSES: list[type[Scorer]] = [
    EncoderScorer,
    StaticScorer,
    LexicalScorer,
    LateInteractionScorer,
    CrossEncoderScorer,
    VerifierScorer,
    ControlScorer,
]
if TYPE_CHECKING:
    from harness.submissions import Submission

SCORERS: dict[str, type[Scorer]] = {cls.kind: cls for cls in SCORER_CLASSES}


def build_scorer(config: SubmissionBase, ctx: RunContext, base_dir: Path | None = None) -> Scorer:
    return SCORERS[config.kind](config, ctx, base_dir)


def build_submission_scorer(sub: Submission, ctx: RunContext) -> Scorer:
    """The scorer of a submission, built once per run (a first stage and an encoder named by
    several submissions share one loaded model)."""
    key = f"{sub.name}:{sub.hash}"
    if key not in ctx.scorers:
        if len(ctx.scorers) > 32 or key in ctx.building:
            raise CBenchError("first_stage/encoder references form a cycle", source=str(sub.path or sub.name), field="first_stage")
        ctx.building.add(key)
        try:
            ctx.scorers[key] = build_scorer(sub.config, ctx, sub.path.parent if sub.path else None)
        finally:
            ctx.building.discard(key)
    return ctx.scorers[key]

"""The one place where submission kinds are registered."""

from __future__ import annotations

from harness.scorers.base import RunContext, Scorer, SubmissionBase
from harness.scorers.encoder import EncoderScorer
from harness.scorers.static import StaticScorer
from harness.scorers.lexical import LexicalScorer
from harness.scorers.late_interaction import LateInteractionScorer
from harness.scorers.cross_encoder import CrossEncoderScorer

SCORER_CLASSES: list[type[Scorer]] = [
    EncoderScorer,
    StaticScorer,
    LexicalScorer,
    LateInteractionScorer,
    CrossEncoderScorer,
]
SCORERS: dict[str, type[Scorer]] = {cls.kind: cls for cls in SCORER_CLASSES}


def build_scorer(config: SubmissionBase, ctx: RunContext) -> Scorer:
    return SCORERS[config.kind](config, ctx)

"""The one place where submission kinds (scorer classes) are registered: one line per kind.

Building a submission's scorer (with the scorers it builds on) is
harness.submissions.registry.build_submission_scorer."""

from __future__ import annotations

from harness.scorers.base import Scorer
from harness.scorers.control import ControlScorer
from harness.scorers.cross_encoder import CrossEncoderScorer
from harness.scorers.encoder import EncoderScorer
from harness.scorers.fusion import FusionScorer
from harness.scorers.late_interaction import LateInteractionScorer
from harness.scorers.lexical import LexicalScorer
from harness.scorers.static import StaticScorer
from harness.scorers.tfidf import TfidfScorer
from harness.scorers.verifier import VerifierScorer

SCORER_CLASSES: list[type[Scorer]] = [
    EncoderScorer,
    StaticScorer,
    LexicalScorer,
    TfidfScorer,
    LateInteractionScorer,
    CrossEncoderScorer,
    VerifierScorer,
    FusionScorer,
    ControlScorer,
]
SCORERS: dict[str, type[Scorer]] = {cls.kind: cls for cls in SCORER_CLASSES}

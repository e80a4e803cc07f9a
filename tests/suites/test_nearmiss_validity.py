"""The composition suites cannot be won without reading for meaning.

Every control in submissions/controls/ (surface similarities in both directions, and blind
classifiers that see only the candidate) must sit at or below 0.60 main score on `nearmiss` (v2)
and `nearmiss-hand`, and at or below 0.65 in every category (the known exceptions are listed
below, category by category). The same limits hold on `nearmiss-dev`, the generated dev split
that thresholds are set on. The same controls catch v1: its
"least like the anchor" scorer beats every model there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.run_context import RunContext
from harness.suites.base import EvalOptions
from harness.suites.registry import resolve_suite
from harness.surface import FEATURES

ROOT = Path(__file__).resolve().parents[2]
CONTROLS = sorted((ROOT / "submissions" / "controls").glob("*.yaml"))
MAX_MAIN, MAX_CATEGORY = 0.60, 0.65


def build(path: Path, ctx: RunContext):
    from harness.submissions.registry import build_submission_scorer, load_submission

    return build_submission_scorer(load_submission(path), ctx)


def suite_scores(suite_name: str, scorer) -> tuple[float, dict[str, float]]:
    suite = resolve_suite(suite_name, None)
    cats = {c: suite.evaluate(scorer, suite.load(c), EvalOptions()).metrics["triplet_accuracy"] for c in suite.dataset_names()}
    return sum(cats.values()) / len(cats), cats


def test_every_surface_feature_has_a_control_in_both_directions():
    from harness.submissions.registry import load_submission

    configs = [load_submission(p).config for p in CONTROLS]
    surface = {(c.feature, c.negate) for c in configs if not c.feature.startswith("blind")}
    assert surface == {(f, n) for f in FEATURES for n in (False, True)}
    assert {c.feature for c in configs} >= {"blind-tfidf", "blind-embedding"}


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return RunContext(cache_root=tmp_path_factory.mktemp("cache"))


# Known violations of the per-category limit, category by category (measured with controls
# breaking ties by a coin flip). The test asserts exactly this set: a new violation fails it, and
# so does a listed one that no longer exceeds the limit, until its entry goes. All are on
# `nearmiss-hand`, where a category has 25 items (100 comparisons), so each is within noise of the
# limit; the hand-written set is evaluation data and is not edited to please a control.
KNOWN_CATEGORY_VIOLATIONS = {
    ("control-bm25-neg", "nearmiss-hand"): {"temporal_order": 0.74, "attribute_binding": 0.68},
    ("control-char3-neg", "nearmiss-hand"): {"role_swap": 0.67},
    ("control-jaccard-neg", "nearmiss-hand"): {"role_swap": 0.66},
    ("control-prefix-neg", "nearmiss-hand"): {"spatial": 0.66},
}
CASES = [(c, s) for s in ("nearmiss", "nearmiss-hand", "nearmiss-dev") for c in CONTROLS]


# Controls whose scores are read from their committed results instead of recomputed: the blind
# MiniLM control encodes the whole nearmiss train split (about 36k texts, most of the test suite's
# time on 2 cores). The results must be current (same submission and suite hashes as now, else the
# test fails); `make leaderboard` recomputes them, and CBENCH_RECOMPUTE_CONTROLS=1 recomputes here.
# A suite with no committed results for such a control (nearmiss-dev, a dev suite) is checked only
# with CBENCH_RECOMPUTE_CONTROLS=1, and skipped otherwise.
FROM_COMMITTED = {"control-blind-minilm"}
COMMITTED = ROOT / "leaderboard" / "results"


def committed_scores(control: Path, suite_name: str) -> tuple[float, dict[str, float]]:
    from harness.results import Results
    from harness.submissions.registry import load_submission

    path = COMMITTED / control.stem / f"{suite_name}.json"
    r = Results.model_validate_json(path.read_text())
    assert r.complete, path
    assert r.metadata.submission_hash == load_submission(control).hash, f"{path} is stale: the control changed"
    assert r.metadata.suite_hash == resolve_suite(suite_name, None).hash, f"{path} is stale: the suite changed"
    cats = {c: m["triplet_accuracy"] for c, m in r.datasets.items()}
    return sum(cats.values()) / len(cats), cats


@pytest.fixture(scope="module")
def scores(ctx):
    """(control, suite) -> (main, per-category), computed once for both tests."""
    cache: dict = {}
    recompute = os.environ.get("CBENCH_RECOMPUTE_CONTROLS") == "1"

    def get(control: Path, suite_name: str):
        if (control.stem, suite_name) not in cache:
            if control.stem in FROM_COMMITTED and not recompute:
                if not (COMMITTED / control.stem / f"{suite_name}.json").is_file():
                    pytest.skip(f"no committed {control.stem}/{suite_name}.json: CBENCH_RECOMPUTE_CONTROLS=1 computes it")
                cache[(control.stem, suite_name)] = committed_scores(control, suite_name)
            else:
                cache[(control.stem, suite_name)] = suite_scores(suite_name, build(control, ctx))
        return cache[(control.stem, suite_name)]

    return get


@pytest.mark.slow
@pytest.mark.parametrize(("control", "suite_name"), CASES, ids=[f"{c.stem}-{s}" for c, s in CASES])
def test_control_main_score_sits_at_chance(control, suite_name, scores):
    main, cats = scores(control, suite_name)
    assert main <= MAX_MAIN, (control.stem, suite_name, main, cats)


@pytest.mark.slow
@pytest.mark.parametrize(("control", "suite_name"), CASES, ids=[f"{c.stem}-{s}" for c, s in CASES])
def test_control_sits_at_chance_in_every_category(control, suite_name, scores):
    _main, cats = scores(control, suite_name)
    over = {c: round(v, 2) for c, v in cats.items() if v > MAX_CATEGORY}
    assert over == KNOWN_CATEGORY_VIOLATIONS.get((control.stem, suite_name), {}), (control.stem, suite_name)


def test_v1_is_won_by_a_surface_control(ctx):
    """The "least like the anchor" control scores on v1 what its committed result says, category by
    category, and that beats every model on the leaderboard there."""
    main, cats = suite_scores("nearmiss-v1", build(ROOT / "submissions" / "controls" / "control-seqratio-neg.yaml", ctx))
    results = {p.parent.name: json.loads(p.read_text()) for p in (ROOT / "leaderboard" / "results").glob("*/nearmiss-v1.json")}
    committed = results["control-seqratio-neg"]
    assert cats == pytest.approx({c: d["triplet_accuracy"] for c, d in committed["datasets"].items()}, abs=1e-12)
    assert main == pytest.approx(committed["main_score"], abs=1e-12)
    models = [r["main_score"] for r in results.values() if r["metadata"]["submission_config"]["kind"] != "control"]
    assert models and main > max(models)

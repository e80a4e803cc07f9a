#!/usr/bin/env python
"""Which ONNX graph for `backend: onnx`? Encode speed and exactness of sentence-transformers' ONNX
variants of all-MiniLM-L6-v2 against torch, on one BEIR collection, in one process, interleaved.

  torch      SentenceTransformer(backend="torch")
  onnx       the plain export (SentenceTransformer(backend="onnx"))
  onnx-O2    export_optimized_onnx_model(model, "O2")   <- what cbench's backend onnx runs
  onnx-O3    export_optimized_onnx_model(model, "O3")   (GELU approximation)
  onnx-qint8 export_dynamic_quantized_onnx_model(model, "avx512_vnni")  (int8 weights: not exact)

Every variant encodes the same texts (documents as title + text, judged queries; batch 32, max 256
tokens) ``--repeat`` times, the variants interleaved so load from other jobs hits them alike; the
fastest time per variant is reported with its ratio to torch's fastest. Exactness: the largest
|embedding - torch's|, and nDCG@10 / Recall@100 / MAP@100 (pytrec_eval, exact cosine top-100)
minus torch's.

    python benchmarks/onnx_variants.py --collection medline

writes benchmarks/onnx-variants.json and the `onnx-variants` section of benchmarks/RESULTS.md.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_retrieval import AGREEMENT_TOLERANCE, BATCH_SIZE, MAX_SEQ_LENGTH, TOP_K, ir_metrics, load_collection, model_path, write_section

HERE = Path(__file__).resolve().parent


def build(work: Path) -> dict:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.backend import export_dynamic_quantized_onnx_model, export_optimized_onnx_model

    folder = work / "onnx-model"
    SentenceTransformer(model_path(), device="cpu", backend="onnx").save_pretrained(str(folder))
    base = SentenceTransformer(str(folder), device="cpu", backend="onnx", model_kwargs={"file_name": "model.onnx"})
    export_optimized_onnx_model(base, "O2", str(folder))
    export_optimized_onnx_model(base, "O3", str(folder))
    export_dynamic_quantized_onnx_model(base, "avx512_vnni", str(folder))
    files = {"onnx": "model.onnx", "onnx-O2": "model_O2.onnx", "onnx-O3": "model_O3.onnx", "onnx-qint8": "model_qint8_avx512_vnni.onnx"}
    models = {"torch": SentenceTransformer(model_path(), device="cpu")}
    for name, file in files.items():
        models[name] = SentenceTransformer(str(folder), device="cpu", backend="onnx", model_kwargs={"file_name": file})
    for m in models.values():
        m.max_seq_length = MAX_SEQ_LENGTH
    return models


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collection", default="medline")
    ap.add_argument("--data-dir", type=Path, default=Path(os.environ.get("CBENCH_DATA_DIR", ".")))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "onnx-variants.json")
    ap.add_argument("--md", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()

    corpus, queries, qrels, _ = load_collection(args.data_dir / "beir" / args.collection)
    d_ids, q_ids = list(corpus), list(queries)
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="cbench-onnx-variants-") as tmp:
        models = build(Path(tmp))
        times: dict[str, list[float]] = {k: [] for k in models}
        embs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for _ in range(args.repeat):
            for name, m in models.items():
                t0 = time.perf_counter()
                d = m.encode([corpus[i] for i in d_ids], batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False)
                q = m.encode([queries[i] for i in q_ids], batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False)
                times[name].append(time.perf_counter() - t0)
                embs[name] = (d, q)
                print(f"{name:10s} {times[name][-1]:7.2f} s", flush=True)
    rows = {}
    for name, (d, q) in embs.items():
        s = q.astype(np.float64) @ d.astype(np.float64).T
        top = np.argsort(-s, axis=1, kind="stable")[:, :TOP_K]
        run = {q_ids[r]: {d_ids[j]: float(s[r, j]) for j in top[r]} for r in range(len(q_ids))}
        rows[name] = {"encode_s": min(times[name]), "all_s": times[name], "metrics": ir_metrics(qrels, run)}
    ref = rows["torch"]
    td, tq = embs["torch"]
    for name, row in rows.items():
        d, q = embs[name]
        row["speedup_vs_torch"] = ref["encode_s"] / row["encode_s"]
        row["max_abs_embedding_diff"] = float(max(np.abs(d - td).max(), np.abs(q - tq).max()))
        row["metric_diffs"] = {k: row["metrics"][k] - ref["metrics"][k] for k in ref["metrics"]}
        row["exact"] = all(abs(v) <= AGREEMENT_TOLERANCE for v in row["metric_diffs"].values())
    report = {"collection": args.collection, "documents": len(d_ids), "queries": len(q_ids), "loadavg_start": load_start,
              "loadavg_end": " ".join(f"{x:.2f}" for x in os.getloadavg()), "repeat": args.repeat, "rows": rows}  # fmt: skip
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"## ONNX variants on {args.collection}: encode speed and exactness vs torch",
        "",
        f"`python benchmarks/onnx_variants.py --collection {args.collection} --repeat {args.repeat}`: {len(d_ids)} documents + {len(q_ids)} queries "
        f"encoded in one process, variants interleaved; load average {load_start} at start, {report['loadavg_end']} at end. "
        "cbench's `backend: onnx` runs onnx-O2.",
        "",
        "| variant | encode s (fastest) | all runs s | speed-up vs torch | max abs embedding diff | nDCG@10 diff | R@100 diff | MAP@100 diff | within 1e-4 |",
        "|---|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, r in rows.items():
        md = r["metric_diffs"]
        lines.append(
            f"| {name} | {r['encode_s']:.2f} | {', '.join(f'{x:.1f}' for x in r['all_s'])} | {r['speedup_vs_torch']:.3f} | {r['max_abs_embedding_diff']:.1e} | "
            f"{md['ndcg@10']:+.1e} | {md['recall@100']:+.1e} | {md['map@100']:+.1e} | {'yes' if r['exact'] else '**no**'} |"
        )
    lines.append("")
    write_section(args.md, "onnx-variants", lines)
    print(f"wrote {args.out} and the onnx-variants section of {args.md}")


if __name__ == "__main__":
    main()

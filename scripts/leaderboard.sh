#!/usr/bin/env bash
# Regenerates the committed leaderboard: every shipped offline submission on every suite that
# runs offline here, then the four leaderboard files. Finished datasets are reused; pass
# --overwrite to recompute everything. Needs CBENCH_DATA_DIR (e.g. ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
CBENCH=${CBENCH:-cbench}
SUBMISSIONS=(all-MiniLM-L6-v2 bm25 minilm-static minilm-mean minilm-maxsim minilm-align minilm-cnn minilm-transformer)
SUITES=(--suite classic-ir --suite nearmiss --suite sugarcrepe-pp)
for sub in "${SUBMISSIONS[@]}"; do
  "$CBENCH" run --model "$sub" "${SUITES[@]}" "$@"
done
"$CBENCH" leaderboard

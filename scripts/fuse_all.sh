#!/usr/bin/env bash
# Fits every shipped reranker's fused row (`cbench fuse`): z(first stage) + w * z(reranker), the two
# global normalisations and w set on offline-ir-dev (SciFact train, NFCorpus dev; development
# queries only, checked disjoint from every test query) by the rule "largest w of the grid within
# 0.01 development nDCG@10 of the first stage". Writes submissions/<reranker>-fused.yaml (replacing
# an existing one) and keeps the development runs in runs/dev/results (a rerun reuses them).
# Needs CBENCH_DATA_DIR (the BEIR folders). RERANKERS="minilm-cnn minilm-maxsim" fits only those;
# extra arguments go to every `cbench fuse`.
set -euo pipefail
cd "$(dirname "$0")/.."
CBENCH=${CBENCH:-cbench}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-${OMP_NUM_THREADS:-1}}
ALL=(minilm-mean minilm-maxsim minilm-align minilm-cnn-frozen minilm-transformer-frozen minilm-cnn minilm-transformer
     minilm-cross mpnet-mean mpnet-maxsim mpnet-align)
read -r -a RERANKERS <<< "${RERANKERS:-${ALL[*]}}"
for v in "${RERANKERS[@]}"; do
  t0=$SECONDS
  "$CBENCH" fuse --verifier "$v" --force --quiet "$@"
  echo "fuse_all.sh: $v took $((SECONDS - t0)) s" >&2
done

#!/usr/bin/env bash
# Measures the scoring cost of every shipped submission (`cbench cost`: ms per near-miss pair and,
# for kinds with retrieval, ms per Medline query) into leaderboard/cost/<name>.json, which the
# leaderboard shows as its ms/pair and ms/query columns. Run it on a quiet machine: the timings are
# wall-clock (each file also records CPU time and the load average before and after). A submission
# whose weights are not here (a hub model not in the local cache, a checkpoint not built) is
# skipped with a message; any other failure is reported, the others are still timed, and the
# script exits 1 at the end. Needs CBENCH_DATA_DIR (Medline). Extra arguments go to every `cbench cost` (e.g. --repeats 5);
# MODELS="bm25 control-jaccard" times only those.
# Then rebuild the page: PAGE_ONLY=1 scripts/leaderboard.sh
set -uo pipefail
cd "$(dirname "$0")/.."
CBENCH=${CBENCH:-cbench}
# One torch thread by default, as the other scripts here: every submission timed alike. Set
# OMP_NUM_THREADS to time another setting (each file records torch's thread count).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-${OMP_NUM_THREADS:-1}}
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} TRANSFORMERS_OFFLINE=${TRANSFORMERS_OFFLINE:-1}
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" -v c="$cpus" 'BEGIN { exit !(l > c / 2) }'; then
  echo "cost_all.sh: warning: load average $load on $cpus CPUs; wall-clock timings will be inflated" >&2
fi
# One process for all of them: rerankers over the same first stage build its Medline index once
# (each file records that build's timing). A submission that fails does not stop the others.
models=()
for file in submissions/*.yaml submissions/controls/*.yaml; do
  name=$(sed -n 's/^name: *//p' "$file" | head -n 1)
  if [[ -n ${MODELS:-} && " $MODELS " != *" $name "* ]]; then continue; fi
  models+=(--model "$name")
done
t0=$SECONDS
"$CBENCH" cost "${models[@]}" "$@"
rc=$?
echo "cost_all.sh: $(( ${#models[@]} / 2 )) submissions in $((SECONDS - t0)) s" >&2
case $rc in
  0) exit 0 ;;
  3) echo "cost_all.sh: some were skipped: their weights or data are not here (the lines above name them)" >&2; exit 0 ;;
  *) echo "cost_all.sh: some failed (exit $rc; the lines above name them)" >&2; exit 1 ;;
esac

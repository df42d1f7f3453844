# Two commands do everything on a fresh clone: `make chat` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: chat test index bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first, pinned to the CPU build, so nothing later can pull a multi-GB CUDA build.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Builds the index only when it is missing or stale (knowledge/ or the model changed).
index: $(STAMP)
	$(BIN)/gpu-advisor index ensure

chat: index
	$(BIN)/gpu-advisor chat

test: index
	$(BIN)/ruff check bot tests bench
	$(BIN)/gpu-advisor knowledge check
	$(BIN)/python -m pytest -q

bench: index
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) index/faiss index/bm25 index/encoder index/*.json index/*.npz index/*.sqlite3

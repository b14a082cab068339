# Two commands for a fresh clone with only Python 3.11:  make demo  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The only torch build available offline here; any other version would download gigabytes.
TORCH  := torch==2.13.0

.PHONY: demo test setup-demo setup-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[sklearn,text]"
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

setup-demo: $(VENV)/.demo-installed
setup-test: $(VENV)/.test-installed

demo: $(VENV)/.demo-installed
	$(BIN)/interplay demo

# pytest exits 5 when it collects no test: treat that as a failure of the suite, not a pass.
test: $(VENV)/.test-installed
	$(BIN)/python -m pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .hypothesis

# The two set-up commands: `make demo` and `make test`. Both build .venv from scratch when needed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: demo test test-slow clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.demo-installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(PY) -m frame.demo
	$(PY) -m pinn --problem poisson1d --out out/demo

# One pytest worker per core (pytest-xdist): the tests are mostly single-threaded Python.
test: $(VENV)/.test-installed
	$(PY) -m pytest -q -n auto

test-slow: $(VENV)/.test-installed
	$(PY) -m pytest -q -n auto -m slow --timeout=3600

clean:
	rm -rf $(VENV) build *.egg-info

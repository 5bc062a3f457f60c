"""End-to-end examples of frame.nn (issue 18 item 7); each script has `main(steps=..., seed=...)` and runs
as `python -m examples.<name>`. tests/nn/test_examples.py runs each at a small budget."""

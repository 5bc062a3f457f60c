"""Compiler passes, one per file. Each is a `Graph -> Graph` function that never mutates its input."""

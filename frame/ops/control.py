"""Control-flow ops with regions (issue 17): cond, while, scan. Filled by their blocks."""

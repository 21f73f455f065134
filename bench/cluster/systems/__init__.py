"""One module per system the cluster benchmark runs (README.md in this folder says what each must define)."""

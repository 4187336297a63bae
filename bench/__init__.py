"""elena_jax's benchmark suite: view-heavy imperative NumPy cases against their peers.

``python -m bench --help`` for the command line; `main` runs it from Python.
Layout: `bench.cases` (one module per case), `bench.harness` (checking and
timing one case at one size), `bench.report` (machine info, tables, plots),
`bench.cli` (the command line), `bench.overhead` (elena_jax's own overheads).
"""

from .cli import main

__all__ = ["main"]

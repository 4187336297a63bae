"""``python -m bench``: see `bench.cli`."""

from .cli import main

if __name__ == "__main__":
    main()

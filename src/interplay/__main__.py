"""``python -m interplay``: the same command line as the ``interplay`` console script (:func:`interplay.cli.main`)."""

from interplay.cli import main

if __name__ == "__main__":
    main()

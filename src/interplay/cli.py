"""The ``interplay`` command line."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="interplay")
def main() -> None:
    """interplay: Shapley-family explanations of black-box models, and how features act together."""


@main.command()
@click.option("--row", default=0, show_default=True, help="Which test row to explain.")
@click.option("--seed", default=0, show_default=True, help="Random seed for the split and the model.")
def demo(row: int, seed: int) -> None:
    """Train a model on scikit-learn's diabetes data and explain one row exactly."""
    try:
        from .demo import run_demo
        run_demo(click.echo, row=row, random_state=seed)
    except ImportError as exc:  # scikit-learn is an optional dependency
        raise click.ClickException(f"the demo needs scikit-learn and pandas: pip install 'interplay[sklearn]' ({exc})")


if __name__ == "__main__":  # pragma: no cover
    main()

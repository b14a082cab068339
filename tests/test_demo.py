"""The demo runs end to end and its numbers are consistent."""

import numpy as np
from click.testing import CliRunner

from interplay.cli import main
from interplay.demo import run_demo


def test_demo_results_are_consistent():
    lines = []
    out = run_demo(lines.append)
    shapley, biv, game = out["shapley"], out["bivariate"], out["game"]
    assert abs(shapley.values.sum() + shapley.baseline - game.grand_value()) < 1e-9
    np.testing.assert_allclose(biv.univariate.values, shapley.values, atol=1e-9)
    assert game.n_evaluations == 2**10
    assert any("bmi" in line for line in lines)


def test_cli_demo(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--row", "1", "--out", str(tmp_path / "tour")])
    assert result.exit_code == 0, result.output
    assert "Exact Shapley values" in result.output and "Bivariate Shapley matrix" in result.output


def test_cli_demo_rejects_rows_out_of_range(tmp_path):
    for row in ("500", "-1"):
        result = CliRunner().invoke(main, ["demo", "--row", row, "--no-report"])
        assert result.exit_code == 2 and "--row" in result.output, result.output

"""polyzero.polyc: the polyhedral optimiser on C source text."""
import pytest

import polyzero

SCALE = """void scale(int n, double A[1000][1000], double B[1000][1000]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = 2.0 * A[i][j];
#pragma endscop
}
"""


def test_polyc_rewrites_the_loop_nest():
    out = polyzero.polyc(SCALE)
    assert out.startswith("void scale(int n, double A[1000][1000], double B[1000][1000]) {")
    assert "#pragma scop" not in out
    assert "for (" in out
    assert "2.0 * A[" in out


def test_polyc_options_as_keywords():
    parallel = polyzero.polyc(SCALE, parallel=True, tile="off")
    assert "omp parallel for" in parallel
    assert "omp parallel for" not in polyzero.polyc(SCALE, tile=[16, 16])


def test_polyc_errors_are_value_errors():
    with pytest.raises(ValueError, match=r"3:3: unsupported construct"):
        polyzero.polyc("void f(int n, double A[10]) {\n#pragma scop\n  while (n) A[0] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(ValueError, match="unknown option 'tiles'"):
        polyzero.polyc(SCALE, tiles="auto")
    with pytest.raises(ValueError, match="fusion"):
        polyzero.polyc(SCALE, fusion="most")


def test_the_report_comes_as_a_dict():
    report = polyzero.polyc_report(SCALE, parallel=True, tile="off")
    assert report["output"] == polyzero.polyc(SCALE, parallel=True, tile="off")
    assert len(report["regions"]) == 1
    region = report["regions"][0]
    assert region["parameters"] == ["n"]
    assert [s["text"] for s in region["statements"]] == ["B[i][j] = 2.0 * A[i][j]"]
    assert region["dependences"]["raw"]          # isl text, present even when empty of pairs
    assert any("parallel" in line for line in region["passes"])
    assert report["warnings"] == [] and "S0" in report["text"]
    with pytest.raises(ValueError, match="unknown option"):
        polyzero.polyc_report(SCALE, nonsense=True)

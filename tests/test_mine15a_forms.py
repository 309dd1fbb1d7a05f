"""Forms of batch mine15a's built pastes (fixtures/mined, branch mine15a): a floor written for Python in a hand-written
environment list ("Python: 3.12+")."""

from __future__ import annotations

from tests.helpers import stated_versions


def test_a_python_floor_in_an_environment_list_is_no_interpreter_release():
    # sglang-30335's shape: "Python: 3.12+" opens a hand-written list the way check_env's first line does
    text = "### Environment\n\n  OS: Linux\n  Python: 3.12+\n  Hardware: Intel XPU / NVIDIA CUDA\n"
    assert "python" not in stated_versions(text)
    # check_env's own line (sys.version: three numbers) is still read, a source build's "+" included
    assert stated_versions("Python: 3.12.3 (main, Nov  6 2025, 13:44:16) [GCC 13.3.0]\nCUDA available: True\n") == {
        "python": "3.12.3"
    }
    assert stated_versions("Python: 3.12.0+ (heads/3.12:abc, Oct 1 2025) [GCC 13.3.0]\nCUDA available: True\n") == {
        "python": "3.12.0+"
    }

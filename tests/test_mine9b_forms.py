"""Forms that mine9b's built pastes (libraries and downstream projects, fixtures/mined) showed and nobody had read, each
in the real shape of its paste: collect_env's "Python version:" line, a Markdown list's bold or code-span labels, a
package's `pip show` field after its name."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text


def _versions(text: str) -> dict:
    report = analyze_text(text)
    return report["launches"][0]["versions"] if report["launches"] else report["versions"]


# torch's utils/collect_env.py (2.5.1 .. 2.10.0; vLLM's copy prints the same): "Python version: " + sys.version, with
# a conda build's "| packaged by ... |" (vllm-16255) or the interpreter's plain "(main, date)" (vllm-7951)
@pytest.mark.parametrize(
    ("line", "python"),
    [
        (
            "Python version: 3.9.21 | packaged by conda-forge | (main, Dec  5 2024, 13:51:40)  [GCC 13.3.0] (64-bit runtime)",
            "3.9.21",
        ),
        ("Python version: 3.9.19 (main, May  6 2024, 19:43:03)  [GCC 11.2.0] (64-bit runtime)", "3.9.19"),
    ],
)
def test_collect_env_s_python_version_line_gives_the_python_version(line, python):
    text = f"Collecting environment information...\nPyTorch version: 2.6.0+cu124\nIs debug build: False\n\n{line}\n"
    assert _versions(text) == {"torch": "2.6.0+cu124", "python": python}


def test_markdown_env_bullets_with_a_bold_label_and_colon_or_a_code_span_label():
    # openrlhf-679's "Environment Details" list: the colon inside the bold, the package names as code spans
    text = (
        "Environment Details:\n\n- **CUDA Version:** 12.1\n- **Python Packages:**\n  - `torch`: 2.5.1+cu121\n"
        "  - `vllm`: 0.6.5\n  - `deepspeed`: 0.15.0\n"
    )
    assert _versions(text) == {"cuda": "12.1", "torch": "2.5.1+cu121"}


def test_a_package_name_then_pip_show_s_version_field():
    # ktransformers-1694's environment block: "SGLang: " then pip show's "Version: 0.5.6.post1"
    text = "KTransformers/kt-kernel: latest main pulled today\nSGLang: Version: 0.5.6.post1\ntorch: 2.9.1\n"
    assert _versions(text) == {"sglang": "0.5.6.post1", "torch": "2.9.1"}

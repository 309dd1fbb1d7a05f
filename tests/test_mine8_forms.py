"""Forms that mine8a's and mine8b's built pastes showed and nobody had read: a pin of Python beside the package pins, a
capitalised "Transformers:" field, a clone of SGLang's repository at a release tag."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text


def _versions(text: str) -> dict:
    report = analyze_text(text)
    return report["launches"][0]["versions"] if report["launches"] else report["versions"]


def test_a_python_pin_among_package_pins_is_the_python_version():
    # sglang-9590's shape: a pip-freeze-like block with the interpreter written as a pin
    text = "sglang==0.4.10.post2\nsgl_kernel==0.2.8\npython==3.10.13\ntorch==2.7.1\n"
    assert _versions(text) == {"sglang": "0.4.10.post2", "sgl_kernel": "0.2.8", "python": "3.10.13", "torch": "2.7.1"}


def test_a_capitalised_transformers_field_of_a_key_value_block():
    # flashinfer-3493's shape: vLLM's and FlashInfer's environment as "Key: value" lines
    text = "```\nPython: 3.12.13\nPyTorch: 2.11.0+cu130\nTransformers: 5.9.0\n```\n"
    assert _versions(text) == {"python": "3.12.13", "torch": "2.11.0+cu130", "transformers": "5.9.0"}


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("git clone -b v0.4.9 --depth 1 https://github.com/sgl-project/sglang.git", "0.4.9"),  # sglang-7905
        ("git clone --branch v0.5.3rc0 https://github.com/sgl-project/sglang", "0.5.3rc0"),
        ("git clone --branch=v0.4.6.post5 git@github.com:sgl-project/sglang.git", "0.4.6.post5"),
        ("git clone -b main https://github.com/sgl-project/sglang.git", None),  # a branch, no release
        ("git clone -b v0.4.9 https://github.com/someone/sglang-fork.git", None),  # another repository's tag
    ],
)
def test_a_clone_of_sglang_at_a_release_tag_states_the_release(line, version):
    assert _versions(f"```\n{line}\ncd sglang\n```\n").get("sglang") == version

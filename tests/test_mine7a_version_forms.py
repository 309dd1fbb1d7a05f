"""Versions that mine7a's built pastes stated in forms nobody had read (CMake's report of what a source build found, a
wheel file pip installs), and an image tag that is no release that runs (a source checkout mounted over it)."""

from __future__ import annotations

import pytest

from tests.helpers import stated_versions


def test_a_source_builds_cmake_report_and_the_wheel_it_installs_give_versions():
    # sglang-6452's shape: scikit-build-core's CMake configure of sgl-kernel, the wheel installed before the tests
    text = (
        "```\n"
        "pip3 install dist/sgl_kernel-0.1.4-cp310-cp310-linux_x86_64.whl --force-reinstall\n"
        "*** scikit-build-core 0.11.3 using CMake 3.31.1 (wheel)\n"
        "-- The C compiler identification is GNU 11.4.0\n"
        '-- Found Python: /usr/bin/python3 (found version "3.10.12") found components: Interpreter Development.Module\n'
        '-- Found CUDA: /usr/local/cuda (found version "12.4")\n'
        "```\n"
    )
    assert stated_versions(text) == {"sgl_kernel": "0.1.4", "python": "3.10.12", "cuda": "12.4"}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # CMake 3.25.1 FindPackageHandleStandardArgs.cmake: the "suitable" forms, and FindCUDAToolkit's nvcc version
        (
            '-- Found Python3: /usr/bin/python3.12 (found suitable version "3.12.3", minimum required is "3.9")',
            {"python": "3.12.3"},
        ),
        ('-- Found CUDAToolkit: /usr/local/cuda/include (found version "12.8.93")', {"cuda": "12.8"}),
        ("uv pip install ./wheels/torch-2.9.1+cu128-cp312-cp312-manylinux_2_28_x86_64.whl", {"torch": "2.9.1+cu128"}),
        ("pip install sglang-0.5.9-py3-none-any.whl", {"sglang": "0.5.9"}),
        # a wheel only downloaded, or of a package no key names, states nothing
        ("pip download sgl_kernel-0.1.4-cp310-cp310-linux_x86_64.whl", {}),
        ("pip install dist/my_tool-1.2.3-py3-none-any.whl", {}),
        ('-- Found OpenMP_CXX: -fopenmp (found version "4.5")', {}),
        # pip's summary of an install (pip 26.3 installed_packages_summary), the name as requested
        (
            "Successfully installed flashinfer-python-0.4.1 sgl-kernel-0.3.16.post3 sglang-0.5.4.post1 torch-2.8.0+cu128",
            {"flashinfer": "0.4.1", "sgl_kernel": "0.3.16.post3", "sglang": "0.5.4.post1", "torch": "2.8.0+cu128"},
        ),
        ("Successfully installed deep_ep-1.2.1+9af0e0d", {"deep_ep": "1.2.1+9af0e0d"}),
        ("Successfully installed my-tool-1.2.3 requests-2.32.3", {}),
    ],
)
def test_each_build_form(line, versions):
    assert stated_versions(line + "\n") == versions


def test_an_image_tag_with_a_source_checkout_mounted_over_it_is_no_release():
    # sglang-40125: "unmodified source at `b8a6adad` mounted read-only into the official `lmsysorg/sglang:v0.5.17` image"
    mounted = "Unmodified source at `b8a6adad` mounted read-only into the official `lmsysorg/sglang:v0.5.17` image.\n"
    assert stated_versions(mounted) == {}
    assert stated_versions("Tested in the official `lmsysorg/sglang:v0.5.17` image.\n") == {"sglang": "0.5.17"}

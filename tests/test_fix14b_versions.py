"""review14a items 2, 3, 4, 7, 8, 16: the guards on a stated version (advice, a planned release, the project's history,
a replaced image tag) read the version's own clause, never a word elsewhere in the sentence; a dense line of names
run into their releases costs the checks once a package."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers import stated_env
from tests.helpers import stated_versions


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # item 3: advice in a later clause, and labels that open a follow-up comment, are no order
        (
            "My env: torch 2.8.0 and transformers 4.57.1, which should already include the fix from the linked PR.\n",
            {"torch": "2.8.0", "transformers": "4.57.1"},
        ),
        ("Add: I use torch 2.8.0 and transformers 4.57.1.\n", {"torch": "2.8.0", "transformers": "4.57.1"}),
        (
            "Update: I reinstalled with torch 2.8.0 and transformers 4.57.1, same crash.\n",
            {"torch": "2.8.0", "transformers": "4.57.1"},
        ),
        (
            "Use case: serving Qwen3 on H100 with torch 2.8.0 and flashinfer 0.4.0.\n",
            {"torch": "2.8.0", "flashinfer": "0.4.0"},
        ),
        ("Update: I am running sglang 0.5.3 and it crashes at startup.\n", {"sglang": "0.5.3"}),
        # the order's reach ends at its clause: the version found in parentheses is stated
        ("Please install sgl-kernel==0.3.21 (found sgl-kernel 0.3.16).\n", {"sgl_kernel": "0.3.16"}),
        # advice governing the version's own clause still drops it
        ("Use torch 2.8.0 and transformers 4.57.1.\n", {}),
        ("Please use these versions: torch 2.8.0, transformers 4.57.1\n", {}),
        ("torch 2.8.0 and transformers 4.57.1 should fix this\n", {}),
        ("I have torch 2.7.1; transformers 4.57.1 should fix this\n", {"torch": "2.7.1"}),
        # item 2: "will" of the failure says nothing of the release; a planned release is still none in use
        (
            "I am running sglang 0.5.3 and the server will crash when I send two requests at once.\n",
            {"sglang": "0.5.3"},
        ),
        ("sglang 0.5.3 will crash on two nodes\n", {"sglang": "0.5.3"}),
        ("It will be included in sglang 0.5.5\n", {}),
        ("sglang 0.5.5 will be released next week\n", {}),
        ("We plan to release this in v0.5.5.\n", {}),
        # item 4: "after" the name with what the process does then is a moment of the run
        ("The error happens right after sglang 0.5.3 finishes loading the weights.\n", {"sglang": "0.5.3"}),
        ("After sglang 0.5.3 the memory usage grew.\n", {}),
        # item 7: "to <count> <noun>" is no new tag
        (
            "We deployed lmsysorg/sglang:v0.5.11-cu129 to 4 H100 nodes and every node crashes at startup.\n",
            {"sglang": "0.5.11"},
        ),
        ("from lmsysorg/sglang:v0.5.11-cu130 to lmsysorg/sglang:v0.5.12-cu130\n", {"sglang": "0.5.12"}),
        # item 16: history words only right before the name
        ("Starting the server with torch 2.8.0 fails every time.\n", {"torch": "2.8.0"}),
        ("It has crashed since moving to torch 2.8.0 and CUDA 12.8.\n", {"torch": "2.8.0", "cuda": "12.8"}),
        ("We run it as of now on torch 2.8.0 and CUDA 12.8.\n", {"torch": "2.8.0", "cuda": "12.8"}),
        ("Since triton 3.4.0 the kernel is slower, I run CUDA 12.8.\n", {"cuda": "12.8"}),
        ("Starting with torch 2.8.0, the default changed.\n", {}),
        ("This was introduced in torch 2.8.0 and breaks us.\n", {}),
    ],
)
def test_guards_read_the_versions_own_clause(text, versions):
    assert stated_versions(text) == versions


def test_a_dense_line_of_run_together_names_checks_each_package_once(monkeypatch):
    # item 8: 1,500 names run into releases ("torch2.4.0+rocmabc"), two versions at most (it states neither): the
    # checks of a match run for the first two only, the rest are a dictionary lookup
    calls = []
    real = stated_env._removed
    monkeypatch.setattr(stated_env, "_removed", lambda text, start: calls.append(start) or real(text, start))
    line = "ROCm Component: " + " ".join(f"torch2.{i % 2 + 4}.0+rocm{i:04d}" for i in range(1500))
    assert stated_env.named_versions(line) == {}
    assert len(calls) == 2
    # one version repeated: read once, and stated
    calls.clear()
    assert stated_env.named_versions("ROCm Component: " + " ".join(["torch2.4.0+rocm61"] * 1500)) == {"torch": "2.4.0+rocm61"}
    assert len(calls) == 1

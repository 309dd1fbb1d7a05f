"""How a launch's SGLang release is known: stated (check_env, a pip list, the docker image's release tag) or a
range inferred from the wordings its lines use (the upstream catalogue), or unknown."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text

INIT = "[2026-10-20 09:00:01 TP0] Init parallel begin.\n"

CASES = [
    ("check_env", "Python: 3.12.3 (main)\nCUDA available: True\nsglang: 0.5.23\n" + INIT, "0.5.23", None, "stated by check_env"),
    ("pip list", "[pip3] sglang==0.5.22\n" + INIT, "0.5.22", None, "stated by a pip list"),
    (
        "docker tag",
        "docker run --gpus all lmsysorg/sglang:v0.5.2rc0-cu126 python3 -m sglang.launch_server --tp 2\n" + INIT,
        "0.5.2rc0",
        None,
        "stated by the release tag",
    ),
    (
        "docker latest",
        "docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server --tp 2\n" + INIT,
        None,
        ["0.5.21", "0.5.23"],
        "inferred from 1 wording(s)",
    ),
    ("wordings", INIT, None, ["0.5.21", "0.5.23"], "inferred from 1 wording(s)"),
    ("no telling wording", "[2026-10-20 09:00:01 TP0] Load weight begin. avail mem=70.00 GB\n", None, None, "unknown"),
]


@pytest.mark.parametrize(("name", "text", "version", "span", "how"), CASES, ids=[c[0] for c in CASES])
def test_sglang_version_and_how_it_is_known(name, text, version, span, how):
    found = analyze_text(text)["launches"][0]["sglang_version"]
    assert found["version"] == version
    assert found["range"] == span
    assert found["how"].startswith(how)

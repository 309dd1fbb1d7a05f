"""NCCL's connection-buffer constants per range of NCCL releases (read from the NVIDIA/nccl release tags by
tools/upstream/nccl_constants.py): which range a stated version takes, what is said when none is stated, and the
extractor on a small repository of two tags."""

from __future__ import annotations

import subprocess

from logscope.memory_model.releases import nccl, nccl_ranges
from tests.helpers import analyze_text


def test_the_ranges_read_cover_2_18_to_2_30():
    spans = [(r.span, r.max_channels.value, r.simple_bytes_arm.value) for r in nccl_ranges()]
    assert spans == [("2.18.1-2.18.6", 32, 1048576), ("2.19.1-2.24.3", 32, None), ("2.25.1-2.30.7", 64, None)]
    for source in nccl_ranges():
        assert (source.cuda_ipc_min.value, source.mem_align.value, source.simple_bytes.value) == (2097152, 4096, 4194304)
    assert nccl_ranges()[0].steps.at == "src/include/devcomm.h:34"  # before 2.19 the device defines lived there
    assert "2.22.3" in nccl_ranges()[1].versions


def test_a_stated_version_takes_its_range():
    assert nccl("2.21.5").source.span == "2.19.1-2.24.3"
    assert nccl("2.21.5").said == "NCCL 2.21.5 in the input: 2.19.1-2.24.3's constants"
    assert nccl("2.30.7").source.span == "2.25.1-2.30.7"
    # a patch between two tags read keeps the range below it, and says so
    gap = nccl("2.18.9")
    assert gap.source.span == "2.18.1-2.18.6" and "(no release tag read)" in gap.said


def test_a_version_outside_what_was_read_is_assumed_and_said():
    assert nccl("2.31.2").said == "NCCL 2.31.2 in the input, newer than every release read: assumed 2.25.1-2.30.7's"
    assert nccl("2.17.1").said == "NCCL 2.17.1 in the input, older than every release read: assumed 2.18.1-2.18.6's"
    unknown = nccl(None)
    assert unknown.source.span == "2.25.1-2.30.7"
    assert unknown.said == "assumed NCCL 2.30.7 (not in the input; 2.25.1-2.30.7 have the same constants)"


def test_pip_list_states_the_nccl_version():
    text = (
        "sglang: 0.5.23\nnvidia-nccl-cu12: 2.21.5\nexport NCCL_MIN_NCHANNELS=64\nexport NCCL_MAX_NCHANNELS=64\n"
        "[2026-11-20 10:00:00] server_args=ServerArgs(model_path='/m/x', tp_size=8)\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=138.39 GB\n"
    )
    cells = analyze_text(text)["launches"][0]["ranks"][0]["cells"]
    channels = next(c for c in cells if c["mechanism"] == "pynccl_channels")
    assert channels["inputs"]["nccl_constants"] == "2.19.1-2.24.3" and channels["inputs"]["channels"] == 32
    assert channels["gib"] == 0.375


def _commit_tag(repo, tag: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", tag], check=True, capture_output=True)
    subprocess.run([*git, "tag", tag], check=True, capture_output=True)


def _tree(device_h: str, minor: int, patch: int, channels: int, arm: bool) -> dict[str, str]:
    device = (
        "#define NCCL_STEPS 8\nunion ncclLLFifoLine {\n  uint64_t v[2];\n};\n"
        f"#define MAXCHANNELS {channels}\n#define NCCL_LL_MAX_NTHREADS 512\n#define NCCL_LL_LINES_PER_THREAD 8\n"
        "#define NCCL_LL128_MAX_NTHREADS 640\n#define NCCL_LL128_ELEMS_PER_THREAD 120\n"
    )
    init = "#define DEFAULT_BUFFSIZE (1 << 22) /* 4MiB */\n" + ("#define DEFAULT_BUFFSIZE_ARM (1 << 20)\n" if arm else "")
    return {
        device_h: device,
        "src/init.cc": init,
        "src/include/comm.h": "#define MEM_ALIGN 4096\n#define CUDA_IPC_MIN 2097152UL\n",
        "src/transport/p2p.cc": "  ALIGN_SIZE(sendSize, CUDA_IPC_MIN);\n  ALIGN_SIZE(recvSize, CUDA_IPC_MIN);\n",
        "makefiles/version.mk": f"NCCL_MAJOR   := 2\nNCCL_MINOR   := {minor}\nNCCL_PATCH   := {patch}\n",
    }


def test_the_extractor_groups_equal_releases(tmp_path):
    from tools.upstream.nccl_constants import nccl_sources

    repo = tmp_path / "nccl"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit_tag(repo, "v2.18.1-1", _tree("src/include/devcomm.h", 18, 1, 32, arm=True))
    (repo / "src/include/devcomm.h").unlink()
    _commit_tag(repo, "v2.19.1-1", _tree("src/include/device.h", 19, 1, 32, arm=False))
    _commit_tag(repo, "v2.19.3-1", _tree("src/include/device.h", 19, 3, 32, arm=False))
    _commit_tag(repo, "v2.25.1-1", _tree("src/include/device.h", 25, 1, 64, arm=False))
    _commit_tag(repo, "v2.17.1-1", _tree("src/include/device.h", 17, 1, 32, arm=False))  # older than asked: not read
    found = nccl_sources(repo / ".git", (2, 18))
    assert [(r["first"], r["last"], r["versions"]) for r in found] == [
        ("2.18.1", "2.18.1", ["2.18.1"]),
        ("2.19.1", "2.19.3", ["2.19.1", "2.19.3"]),
        ("2.25.1", "2.25.1", ["2.25.1"]),
    ]
    assert found[0]["simple_bytes_arm"] == {"value": 1048576, "at": "src/init.cc:2"}
    assert found[0]["steps"]["at"] == "src/include/devcomm.h:1" and found[1]["tag"] == "v2.19.1-1"
    assert found[1]["simple_bytes_arm"]["value"] is None and "DEFAULT_BUFFSIZE_ARM" in found[1]["simple_bytes_arm"]["absent"]
    assert found[2]["max_channels"] == {"value": 64, "at": "src/include/device.h:5"}
    assert found[2]["p2p_recv_align"] == {"value": "recvSize", "at": "src/transport/p2p.cc:2"}

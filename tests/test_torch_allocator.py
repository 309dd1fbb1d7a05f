"""The caching allocator's rounding per torch release, as each release's wheel states it (c10/core/AllocatorConfig.h,
read by tools/upstream/cell_constants.py from the torch 2.5.1-2.14.1 wheels): 2.5-2.8's headers state none of the
constants (they live in CUDACachingAllocator.cpp), 2.9's only kLargeBuffer, 2.10+ all of them (1 MiB small size,
2 MiB small buffer, 10 MiB min large alloc, 2 MiB large rounding, 20 MiB large segment). Up to 2.9 kLargeBuffer is
an `extern const` with a symbol in libc10_cuda.so, read from there; the others are constexpr: no symbol."""

from __future__ import annotations

from logscope.memory_model.releases import torch_allocators, torch_caching_allocator
from tests.helpers import analyze_text

MIB = 1 << 20


def test_every_torch_release_read_oldest_first():
    read = [a.version for a in torch_allocators()]
    assert read == ["2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0+cpu", "2.14.1"]


def test_a_stated_torch_picks_its_own_release():
    choice = torch_caching_allocator("2.10.0+cu128")
    assert choice.allocator is not None and choice.note == ""
    assert choice.allocator.version == "2.10.0"
    # 2.10 states the large segment as kLargeBuffer (line 17), 2.11+ as large_segment_size_'s default
    assert choice.allocator.large_segment_size.at == "torch/include/c10/core/AllocatorConfig.h:17"
    assert choice.allocator.segment(8 * MIB) == (20 * MIB, "a large segment (torch/include/c10/core/AllocatorConfig.h:17)")
    assert torch_caching_allocator("2.14.1").allocator.large_segment_size.at.endswith("AllocatorConfig.h:340")


def test_a_torch_whose_wheel_lacks_the_constants_gives_no_figure():
    for version in ("2.5.1", "2.8.0+cu126", "2.9.1+cu128"):
        choice = torch_caching_allocator(version)
        assert choice.allocator is None
        assert "not in the wheel's headers: defined in c10/cuda/CUDACachingAllocator.cpp" in choice.note
        assert "the large segment size" not in choice.note  # kLargeBuffer: from the header or libc10_cuda.so
    so = "torch/lib/libc10_cuda.so: c10::cuda::CUDACachingAllocator::kLargeBuffer (symbol table)"
    for version in ("2.5.1", "2.6.0", "2.7.1", "2.8.0"):
        read = next(a for a in torch_allocators() if a.version == version)
        assert (read.large_segment_size.value, read.large_segment_size.at) == (20 * MIB, so)
    assert torch_caching_allocator("2.4.1").note == "torch 2.4.1: no wheel of that release read"


def test_no_torch_version_assumes_the_newest_and_says_so():
    choice = torch_caching_allocator(None)
    assert choice.allocator is not None and choice.allocator.version == "2.14.1"
    assert choice.note == "the input states no torch version: assumed; torch 2.10.0 to 2.14.1 ship the same"


def _v2_cell(torch: str | None) -> dict:
    head = "Python: 3.12.3\nCUDA available: True\nGPU 0,1: NVIDIA H200\nGPU 0,1 Compute Capability: 9.0\nsglang: 0.5.23\n"
    if torch:
        head += f"PyTorch: {torch}\n"
    text = head + (
        "[2026-11-20 10:00:00] server_args=ServerArgs(model_path='/m/x', tp_size=8)\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=138.39 GB\n"
    )
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    return next(c for c in rank["cells"] if c["mechanism"] == "custom_ar_v2")


def test_the_v2_cell_rounds_graph_params_with_the_input_torch():
    # W=8 on SM90: graph_params 131072 x 8 x 8 B = 8 MiB, under kMinLargeAlloc: a 20 MiB large segment
    on = _v2_cell("2.14.1+cu129")
    assert on["inputs"]["allocated_max_bytes"] == on["inputs"]["payload_bytes"] - 8 * MIB + 20 * MIB
    assert "torch 2.14.1's caching allocator" in on["basis"] and "no torch version" not in on["basis"]
    off = _v2_cell("2.9.1+cu128")
    assert "allocated_max_bytes" not in off["inputs"]
    lacking = "kSmallSize, kSmallBuffer, kMinLargeAlloc, kRoundLarge not in the wheel's headers"
    assert f"as allocated: not given (torch 2.9.1+cu128's wheel: {lacking}" in off["basis"]
    assumed = _v2_cell(None)
    assert "(the input states no torch version: assumed; torch 2.10.0 to 2.14.1 ship the same)" in assumed["basis"]


def _wheel(tmp_path, name: str, header: str | None):
    import zipfile

    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("torch/__init__.py", "")
        if header is not None:
            archive.writestr("torch/include/c10/core/AllocatorConfig.h", header)
    return path


def test_the_tool_reads_each_header_form(tmp_path):
    from tools.upstream.cell_constants import torch_allocator

    old = torch_allocator(_wheel(tmp_path, "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl", None))
    assert old["version"] == "2.5.1" and all(old[k]["value"] is None for k in old if k != "version")
    nine = torch_allocator(
        _wheel(tmp_path, "torch-2.9.1-cp311-none.whl", "namespace c10 {\n// 20 MiB\nconst size_t kLargeBuffer = 20971520;\n")
    )
    assert nine["large_segment_size"] == {"value": 20971520, "at": "torch/include/c10/core/AllocatorConfig.h:3"}
    assert nine["small_size"]["value"] is None and "CUDACachingAllocator.cpp" in nine["small_size"]["absent"]
    ten = "\n".join(
        f"constexpr size_t {k} = {v};"
        for k, v in (("kLargeBuffer", 20971520), ("kSmallBuffer", 2097152), ("kSmallSize", 1048576))
        + (("kMinLargeAlloc", 10485760), ("kRoundLarge", 2097152))
    )
    read = torch_allocator(_wheel(tmp_path, "torch-2.10.0-3-cp311-none.whl", ten))
    assert read["version"] == "2.10.0"
    assert [read[k]["value"] for k in ("small_size", "small_buffer", "min_large_alloc", "round_large", "large_segment_size")] == [
        1048576,
        2097152,
        10485760,
        2097152,
        20971520,
    ]


def _elf(symbol: str, value: int) -> bytes:
    """A 64-bit little-endian ELF file of four sections (null, .rodata, .symtab, .strtab) with one symbol."""
    import struct

    rodata = b"\0" * 16 + value.to_bytes(8, "little")
    strtab = b"\0" + symbol.encode() + b"\0"
    symtab = b"\0" * 24 + struct.pack("<IBBHQQ", 1, 1, 0, 1, 0x1000 + 16, 8)
    body = rodata + symtab + strtab
    shoff = 64 + len(body)
    fields = struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 4, 0)
    header = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9 + fields
    sections = [
        (0, 0, 0, 0, 0, 0),
        (1, 0x1000, 64, len(rodata), 0, 0),
        (2, 0, 64 + len(rodata), len(symtab), 3, 24),
        (3, 0, 64 + len(rodata) + len(symtab), len(strtab), 0, 0),
    ]
    table = b"".join(struct.pack("<IIQQQQIIQQ", 0, k, 0, a, o, n, link, 0, 0, e) for k, a, o, n, link, e in sections)
    return header + body + table


def test_the_tool_reads_a_constant_from_the_library_symbol_table():
    from tools.upstream.elf_const import symbol_value

    library = _elf("_ZN3c104cuda20CUDACachingAllocator12kLargeBufferE", 20971520)
    assert symbol_value(library, "_ZN3c104cuda20CUDACachingAllocator12kLargeBufferE") == 20971520
    assert symbol_value(library, "_ZN3c104cuda20CUDACachingAllocator10kSmallSizeE") is None


def test_the_torch_releases_fall_in_three_ranges_and_round_a_known_request_by_theirs():
    """2.5.1-2.8.0: kLargeBuffer only (libc10_cuda.so); 2.9.1: kLargeBuffer only (AllocatorConfig.h); 2.10.0-2.14.1:
    all five, equal. An 8 MiB request (custom all-reduce v2's graph_params at W=8) takes a 20 MiB large segment in
    the last range; the first two give no allocated figure (kSmallSize ... kRoundLarge are constexpr there)."""
    read = torch_allocators()
    complete = [a.version for a in read if a.complete]
    assert complete == ["2.10.0", "2.11.0", "2.12.0", "2.13.0+cpu", "2.14.1"]
    assert all(a.same_constants(read[-1]) for a in read if a.complete)
    for allocator in read:
        if allocator.complete:
            assert allocator.segment(8 * MIB)[0] == 20 * MIB  # 1 MiB < 8 MiB < kMinLargeAlloc 10 MiB
            assert allocator.segment(MIB)[0] == 2 * MIB  # <= kSmallSize: a kSmallBuffer segment
            assert allocator.segment(11 * MIB)[0] == 12 * MIB  # >= kMinLargeAlloc: rounded up to kRoundLarge 2 MiB
        else:
            assert allocator.segment(8 * MIB) is None and allocator.large_segment_size.value == 20 * MIB
            header = allocator.large_segment_size.at.startswith("torch/include/")
            assert header == (allocator.version == "2.9.1")

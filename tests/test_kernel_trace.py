"""The Linux kernel's call trace (x86 printk_stack_address's "%s %s%pB" frames, arch/x86/kernel/dumpstack.c) read as a
native backtrace, and its symbols ("name+0xoff/0xsize", lib/vsprintf.c %pB) never taken for a secret."""

from __future__ import annotations

from logscope.core.redact import redact
from logscope.pipeline.ingest.ingest import clean
from logscope.pipeline.parse.parsers.blocks import NativeBacktraceReader

TRACE = [
    "172.20.1.2: kern: warning: [2026-04-22T21:27:51.289597368Z]:  knvlinkSyncLinkMasksAndVbiosInfo_IMPL+0xb7/0x1a0 [nvidia]",
    "172.20.1.2: kern: warning: [2026-04-22T21:27:51.290071203Z]:  ? CliGetSystemP2pCaps+0x11d/0x630 [nvidia]",
    "[ 8123.441306]  <TASK>",
    "[ 8123.441620]  do_syscall_64+0x59/0x90",
]


def test_the_frames_under_talos_and_printk_prefixes_read_in_order_without_the_unsure_ones() -> None:
    lines = [line for raw in TRACE for line in clean(raw)]
    assert lines[0] == " knvlinkSyncLinkMasksAndVbiosInfo_IMPL+0xb7/0x1a0 [nvidia]"
    reader = NativeBacktraceReader("paste")
    assert reader.starts(lines[0])
    block = reader.open(1, lines[0])
    assert all(block.feed(n, line) for n, line in enumerate(lines[1:], 2))
    assert not block.feed(5, "Modules linked in: nvidia_uvm(POE)")
    event = block.close()[0]
    assert event.data["native_frames"] == ["knvlinkSyncLinkMasksAndVbiosInfo_IMPL [nvidia]", "do_syscall_64"]
    assert event.text == "kernel call trace: knvlinkSyncLinkMasksAndVbiosInfo_IMPL+0xb7/0x1a0 [nvidia]"


def test_a_kernel_symbol_is_no_secret_but_a_random_token_still_is() -> None:
    line = "kernel call trace: knvlinkSyncLinkMasksAndVbiosInfo_IMPL+0xb7/0x1a0 [nvidia]"
    assert redact(line) == line
    assert redact("key: Zq8vR2mXkL4pT9wN3bY7cF1hJ6dS") == "key: <redacted:secret>"


def test_ucx_s_own_epoch_stamp_is_no_kernel_time_and_stays() -> None:
    ucx = "[1744019893.262318] [gpu-node:2381:0]          ib_iface.c:746  UCX  ERROR ibv_create_cq(cqe=4096) failed"
    assert clean(ucx) == [ucx]
    assert clean("[ 8123.441305] Call Trace:") == ["Call Trace:"]

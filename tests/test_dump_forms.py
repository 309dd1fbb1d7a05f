"""GPU dumps in the forms people paste them (issue 43, dumps class): R610+ nvidia-smi headers, Windows driver-model
rows, tables re-flowed by the paste, `nvidia-smi -L`, `-q` copied from a GPU's section, CSV without an index column
or led by a field logscope does not read, topo matrices wrapped by the terminal or rewritten as Markdown. Each case
is in the real shape and asserts the numbers as printed."""

from __future__ import annotations

from tests.helpers import analyze_text


def _gpus(text: str) -> list[tuple]:
    report = analyze_text(text)
    return [(g["index"], g.get("name"), g.get("memory_used_mib"), g.get("memory_total_mib")) for g in report["gpus"]]


def _links(text: str) -> list[list]:
    return analyze_text(text)["topology"]["links"]


# R610 renamed the header's two versions ("KMD Version", "CUDA UMD Version"); the rows are R580's
R610_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA B200                    On  |   00000000:63:00.0 Off |                    0 |
| N/A   26C    P0            139W / 1000W |       0MiB / 183359MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA B200                    On  |   00000000:68:00.0 Off |                    0 |
| N/A   30C    P0            142W / 1000W |  170212MiB / 183359MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""


def test_r610_header_table_is_read_with_its_versions():
    report = analyze_text(R610_TABLE)
    assert [(g["index"], g["name"], g["memory_used_mib"], g["memory_total_mib"]) for g in report["gpus"]] == [
        (0, "NVIDIA B200", 0, 183359),
        (1, "NVIDIA B200", 170212, 183359),
    ]
    assert report["versions"]["driver"] == "610.43.02" and report["versions"]["cuda_driver_api"] == "13.3"


def test_windows_driver_model_rows():
    text = """\
| NVIDIA-SMI 617.14                 KMD Version: 617.14        CUDA UMD Version: 13.4     |
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3050 ...  WDDM  |   00000000:01:00.0  On |                  N/A |
| N/A   45C    P8              3W /   60W |     312MiB /   4096MiB |      2%      Default |
|   1  NVIDIA RTX A6000              TCC  |   00000000:02:00.0 Off |                  Off |
| 30%   35C    P8             20W /  300W |   40123MiB /  49140MiB |      0%      Default |
"""
    assert _gpus(text) == [(0, "NVIDIA GeForce RTX 3050 ...", 312, 4096), (1, "NVIDIA RTX A6000", 40123, 49140)]


def test_a_gpu_without_a_readable_usage_row_keeps_its_name():
    # DGX Spark (GB10) prints "Not Supported" for memory; a sensor the driver cannot read prints ERR!
    text = """\
| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |
|=========================================+========================+======================|
|   0  NVIDIA GB10                    On  |   0000000F:01:00.0  On |                  N/A |
| N/A   42C    P0             11W /  N/A  | Not Supported          |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA H100 80GB HBM3          On  |   00000000:19:00.0 Off |                    0 |
| ERR!  ERR!   P0            ERR! /  700W |    1234MiB /  81559MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   2  NVIDIA RTX A6000    On   | 00000000:41:00.0 Off |
"""
    assert _gpus(text) == [
        (0, "NVIDIA GB10", None, None),
        (1, "NVIDIA H100 80GB HBM3", 1234, 81559),
        (2, "NVIDIA RTX A6000", None, None),  # the copy ended inside the row, after the bus id
    ]


def test_table_rows_joined_into_one_line():
    text = (
        "| NVIDIA-SMI 535.161.08   Driver Version: 535.161.08   CUDA Version: 12.2     |\n"
        "|===============================+======================+======================| "
        "|   0  NVIDIA A100-SXM4-80GB  On   | 00000000:07:00.0 Off |                    0 | "
        "| N/A   30C    P0    61W / 400W |      4MiB / 81920MiB |      0%      Default | "
        "|                               |                      |             Disabled | "
        "|   1  NVIDIA A100-SXM4-80GB  On   | 00000000:0B:00.0 Off |                    0 | "
        "| N/A   31C    P0    64W / 400W |  78000MiB / 81920MiB |      0%      Default |\n"
    )
    assert _gpus(text) == [(0, "NVIDIA A100-SXM4-80GB", 4, 81920), (1, "NVIDIA A100-SXM4-80GB", 78000, 81920)]


def test_nvidia_smi_list_pasted_alone():
    text = """\
$ nvidia-smi -L
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)
  MIG 3g.40gb     Device  0: (UUID: MIG-c7384736-a75d-5afc-978f-d2f1294409fd)
GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a78)
The GPU 2: NVIDIA H100 line is prose.
"""
    assert _gpus(text) == [(0, "NVIDIA A100-SXM4-80GB", None, None), (1, "NVIDIA H100 80GB HBM3", None, None)]


def test_query_dump_copied_from_a_gpu_section():
    text = """\
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    FB Memory Usage
        Total                             : 81559 MiB
        Reserved                          : 551 MiB
        Used                              : 70000 MiB
        Free                              : 11008 MiB
"""
    assert _gpus(text) == [(0, "NVIDIA H100 80GB HBM3", 70000, 81559)]


def test_csv_without_an_index_column_lists_the_gpus_in_order():
    text = """\
$ nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
name, memory.used [MiB], memory.total [MiB]
NVIDIA H100 80GB HBM3, 70000 MiB, 81559 MiB
NVIDIA H100 80GB HBM3, 4 MiB, 81559 MiB
"""
    assert _gpus(text) == [(0, "NVIDIA H100 80GB HBM3", 70000, 81559), (1, "NVIDIA H100 80GB HBM3", 4, 81559)]
    # -i picked GPU 3: the row's place says nothing of its index
    picked = text.replace("nvidia-smi --query", "nvidia-smi -i 3 --query").replace(
        "NVIDIA H100 80GB HBM3, 4 MiB, 81559 MiB\n", ""
    )
    assert _gpus(picked) == [(None, "NVIDIA H100 80GB HBM3", 70000, 81559)]


def test_csv_header_led_by_a_field_logscope_does_not_read():
    text = """\
pstate, name, pci.bus_id, memory.total [MiB], memory.used [MiB]
P0, NVIDIA H20, 00000000:0F:00.0, 97871 MiB, 90012 MiB
P0, NVIDIA H20, 00000000:10:00.0, 97871 MiB, 1 MiB
"""
    assert _gpus(text) == [(0, "NVIDIA H20", 90012, 97871), (1, "NVIDIA H20", 1, 97871)]


def test_topo_matrix_wrapped_by_the_terminal():
    text = """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    GPU8    GPU9
        GPU10   GPU11   CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV18    NV18    NV18    NV18    NV18    NV18    NV18    NV18    NV18
        NV18    SYS     0-47    0               N/A
GPU1    NV18     X      NV18    NV18    NV18    NV18    NV18    NV18    NV18    NV18
        PIX     NV18    0-47    0               N/A
"""
    links = _links(text)
    assert len(links) == 21  # GPU0 to the 11 others, GPU1 to the 10 after it
    assert [0, 11, "SYS"] in links and [1, 10, "PIX"] in links and [1, 11, "NV18"] in links


def test_topo_matrix_as_a_markdown_table():
    text = """\
|      | GPU0 | GPU1 | GPU2 | CPU Affinity | NUMA Affinity |
|------|------|------|------|--------------|---------------|
| GPU0 | X    | NV12 | SYS  | 0-63         | 0             |
| GPU1 | NV12 | X    | NV12 | 0-63         | 0             |
| GPU2 | SYS  | NV12 | X    | 64-127       | 1             |
"""
    assert _links(text) == [[0, 1, "NV12"], [0, 2, "SYS"], [1, 2, "NV12"]]


def test_a_driver_before_r340_prints_no_cuda_version_and_no_display_state():
    text = """\
+------------------------------------------------------+
| NVIDIA-SMI 331.62     Driver Version: 331.62         |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
|===============================+======================+======================|
|   0  GeForce GTX 680     Off  | 0000:03:00.0     N/A |                  N/A |
| 30%   35C  N/A     N/A /  N/A |      9MiB /  4095MiB |     N/A      Default |
+-------------------------------+----------------------+----------------------+
"""
    report = analyze_text(text)
    assert [(g["index"], g["name"], g["memory_used_mib"], g["memory_total_mib"]) for g in report["gpus"]] == [
        (0, "GeForce GTX 680", 9, 4095)
    ]
    assert report["versions"] == {"driver": "331.62"}


def test_query_dump_as_xml():
    text = """\
<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
        <driver_version>535.86.05</driver_version>
        <cuda_version>12.2</cuda_version>
        <attached_gpus>2</attached_gpus>
        <gpu id="00000000:84:00.0">
                <product_name>NVIDIA GeForce RTX 4090</product_name>
                <mig_devices>
                        None
                </mig_devices>
                <fb_memory_usage>
                        <total>24564 MiB</total>
                        <reserved>346 MiB</reserved>
                        <used>20123 MiB</used>
                        <free>4094 MiB</free>
                </fb_memory_usage>
                <bar1_memory_usage>
                        <total>256 MiB</total>
                        <used>1 MiB</used>
                </bar1_memory_usage>
                <processes>
                        <process_info>
                                <pid>4242</pid>
                                <type>C</type>
                                <process_name>python3</process_name>
                                <used_memory>20000 MiB</used_memory>
                        </process_info>
                </processes>
        </gpu>
        <gpu id="00000000:85:00.0">
                <product_name>NVIDIA GeForce RTX 4090</product_name>
                <fb_memory_usage>
                        <total>24564 MiB</total>
                        <used>3 MiB</used>
                </fb_memory_usage>
        </gpu>
</nvidia_smi_log>
"""
    report = analyze_text(text)
    assert [(g["index"], g["name"], g["memory_used_mib"], g["memory_total_mib"]) for g in report["gpus"]] == [
        (0, "NVIDIA GeForce RTX 4090", 20123, 24564),
        (1, "NVIDIA GeForce RTX 4090", 3, 24564),
    ]
    assert report["gpus"][0]["driver_reserved_mib"] == 346
    assert report["gpus"][0]["processes"] == [{"pid": 4242, "type": "C", "name": "python3", "used_mib": 20000}]
    assert report["versions"] == {"driver": "535.86.05", "cuda_driver_api": "12.2"}


def test_check_env_copied_from_its_gpu_line():
    text = """\
GPU 0,1,2,3: NVIDIA H200
GPU 0,1,2,3 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
CUDA Driver Version: 570.172.08
sglang: 0.5.6
"""
    report = analyze_text(text)
    assert [(g["index"], g["name"]) for g in report["gpus"]] == [(i, "NVIDIA H200") for i in range(4)]
    assert report["versions"]["sglang"] == "0.5.6"


def test_check_env_and_a_table_of_the_same_gpus_give_one_record_each():
    text = """\
Python: 3.10.12 (main, Feb  4 2025, 14:57:36) [GCC 11.4.0]
CUDA available: True
GPU 0,1: NVIDIA H100 80GB HBM3
GPU 0,1 Compute Capability: 9.0
sglang: 0.5.6

+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
|   0  NVIDIA H100 80G...  On   | 00000000:1A:00.0 Off |                    0 |
| N/A   38C    P0    56W / 700W |  70000MiB / 81559MiB |      0%      Default |
|   1  NVIDIA H100 80GB HBM3  On   | 00000000:1B:00.0 Off |                    0 |
| N/A   38C    P0    56W / 700W |  71000MiB / 81559MiB |      0%      Default |
"""
    report = analyze_text(text)
    gpus = [(g["index"], g["name"], g["bus_id"], g["memory_used_mib"], g["compute_capability"]) for g in report["gpus"]]
    assert gpus == [
        (0, "NVIDIA H100 80GB HBM3", "00000000:1A:00.0", 70000, "9.0"),  # the table cut the name; check_env gives it whole
        (1, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0", 71000, "9.0"),
    ]


def test_two_nodes_tables_are_not_joined_to_one_check_env():
    table = """\
| NVIDIA-SMI 570.124.06             Driver Version: 570.124.06     CUDA Version: 12.8     |
|   0  NVIDIA H20                     On  |   00000000:{bus}:00.0 Off |                    0 |
| N/A   33C    P0            115W /  500W |   {used}MiB /  97871MiB |      0%      Default |
"""
    text = "GPU 0: NVIDIA H20\n\n" + table.format(bus="0F", used=90000) + "\n" + table.format(bus="1F", used=80000)
    rows = [(g["index"], g.get("bus_id"), g.get("memory_used_mib")) for g in analyze_text(text)["gpus"]]
    assert rows == [(0, None, None), (0, "00000000:0F:00.0", 90000), (0, "00000000:1F:00.0", 80000)]


def test_table_copied_from_a_gpu_row_without_its_header():
    text = "The GPUs:\n" + "\n".join(R610_TABLE.splitlines()[7:]) + "\n"
    assert text.splitlines()[1].startswith("|   0  NVIDIA B200")
    assert _gpus(text) == [(0, "NVIDIA B200", 0, 183359), (1, "NVIDIA B200", 170212, 183359)]


def test_a_two_word_header_of_another_table_is_no_gpu_csv():
    assert analyze_text("name, version\nsglang, 0.5.6\nflashinfer, 0.6.2\n")["gpus"] == []
    assert [g["name"] for g in analyze_text("index, name\n0, NVIDIA H20\n")["gpus"]] == ["NVIDIA H20"]


def test_a_failure_under_a_stated_gpu_line_is_still_a_failure():
    for failure in ("RuntimeError: CUDA error: an illegal memory access was encountered", "CUDA error: out of memory"):
        report = analyze_text(f"GPU 0: NVIDIA H100 80GB HBM3\n{failure}\n")
        assert [(g["index"], g["name"]) for g in report["gpus"]] == [(0, "NVIDIA H100 80GB HBM3")]
        assert [f["rule"] for f in report["findings"]] == ["failure-time-unknown"]


def test_a_traceback_under_a_query_dump_is_read_as_one():
    text = """\
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    FB Memory Usage
        Total                             : 81559 MiB
        Used                              : 70000 MiB
Traceback (most recent call last):
  File "/x.py", line 1, in <module>
RuntimeError: CUDA error: an illegal memory access was encountered
"""
    report = analyze_text(text)
    assert _gpus(text) == [(0, "NVIDIA H100 80GB HBM3", 70000, 81559)]
    assert [f["rule"] for f in report["findings"]] == ["failure-time-unknown"]


# a table copied from a terminal or a mail narrower than its rows (the shape of ollama/ollama#2264's paste, an 88-column
# copy of R535's 89-column table): each row broken at the width, its end and closing border on the next line
WRAPPED_TABLE = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.154.05             Driver Version: 535.154.05   CUDA
Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile
Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util
 Compute M. |
|                                         |                      |
      MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA H800                    On  | 00000000:18:00.0 Off |
          0 |
| N/A   30C    P0             120W / 700W |  70123MiB / 81559MiB |      0%
     Default |
|                                         |                      |
     Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA H800                    On  | 00000000:2A:00.0 Off |
          0 |
| N/A   31C    P0             118W / 700W |  70101MiB / 81559MiB |      0%
     Default |
"""


def test_table_rows_wrapped_at_the_copy_width_are_rejoined():
    report = analyze_text(WRAPPED_TABLE)
    assert [(g["index"], g["name"], g["memory_used_mib"], g["memory_total_mib"]) for g in report["gpus"]] == [
        (0, "NVIDIA H800", 70123, 81559),
        (1, "NVIDIA H800", 70101, 81559),
    ]
    assert report["versions"]["driver"] == "535.154.05" and report["versions"]["cuda_driver_api"] == "12.2"


def test_a_whole_row_is_not_joined_to_a_line_under_it_that_ends_in_a_bar():
    # a line with no border at its start but one at its end joins the row above only when the two read as one row
    rows = R610_TABLE.splitlines()
    text = "\n".join(rows[: rows.index(next(r for r in rows if "170212MiB" in r)) + 1]) + "\nfree memory is 13 GiB |\n"
    assert _gpus(text) == [(0, "NVIDIA B200", 0, 183359), (1, "NVIDIA B200", 170212, 183359)]


def test_topo_matrix_whose_nic_column_is_an_older_rdma_device_name():
    # drivers before the NIC# legend name a NIC's column by its RDMA device (mlx4_0 of a ConnectX-3; the shape of
    # kubernetes/kubernetes#53497's paste, each line padded to the terminal's width): the header names the columns, so
    # GPU0's links to GPU5-7 are read though the copy ends at GPU4's row
    pad = " " * 60
    text = (
        f"        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    mlx4_0  CPU Affinity{pad}\n"
        f"GPU0     X      PIX     PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29{pad}\n"
        f"GPU1    PIX      X      PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29{pad}\n"
        "GPU4    SYS     SYS     SYS     SYS      X      PIX     PHB     PHB     SYS     10-19,30-39\n"
    )
    report = analyze_text(text)
    links = report["topology"]["links"]
    assert [0, 7, "SYS"] in links and [1, 2, "PHB"] in links and [4, 5, "PIX"] in links
    assert len(links) == 7 + 6 + 5  # GPU0's seven, GPU1's six beyond GPU0, GPU4's five beyond GPU0 and GPU1
    assert {"gpu": 0, "nic": "mlx4_0", "link": "PHB"} in report["topology"]["nics"]

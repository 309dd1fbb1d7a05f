"""rocm-smi's link type table (`rocm-smi --showtopotype`, SGLang's check_env "AMD Topology:" on ROCm): the links
between GPU pairs as printed (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py showTypeTopology: "0" on the diagonal,
"PCIE", "XGMI", "XXXX" for a type it does not name)."""

from __future__ import annotations

from tests.helpers import analyze_text

_TABLE_90 = (
    "============================ ROCm System Management Interface ============================\n"
    "=============================== Link Type between two GPUs ===============================\n"
    "       GPU0         GPU1         GPU2         GPU3         \n"
    "GPU0   0            XGMI         XGMI         PCIE         \n"
    "GPU1   XGMI         0            XGMI         PCIE         \n"
    "GPU2   XGMI         XGMI         0            XXXX         \n"
    "GPU3   PCIE         PCIE         XXXX         0            \n"
    "================================== End of ROCm SMI Log ===================================\n"
)


def _links(text: str) -> list[list[object]]:
    return analyze_text(text)["topology"]["links"]


def test_link_type_table_alone():
    assert _links(_TABLE_90) == [[0, 1, "XGMI"], [0, 2, "XGMI"], [0, 3, "PCIE"], [1, 2, "XGMI"], [1, 3, "PCIE"]]


def test_link_type_table_under_check_env_amd_topology():
    # sglang 0.5.23 check_env.py: "AMD Topology:" then a newline and rocm-smi --showtopotype's output
    text = (
        "Python: 3.12.8 (main, Dec  4 2024, 08:54:12) [GCC 11.4.0]\n"
        "ROCM available: True\n"
        "GPU 0,1,2,3: AMD Instinct MI300X\n"
        "GPU 0,1,2,3 Compute Capability: 9.4\n"
        "ROCM_HOME: /opt/rocm\n"
        "PyTorch: 2.9.1+rocm7.2.0.git7e1940d4\n"
        "sglang: 0.5.23\n"
        "AMD Topology: \n\n\n" + _TABLE_90 + "\nulimit soft: 1024\n"
    )
    report = analyze_text(text)
    assert report["topology"]["links"][:3] == [[0, 1, "XGMI"], [0, 2, "XGMI"], [0, 3, "PCIE"]]
    assert len(report["topology"]["links"]) == 5
    assert [g["name"] for g in report["gpus"]] == ["AMD Instinct MI300X"] * 4


def test_eighty_column_spacer_joined_to_its_header():
    # the 80-column releases' spacer fills a terminal line: the paste's header row may be joined to it
    text = (
        "========================== Link Type between two GPUs ==========================\n"
        "       GPU0         GPU1\n"
        "GPU0   0            PCIE\n"
        "GPU1   PCIE         0\n"
    )
    assert _links(text) == [[0, 1, "PCIE"]]


def test_weight_and_hops_tables_are_no_links():
    text = (
        "================================ Weight between two GPUs =================================\n"
        "       GPU0         GPU1         \n"
        "GPU0   0            15           \n"
        "GPU1   15           0            \n"
        "\n"
        "================================= Hops between two GPUs ==================================\n"
        "       GPU0         GPU1         \n"
        "GPU0   0            1            \n"
        "GPU1   1            0            \n"
    )
    assert not (analyze_text(text).get("topology") or {}).get("links")

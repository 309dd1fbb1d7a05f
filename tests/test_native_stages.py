"""The native libraries' init code (tools/upstream/native_stages.py -> catalog/native_stages.json) and the placement it
gives (logscope/core/native_stages.py): init places a failure at startup, operation and teardown place nothing."""

from __future__ import annotations

from logscope.core import kinds, native_stages
from logscope.pipeline.parse.parsers.other_lines import parse_native_line
from tools.upstream import native_stages as tool

C_SOURCE = """\
#include "nccl.h"

static ncclResult_t fillInfo(struct ncclComm* comm, struct ncclPeerInfo* info) {
  NCCLCHECK(ncclGpuGdrSupport(&info->gdrSupport));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* newcomm, int nranks, ncclUniqueId commId, int myrank) {
  NCCLCHECK(ncclCommInitRankDev(newcomm, nranks, commId, myrank, 0));
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm);

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  NCCLCHECK(commDestroySync(comm));
  return ncclSuccess;
}
"""


def test_c_functions_reads_definitions_not_declarations():
    assert tool.c_functions(C_SOURCE) == [(3, 6, "fillInfo"), (8, 11, "ncclCommInitRank"), (15, 18, "ncclCommDestroy")]


def test_init_ranges_leave_teardown_out():
    assert tool.nccl_init_ranges(C_SOURCE, "src/init.cc") == [[3, 6, "fillInfo"], [8, 11, "ncclCommInitRank"]]


def test_bootstrap_keeps_only_its_set_up_functions():
    source = "ncclResult_t bootstrapInit(void* handle) {\n  return ncclSuccess;\n}\nncclResult_t bootstrapSend(int peer) {\n}\n"
    assert tool.nccl_init_ranges(source, "src/bootstrap.cc") == [[1, 3, "bootstrapInit"]]


def test_nvshmem_init_names():
    assert tool._is_init("nvshmemi_init_thread")
    assert tool._is_init("nvshmemt_ibrc_connect_endpoints")
    assert tool._is_init("ep_connect")
    assert not tool._is_init("nvshmemi_finalize")
    assert not tool._is_init("doca_verbs_qp_init_attr_create")  # DOCA's, not NVSHMEM's
    assert not tool._is_init("nvshmemt_ibrc_rma")  # a transfer: operation


def test_catalogue_places_nccl_lines_of_their_release():
    # NCCL 2.7.8 src/init.cc: line 840 is in ncclCommInitRankSync, line 300 in fillInfo (read from the v2.7.8-1 tag)
    assert native_stages._nccl_function("init.cc", 840, "2.7.8") == ("ncclCommInitRankSync", "2.7.8")
    assert native_stages._nccl_function("init.cc", 300, "2.7.8") == ("fillInfo", "2.7.8")
    assert native_stages._nccl_function("init.cc", 840, "9.9.9") is None  # a release the catalogue does not hold
    assert native_stages._nccl_function("init.cc", 840, None) is None  # the releases disagree on that line


def test_nccl_chain_placement_says_its_basis():
    chain = ["node:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed", "node:1:2 [0] NCCL INFO init.cc:840 -> 2"]
    placed = native_stages.place_nccl(chain, "2.7.8")
    assert placed is not None and placed.phase == "init_distributed"
    assert "init.cc:840, in ncclCommInitRankSync (NCCL 2.7.8 src/init.cc" in placed.basis
    assert native_stages.place_nccl(["node:1:2 [0] NCCL INFO proxy.cc:894 -> 6"], "2.7.8") is None


def test_nccl_check_lines_are_every_line_of_a_check_call():
    source = "ncclResult_t f() {\n  NCCLCHECK(a());\n  NCCLCHECKGOTO(b(comm,\n      x), res, fail);\n  c();\n}\n"
    assert tool.nccl_check_lines(source) == {2, 3, 4}
    assert tool._line_runs({2, 3, 4, 9}) == "2-4,9"


def test_a_chain_that_fits_one_release_only_places_without_a_printed_version():
    # NCCL 2.20.5 is the one tag whose src/init.cc has a check call on both 1010 (NCCLCHECK(ncclNvlsInit(comm)) in
    # initTransportsRank) and 1501 (ncclCommInitRankFunc); no release agrees on line 1010 alone
    chain = [
        "host:44712:44746 [2] transport/nvls.cc:246 NCCL WARN Cuda failure 3 'initialization error'",
        "host:44712:44746 [2] NCCL INFO init.cc:1010 -> 1",
        "host:44712:44746 [2] NCCL INFO init.cc:1501 -> 1",
    ]
    assert native_stages.nccl_release_of_chain(chain) == "2.20.5"
    placed = native_stages.place_nccl(chain, None)
    assert placed is not None and placed.phase == "init_distributed"
    assert "init.cc:1010, in initTransportsRank (NCCL 2.20.5, the one release with a check call" in placed.basis
    assert native_stages.place_nccl(chain[:2], None) is None  # one line pins no release
    # init.cc 1079 and 1358 are check calls in 2.18.3, 2.18.5 and 2.18.6: no one release, nothing placed
    assert native_stages.nccl_release_of_chain(["x NCCL INFO init.cc:1079 -> 3", "x NCCL INFO init.cc:1358 -> 3"]) is None


def test_nvshmem_placement_from_function_or_init_file():
    by_function = native_stages.place_nvshmem("aborting due to error in nvshmemi_init_thread")
    assert by_function is not None and by_function.phase == "startup" and "nvshmemi_init_thread" in by_function.basis
    by_file = native_stages.place_nvshmem("/opt/nvshmem/src/host/init/init.cu:327: non-zero status: 7 bootstrap failed")
    assert by_file is not None and "init.cu" in by_file.basis
    assert native_stages.place_nvshmem("/opt/nvshmem/src/host/comm/rma.cu:90: non-zero status: 7 put failed") is None


NVSHMEM_SOURCE = """\
static int create_shared_objects(state_t *state, int portid) {
    ah = ftable.create_ah(device->pd, &ah_attr);
    NVSHMEMI_NULL_ERROR_JMP(ah, status, NVSHMEMX_ERROR_INTERNAL, out, "Unable to create ah.\\n");
}

static int post_send(state_t *state) {
    NVSHMEMI_NZ_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out,
                          "ibv_post_send failed on qp %d.\\n", qp);
}

int nvshmemt_ibgda_connect_endpoints(nvshmem_transport_t t, int *selected_dev_ids) {
    status = create_shared_objects(state, portid);
    NVSHMEMI_NZ_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out, "create DCT share err.");
}

int nvshmemt_ibgda_rma(struct nvshmem_transport *t) {
    status = post_send(state);
}
"""


def test_nvshmem_error_checks_and_the_helpers_only_init_calls():
    assert tool.error_checks(NVSHMEM_SOURCE) == [
        (3, 3, "Unable to create ah."),
        (7, 8, "ibv_post_send failed on qp %d."),
        (13, 13, "create DCT share err."),
    ]
    functions = tool.c_functions(NVSHMEM_SOURCE)
    init = {name for _, _, name in functions if tool._is_init(name)}
    # create_shared_objects is called only by the connect function; post_send by an RMA op too
    assert tool._static_helpers(NVSHMEM_SOURCE, functions, init) == {
        "nvshmemt_ibgda_connect_endpoints",
        "create_shared_objects",
    }


def test_nvshmem_status_line_of_a_set_up_check_places_startup():
    # NVSHMEM 3.4.5 src/modules/transport/ibgda/ibgda.cpp (the v3.4.5-0 tag): line 2234 checks ibv_create_ah in
    # ibgda_create_dct_shared_objects, which only nvshmemt_ibgda_connect_endpoints calls; line 2966 is in that function
    line = "/opt/build/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah."
    placed = native_stages.place_nvshmem(line)
    assert placed is not None and placed.phase == "startup"
    assert "ibgda.cpp:2234 with its message is an error check in ibgda_create_dct_shared_objects" in placed.basis
    assert "NVSHMEM 3.3.8, 3.4.5" in placed.basis
    dct = native_stages.place_nvshmem("/x/ibgda.cpp:2966: non-zero status: 7 create DCT share err.")
    assert dct is not None and "nvshmemt_ibgda_connect_endpoints" in dct.basis
    # the same message on a line no release makes it on, or another message on that line: nothing
    assert native_stages.place_nvshmem("/x/ibgda.cpp:2235: NULL value Unable to create ah.") is None
    assert native_stages.place_nvshmem("/x/ibgda.cpp:2234: NULL value Unable to register memory.") is None


def test_cpp_asserts_read_per_function():
    source = (
        "Buffer::Buffer(int rank,\n               int num_ranks)\n    : rank(rank) {\n"
        "    EP_HOST_ASSERT(num_ranks > 0 and\n                   rank < num_ranks);\n}\n\n"
        "std::tuple<torch::Tensor, int> Buffer::low_latency_dispatch(const torch::Tensor& x) {\n"
        "    if (x.dim() == 2) {\n        EP_HOST_ASSERT(x.is_contiguous());\n    }\n}\n"
    )
    assert tool.cpp_asserts(source) == [
        ("Buffer::Buffer", "num_ranks > 0 and rank < num_ranks"),
        ("Buffer::low_latency_dispatch", "x.is_contiguous()"),
    ]


def test_deepep_constructor_assert_places_startup_dispatch_assert_nothing():
    constructor = "Failed: Assertion error /b/DeepEP/csrc/deep_ep.cpp:41 'num_ranks > NUM_MAX_NVL_PEERS or low_latency_mode'"
    placed = native_stages.place_deepep(constructor)
    assert placed is not None and placed.phase == "startup" and "Buffer::Buffer / Buffer::sync" in placed.basis
    dispatch = "Failed: Assertion error /b/DeepEP/csrc/deep_ep.cpp:1233 'x.dim() == 2 and x.is_contiguous()'"
    assert native_stages.place_deepep(dispatch) is None


MOONCAKE_SOURCE = """\
int TransferEngineImpl::init(const std::string &metadata_conn_string,
                             const std::string &local_server_name) {
    if (multi_transports_->installTransport("rdma", local_topology_) == nullptr) {
        LOG(ERROR) << "Failed to install RDMA transport, type="
                   << proto;
        return -1;
    }
}

Status TransferSubmitter::submit(const Replica &replica) {
    LOG(ERROR) << "Failed to open segment for endpoint='" << endpoint << "'";
    LOG(INFO) << "Submitted transfer for replica";
}
"""


def test_glog_sites_read_function_line_and_head():
    assert tool.glog_sites(MOONCAKE_SOURCE) == [
        (4, "TransferEngineImpl::init", "Failed to install RDMA transport, type="),
        (11, "TransferSubmitter::submit", "Failed to open segment for endpoint='"),
    ]
    assert tool._MOONCAKE_SETUP.match("init") and tool._MOONCAKE_SETUP.match("InitTransferEngine")
    assert tool._MOONCAKE_SETUP.match("setup_internal") and not tool._MOONCAKE_SETUP.match("submit")


def test_mooncake_set_up_glog_line_places_startup_a_transfer_nothing():
    # Mooncake v0.3.9 mooncake-transfer-engine/src/transfer_engine_impl.cpp:293, in TransferEngineImpl::init
    # (the file, line and message of the glog line as the native-log parser reads them)
    line = "E0302 09:15:07.980796     7 transfer_engine_impl.cpp:293] Failed to install RDMA transport, type=rdma"
    placed = native_stages.place_mooncake(*_glog_site(line))
    assert placed is not None and placed.phase == "startup"
    assert "printed by TransferEngineImpl::init, Mooncake's set-up code (Mooncake 0.3.9" in placed.basis
    assert native_stages.place_mooncake(*_glog_site(line.replace(":293]", ":294]"))) is None
    transfer = "E0116 07:02:59.408258 2594575 transfer_task.cpp:572] Failed to open segment for endpoint='10.0.0.30:15041'"
    assert native_stages.place_mooncake(*_glog_site(transfer)) is None


def _glog_site(line: str) -> tuple[str, str]:
    parsed = parse_native_line(line)
    assert parsed is not None and parsed[0] == kinds.NATIVE_LOG
    return parsed[1]["srcloc"], parsed[1]["message"]


def test_a_chain_that_fits_several_releases_places_where_they_agree_on_the_function():
    # mine16b (vllm-20226): init.cc 1397, 1704 and 1730 are check calls in NCCL 2.26.2 and 2.26.3 alone, in
    # ncclCommInitRankFunc, ncclCommInitRankDev and ncclCommInitRank in both: communicator init whichever it was
    chain = [
        "server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'",
        "server:2699411:2699411 [0] NCCL INFO init.cc:1397 -> 1",
        "server:2699411:2699411 [0] NCCL INFO init.cc:1704 -> 1",
        "server:2699412:2699412 [1] NCCL INFO init.cc:1730 -> 1",
    ]
    assert native_stages.nccl_releases_of_chain(chain) == frozenset({"2.26.2", "2.26.3"})
    assert native_stages.nccl_release_of_chain(chain) is None  # no one release
    placed = native_stages.place_nccl(chain, None)
    assert placed is not None and placed.phase == "init_distributed"
    assert "init.cc:1397, in ncclCommInitRankFunc (NCCL 2.26.2, 2.26.3, the releases with a check call" in placed.basis
    # a line no catalogued release has as a check call fits no release: nothing pinned, and the line alone places
    # nothing where the releases disagree on it
    assert native_stages.nccl_releases_of_chain(["x NCCL INFO init.cc:1397 -> 1", "x NCCL INFO init.cc:99999 -> 1"]) is None
    assert native_stages.place_nccl(["x NCCL INFO init.cc:1397 -> 1", "x NCCL INFO init.cc:99999 -> 1"], None) is None


def test_the_fitting_releases_are_named_in_numeric_order():
    # review16b item 3: "2.14.3 .. 2.5.6" was the string order of a set that is no run
    from logscope.core.native_stages import _release_key

    assert sorted(["2.14.3", "2.5.6", "2.15.1"], key=_release_key) == ["2.5.6", "2.14.3", "2.15.1"]

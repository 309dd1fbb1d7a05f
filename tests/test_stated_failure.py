"""A failure the issue states in its own words (parsers/stated_failure.py, issue 43 item 3): the sentences that state
one, and those that mention failure words without a failure of this run. Each sentence is copied from a real paste
of the mined corpus (built part) or from the probe's issue excerpts (/work/notes/probe-prose.md)."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers.stated_failure import DEVICE_MEMORY, HOST_MEMORY, parse, stated_memory

STATED = [
    # deepseek-ai/DeepEP#294: the error only quoted in a sentence
    ('As shown in image, it stuck here then got "check timeout failed" Error.', 'got "check timeout failed" Error'),
    # sglang-13202 (built)
    ("it failed without error message", "failed without"),
    # megatron-bridge-5067 (built)
    (
        'Running the Kimi K2 FP8-MX pretrain config with moe_flex_dispatcher_backend="deepep" in container 26.06.01 fails at'
        " the first forward pass with a DeepEP CPU dispatch timeout during MoE token dispatch.",
        "fails at",
    ),
    # ktransformers-1678 (built)
    ("When I switch to Qwen3-235B-A22B(INT4), it crashes because of CUDA out of memory.", "crashes"),
    # AbdBarho/stable-diffusion-webui-docker#457 and #296 (probes): a contracted "it is killed"; a process that started,
    # "but exits" during a step
    ("Finally, it's killed。", "'s killed"),
    ("The container spins up, but exits during loading the model", "but exits during"),
    # InternLM/lmdeploy#841 (probe): the ability in the clause before ", but" is no supposition of the failure
    ("I can launch the inference server, but it crashes when receiving a call for inference.", "crashes"),
    # OOM as a process's verb, a router's panic, "it errors with", requests that fail, a 5xx answer, a process another
    # one killed, an exception class or a timeout met (each names the failure itself)
    ("After several hours the server OOMs.", "server OOMs"),
    ("Decode node OOM after running for a while.", "node OOM"),
    ("Memory keeps growing until OOM.", "until OOM"),
    ("The router panics when a worker is removed.", "router panics"),
    ("It errors with KeyError: 'model.layers.0'.", "It errors with"),
    ("All requests fail with 500 Internal Server Error.", "requests fail"),
    ("Requests start failing after 10 minutes.", "Requests start failing"),
    # sgl-project/sglang#393 (probe, runtime16): the bare verb after out of memory
    ("Prefill out of memory occur when deployed with servers", "out of memory occur"),
    # sgl-project/sglang-jax#195 (probe, runtime16): the bare verb at the sentence's end after the process
    ("when i eval Qwen/Qwen-8B with gsm8k dataset, the server crash.", "server crash"),
    # (the process opens its clause: at the sentence's start, or after "then")
    ("The server crash.", "server crash"),
    ("I sent the second request and then the scheduler crash.", "scheduler crash"),
    # (the singular's bare verb, and the plural's own third-person verb, still state it)
    ("OOM happen when I send long prompts.", "OOM happen"),
    ("OOM errors happened during prefill.", "OOM errors happened"),
    ("The server returns 500 errors after a while.", "returns 500"),
    ("The watchdog killed the server.", "killed the server"),
    ("I encountered a RuntimeError during decoding.", "encountered a RuntimeError"),
    ("Got NCCL timeout after 10 minutes.", "Got NCCL timeout"),
    ("We hit an illegal memory access in the decode worker.", "hit an illegal memory access"),
    # sgl-project/sglang#25937 (probe): the denial is in the clause the sentence turns from with ", but"; "crash" with an
    # adverb of frequency
    (
        "in my case, the server will not crash on first request, but crash randomly after few hours serving",
        "crash",
    ),
    # a "when" clause with no possibility after it is a report of the run
    ("When I send two requests at once the server crashes.", "crashes"),
    # sglang-10736 (built)
    ("But always got memory error when try to run a qwen3.", "got memory error"),
    # sglang-27487 (built)
    ("SGLang currently fails to start on a machine using the NVIDIA R610+ driver stack with CUDA UMD 13.3.", "fails to start"),
    # sgl-project/sglang#4094 (probe)
    ("But after about 2 minutes, the process is always killed automatically.", "is always killed"),
    # sgl-project/sglang#3424 (probe)
    (
        "When deploying dpsk-r1 using IB communication on two H100 units, unexpected crashes frequently occur.",
        "crashes",
    ),
    # mooncake-1338 (built)
    ("And then import mooncake module, the core dumped happens.", "core dumped"),
    # sglang-37931 (built): the kernel's OOM killer, as people name what it did
    ("Startup was OOM-killed during weight loading.", "OOM-killed"),
    # specforge-274 (built): "got an error" names nothing, but the error's own words follow its colon (issue 43)
    (
        "when prepare_hidden_states for offline training, we meet an error: load_model() missing 1 required positional"
        " argument: 'tp_rank'",
        "meet an error",
    ),
    # open-webui#6168 (probe): "following" the verb points at no text elsewhere
    ("After following the guide, the server dies with code 137.", "dies"),
    # sgl-project/sglang#3444 (probe): a flag that causes the failure
    ("when I add param `--torch-compile-max-bs`\uff0c it causes the oom exception on one gpu", "causes the oom"),
    # glm-v-124 (built): an OOM met names the failure itself, as "an error" does not
    (
        "Even after the server is launched, it encounters the OOM after a certain number of requests.",
        "encounters the OOM",
    ),
    # flashinfer-3206 (built): a kernel that errors out
    ("FlashInfer trtllm kernel for nvfp4 MoE model with intermediate size 704 errors out.", "errors out"),
    # constructed in the shapes issues use for a server or a process that ended
    ("The server goes down after about 10 minutes of load.", "server goes down"),
    ("The process exits with code 1 right after loading the weights.", "process exits with code 1"),
    ("The server exited unexpectedly during cuda graph capture.", "exited unexpectedly"),
    ("The container keeps restarting every few minutes.", "keeps restarting"),
    ("The server blows up with OOM when the batch is large.", "server blows up"),
    ("The scheduler process was terminated by signal 9.", "terminated by signal"),
    ("The engine is unable to start with --enable-ep-moe.", "unable to start"),
    ("Any request makes the scheduler crash.", "makes the scheduler crash"),
    # peonist-ai/halogen-flash-server#15 (probe)
    (
        "When using the server in Hermes Agent, I was able to crash the server two times within a few minutes.",
        "crash the server",
    ),
    # sglang-24049 (built): the result of a launch, in Chinese ("result: initialization failed")
    ("👉 结果：初始化失败", "初始化失败"),
    # xorbitsai/inference#1089 (probe): every running model exited abnormally
    ("表现为：刷新UI没有任何模型显示，所有正在运行的模型全部异常退出，无法自动恢复。", "模型全部异常退出"),
    # constructed in the same shape: memory ran short while serving, an error at start
    ("跑了一段时间之后显存不足，服务直接崩溃", "显存不足"),
    ("按照文档启动报错了", "启动报错"),
    # a time after the step, with the failure said to have happened (了)
    ("启动后就崩溃了", "启动后就崩溃"),
    # 请求 (a request) is no 请 (please)
    ("部分请求报错了", "请求报错"),
    # 之前 after a step is "before it", no past that is over
    ("加载模型之前就报错了", "报错了"),
]

NOT_STATED = [
    # runtime16: the bare verb asked about or prevented
    "Does OOM happen with this setting?",
    "To make sure no OOM occur, set the fraction lower.",
    # review16a item 2: the plural's own verb, or a generic lead, is how OOM comes about, not that it came
    "Out of memory errors happen when the KV cache pool is larger than the free memory.",
    "In general, OOM errors occur if --mem-fraction-static is set too high.",
    "The docs explain in which cases OOM happen.",
    "In general, OOM happen when the batch is too large.",
    # runtime16: the bare verb after the process, asked about, fixed, or a noun before another word
    "How to avoid the server crash?",
    "We fixed the server crash.",
    "The server crash log is attached below.",
    # review16a item 1: "<process> crash" at a sentence's end is the compound noun unless the process opens its clause
    "Related: a health check that detects the server crash.",
    "Added a watchdog for the scheduler crash.",
    "Here is the log of the server crash.",
    "Thanks for looking into the container crash!",
    # the brief's quiet case, and denials
    "It works (I restarted the container and nothing failed).",
    "The server starts without crashing and there is no error.",
    "It does not crash anymore",
    # questions and suppositions
    "What if it fails?",
    "If the server crashes, restart it.",
    "This PR informs users that using CUDA graphs may lead to OOM, and it provides a solution to this.",  # vllm#2182
    # a change that fixes or avoids it (opencog#2656, opencog#1015, sglang#26326)
    "sureal crashes in misc situations; this simply avoids the crash; it does not fix the root cause.",
    'Fixes one way that can crash (r2l "...") calls.',
    "That PR fixes a segfault in `mooncake::MemcpyWorkerPool::workerThread()` that fires whenever multiple SGLang"
    " workers run as separate processes on one node.",
    # another thread's failure, a reproduction attempt (nccl-875, sglang-6843, Mooncake#1426)
    "Hi, I've got the same error.",
    "I am getting the same error.",
    "I tried to reproduce the reported segfault using your code snippet, but I could not reproduce it on my side.",
    # a sentence that introduces a text shown elsewhere (sglang-3416, sglang-3362, sglang-5594, verl-1049); one that
    # names a failure is read as pointing (test_a_pointing_sentence_is_read_as_pointing)
    "I got some error like this,please help",
    # a link after the colon points at the text elsewhere (deepep-268's pastebin, as a user would write it)
    "I got an error: https://pastebin.com/raw/Q7Z2KGja",
    "Hi, I get this error when using SGLang for rollout.",
    # a noun, not an event (lm-evaluation-harness#2738, Quorra#35)
    "2. add a tip to provide solutions for OOMs.",
    "Hey! Thanks for providing crash logs.",
    # a title (kvcached#5): the report's name, not its evidence
    "# SGLang server crashes after benchmark client completes",
    # a template's checklist line and an HTML comment
    "- [x] 2. The bug has not been fixed in the latest version.",
    '<!-- Failed to upload "image.png" -->',
    # a change, a possibility or a pointer with a verb of cause
    "This change causes errors when the flag is off.",
    "It may cause OOM on small GPUs.",
    "Which flag causes the error below",
    # the same forms about a number, a clean exit, a condition, a question, a fix, a wish
    "The throughput goes down when I increase the batch size.",
    "The process exits with code 0 when it finishes.",
    "If the server goes down, the router retries.",
    "Does the server go down when the router restarts?",
    "This PR fixes the server that keeps restarting.",
    "It would be great if the engine did not blow up with long prompts.",
    "The process is terminated by systemd on shutdown, which is expected.",
    "How do I avoid that a long prompt crashes the server?",
    # review12a item 17: a metric's "blew up" / "went down", a denial inside the match, a general statement, a proposal,
    # a pull request's or the docs' behaviour, a feature request, a fix's property, something other than the server
    "The loss blew up after step 1000 in training.",
    "Our cost blew up because of the long prompts.",
    "The latency blows up with batch size 256.",
    "The number of tokens blew up.",
    "GPU utilization of the worker went down to 30%.",
    "Memory usage of the server went down after enabling --enable-mixed-chunk.",
    "With vLLM the server never goes down under this load.",
    "Kubernetes restarts pods that exit with code 137.",
    "I propose that the process exit with code 1 instead of hanging.",
    "The PR makes the router exit with status 2 on bad config.",
    "The docs say that the process exits with code 1 on invalid arguments.",
    "The container exits immediately after printing the help text, which is expected.",
    "Feature request: restart the worker automatically when it exits unexpectedly.",
    "Setting --disable-cuda-graph makes it crash less.",
    "Changing the dtype made the model crash less often.",
    "This option makes the router crash-safe.",
    "The script is unable to load the tokenizer from a local path, so I pass --tokenizer-path.",
    "I was unable to run the benchmark because I have no access to H100.",
    # sgl-project/sglang-omni#293 (probe): an OOM met in general, the server going on
    "When SGLang hits an OOM during a TTS request, the server does not crash or return an error.",
    "A long prompt no longer crashes the server.",
    # sgl-project/sglang#3877 (probe, a pull request's motivation): a "when" clause whose main clause is a possibility
    "When the backend SGLang service crashes, the router may also crash as a result.",
    "The script prints its summary, but exits with code 0 when it is done.",
    "It's killed by me with Ctrl-C after the benchmark.",
    "It works on H100, but it might crash on H20.",
    # the same words as a setting, a policy, a general statement, a question, a wish or another engine's
    "Set --watchdog-timeout 600 to increase the timeout.",
    "You can increase the NCCL timeout with NCCL_TIMEOUT.",
    "Requests that fail are retried by the router.",
    "If requests fail, the client retries.",
    "The endpoint returns 200 OK.",
    "The server returns 503 when the queue is full, which is expected.",
    "This PR makes the router return 503 when no worker is available.",
    "Kubernetes kills pods that exceed their memory limit.",
    "I killed the server with Ctrl-C.",
    "It should not OOM with mem-fraction 0.8.",
    "Does the server OOM with this config?",
    "We should handle the RuntimeError gracefully.",
    "The router panics if the config is invalid, as designed.",
    "Requests start at 10 QPS and ramp up.",
    "Maybe it would OOM with larger batches.",
    "With vLLM the server OOMs, but SGLang is fine.",
    "The function returns 5 items.",
    "Requests failed over to the other replica.",
    "The number of requests failed is shown in the dashboard.",
    "Requests fail over to the standby router.",
    "It does not crash randomly anymore, but the latency is high.",
    "If you get an illegal memory access, set CUDA_LAUNCH_BLOCKING=1.",
    "This PR fixes the illegal memory access in the MoE kernel.",
    # sgl-project/sglang#22779 (probe): a hang report whose only timeout is a setting after a count
    "All subsequent requests hang indefinitely — TCP connections are accepted but no SSE data is ever sent (0 tokens"
    " received, 300s timeout).",
    "The server might crash randomly under load.",
    # sglang-33740 (built): "timeout" as a verb of what may happen
    "This caused benchmark to fail: it will timeout when performing the warmup request.",
    "Whenever a worker dies, the gateway could return 503 for a while.",
    # the same in Chinese: a denial, a condition, a question, a pointer to a text elsewhere, a fix, another report's
    # failure, a plan (sglang-24049's template sentence and its workaround's result: no failure words of this run)
    "服务正常启动，没有报错。",
    # review12a item 18: a condition or a time after the words (失败时, 的话, 的时候), 当, a suggestion, a wish, a topic
    # (失败的原因, 失败问题, 报错的用例), a failure of the past that is over, another engine's or CI's, a normal one
    "调用失败时返回 500。",
    "连接失败时客户端会自动重连。",
    "编译失败的话请检查 nvcc 版本。",
    "当内存不够的时候，系统会使用 swap。",
    "文档里说显存不足时会自动降低 mem-fraction-static。",
    "建议在加载失败时给出更清晰的提示。",
    "希望增加一个选项，服务崩溃后自动重启。",
    "加载失败的原因可能是路径不对。",
    "官方镜像的安装失败问题可以参考 #1234。",
    "测试报错的用例我已经跳过了。",
    "之前版本初始化失败的问题已经在 0.5.3 修复了。",
    "之前出现了OOM，现在调小 batch 后正常了。",
    "vLLM 上推理报错，SGLang 上正常。",
    "CI 上单元测试失败，但是跟这个 PR 无关。",
    "我们的训练过程中显存不足是正常的，可以调小 batch。",
    "如果显存不足，请调小 mem-fraction-static。",
    "请问启动失败是什么原因？",
    "这样启动会失败吗",
    "启动报错如下：",
    "这个PR修复了初始化失败的问题。",
    "我也遇到了同样的启动失败问题",
    "在提交新问题之前，请确保您已经在社区中搜索过相关问题，仍未找到满意的解决方式。",
    "关闭后服务正常启动，KV cache 正常分配",
    "不会崩溃",
]


@pytest.mark.parametrize(("sentence", "said"), STATED)
def test_a_sentence_that_states_a_failure_is_read(sentence: str, said: str) -> None:
    parsed = parse(sentence)
    assert parsed is not None
    assert parsed.data["said"] == said


@pytest.mark.parametrize("sentence", NOT_STATED)
def test_a_sentence_without_a_failure_of_this_run_is_not_read(sentence: str) -> None:
    assert parse(sentence) is None


def _failures(text: str) -> list[tuple[str, str | None, str]]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return [(f.finding, f.event.kind, f.phase) for found in analysis.failures.values() for f in found]


def test_a_stated_failure_is_a_failure_of_unknown_time():
    assert _failures('As shown in image, it stuck here then got "check timeout failed" Error.\n') == [
        ("failure-time-unknown", "stated_failure", "unknown")
    ]


def test_the_sentence_that_states_it_may_place_it():
    (failure,) = _failures("Starting the server fails during startup with a cryptic message.\n")
    assert failure[2] == "startup"


def test_a_failure_line_of_the_paste_takes_its_place():
    text = "The server crashes with DeepEP after loading weights.\nRuntimeError: NCCL error: unhandled system error\n"
    assert [kind for _, kind, _ in _failures(text)] == ["exception"]


def test_one_sentence_stands_for_the_others():
    text = "The server crashes when I send two requests.\nThe scheduler was killed by the OOM killer.\n"
    assert len(_failures(text)) == 1


def test_a_section_that_says_what_should_happen_or_what_a_change_does_states_no_failure():
    expected = "### Expected behavior\n\nThe server crashes never, and it keeps serving.\nIt crashes with the fix off.\n"
    assert _failures(expected) == []
    pull = (
        "## Motivation\nDuring initialization the process would block.\n\n"
        "### How to Reproduce\nThe launcher crashes with no error.\n"
    )
    assert _failures(pull) == []
    feature = "# [Feature] Prevent OOM Crashes\n\n1. I tried the batches API; the server crashes with many requests.\n"
    assert _failures(feature) == []


@pytest.mark.parametrize(
    "sentence",
    [
        # review12a item 25: designed behaviour, another engine, the user's own stop, a "crash course"
        "The CLI errors out with a helpful message when --tp is missing, as designed.",
        "The launcher errors out early for invalid configs, which is good.",
        "vLLM errors out on this model too, so it is likely a model bug.",
        "On vLLM the container keeps restarting, but SGLang is fine.",
        "The process was terminated by signal 15 when I pressed Ctrl-C.",
        "The benchmark script made the GPU memory crash course obvious.",
    ],
)
def test_designed_behaviour_another_engine_or_the_user_s_stop_is_no_failure_of_the_run(sentence):
    assert parse(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("The kernel errors out at the first batch.", "errors out"),
        ("The server keeps restarting after the first request.", "keeps restarting"),
        ("The worker was terminated by signal 9.", "terminated by signal"),
        ("Sending this request makes the server crash.", "makes the server crash"),
    ],
)
def test_the_forms_still_read_a_failure_of_the_run(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == said


# a sentence that points at its failure's text (deepep-268's shape, built: "trying to run `test_low_latency` it failes with
# the following log:" then a pastebin link): the failure is stated, its text is elsewhere, so the sentence is the evidence
POINTING = "Trying to run test_low_latency, the server crashes with the following log:"


@pytest.mark.parametrize(
    "after",
    [
        "\nhttps://pastebin.com/raw/Q7Z2KGja\n\nHere is my network setup:\n",  # a pastebin link on the next line
        '\n\n<img width="1136" alt="Image" src="https://github.com/user-attachments/assets/a752d2a4" />\n',  # a screenshot
        " https://gist.github.com/someone/0123abcd\n",  # the link after its words on the line
    ],
)
def test_a_sentence_pointing_at_a_text_elsewhere_states_the_failure(after):
    assert _failures(POINTING + after) == [("failure-time-unknown", "stated_failure", "unknown")]


def test_a_pointing_sentence_is_read_as_pointing():
    parsed = parse("After starting the server, it just crashes with the following log:")
    assert parsed is not None and parsed.data == {
        "sentence": "After starting the server, it just crashes with the following log:",
        "said": "crashes",
        "points": True,
    }


def test_a_sentence_pointing_at_the_text_that_follows_is_no_evidence_of_its_own():
    # sglang-3416 (built): the log follows (cut before any error line): the log is the evidence, and shows no failure
    log = "\n\n```\n[2025-02-09 03:12:21] server_args=ServerArgs(model_path='/data/textgen_cache/models/deepseek-v3', tp_size=8\n"
    assert _failures(POINTING + log) == []
    assert _failures(POINTING + "\n") == []  # (the copy ends there: cut, not elsewhere)


# a sentence that says memory ran out is an OOM, not a crash: the device's (PyTorch's, SGLang's pools) unless the
# sentence names the host's kill or memory and no GPU memory (sentences of built pastes of the mined corpus)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # glm-v-124 (built): after requests were served
        (
            "It can successfully launch the server and take in requests. But after a number of requests, it encounters"
            " the OOM.\n",
            ("runtime-oom", "memory", "serving"),
        ),
        # ktransformers-1678 (built): no time in its words
        (
            "When I switch to Qwen3-235B-A22B(INT4), it crashes because of CUDA out of memory.\n",
            ("oom-time-unknown", "memory", "unknown"),
        ),
        # sglang-37931 (built): the kernel's OOM killer, host memory
        ("Startup was OOM-killed during weight loading.\n", ("host-oom", "host_memory", "startup")),
        # sgl-project/sglang#8902 (probe, built): "gets cuda out of memory", the words of the OOM after a verb of meeting it
        (
            "The GPU memory keeps increasing until it gets cuda out of memory for the coming request.\n",
            ("oom-time-unknown", "memory", "unknown"),
        ),
        # the memory named between "out of" and "memory" (the prefilter's pieces hold it), a library named by the sentence
        ("FlashInfer runs out of GPU memory during the first prefill.\n", ("oom-time-unknown", "memory", "unknown")),
        ("The DeepGEMM warmup OOMs on 8xH20 with --tp 8.\n", ("oom-time-unknown", "memory", "unknown")),
        # the verb in the present, placed by its own words (capture, serving)
        ("When I run DeepSeek-V3 on 8xH20, the server OOMs during cuda graph capture.\n", ("capture-oom", "memory", "startup")),
        ("It always OOMs after serving a few hundred requests.\n", ("runtime-oom", "memory", "serving")),
        # guqiong96/Lsglang#14 (probe, built): "resulting in OOM", the host's by its paragraph's "512GB RAM", at startup
        # by its "When loading the model"
        (
            "When loading the model on a system with 512GB RAM, JIT compilation causes a memory explosion. The model itself"
            " requires ~400GB to load, and the subsequent JIT compilation triggers additional massive memory spikes,"
            " resulting in OOM (Out of Memory).\n",
            ("host-oom", "host_memory", "startup"),
        ),
        (
            "After the first long prompt, the KV transfer buffers grow without bound, resulting in OOM on GPU 3.\n",
            ("oom-time-unknown", "memory", "unknown"),
        ),
        # a sentence that opens with the OOM and says when, with no verb (sgl-project/sglang#4708's form, probe, built)
        ("CUDA OOM during cuda graph capture with --tp 8 on H20.\n", ("capture-oom", "memory", "startup")),
        # a crash the words do not tie to memory stays a crash
        ("But after about 2 minutes, the process is always killed automatically.\n", ("failure-time-unknown", None, "unknown")),
    ],
)
def test_a_sentence_that_says_memory_ran_out_is_an_oom(text, expected):
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    found = [(f.finding, f.mechanism, f.phase) for failures in analysis.failures.values() for f in failures]
    assert [
        (finding, mechanism, "startup" if phase not in ("serving", "unknown") else phase) for finding, mechanism, phase in found
    ] == [expected]


def test_which_memory_a_sentence_says_ran_out():
    assert stated_memory("got OOM", "After about 100 requests the container got OOM-killed.") == HOST_MEMORY
    assert (
        stated_memory("runs out of GPU memory", "It runs out of GPU memory and the OOM killer is not involved.") == DEVICE_MEMORY
    )
    assert stated_memory("crashes", "it crashes because of CUDA out of memory.") is None
    assert stated_memory("爆显存", "推理时爆显存") == DEVICE_MEMORY


@pytest.mark.parametrize(
    "sentence",
    [
        "I do not get out of memory errors with vLLM.",
        "OOM when the model is too large is expected.",
        "Out of memory on the first request?",
        "How can I avoid getting out of memory errors?",
        "We never see OOMs with vLLM on this box.",
        "How do I avoid OOMs when serving 128k context?",
        "There are no OOMs in the log.",
    ],
)
def test_oom_words_that_deny_ask_or_avoid_state_no_failure(sentence):
    assert parse(sentence) is None


def test_a_sentence_that_says_memory_ran_out_keeps_the_library_it_names():
    text = "The DeepGEMM warmup OOMs on 8xH20 with --tp 8.\n"
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    assert [(f.finding, f.library) for found in analysis.failures.values() for f in found] == [("oom-time-unknown", "DeepGEMM")]


def test_a_consequence_a_container_image_and_the_progressive_state_a_failure():
    # fix15b: "preventing the engine from starting" is the failure's consequence (a fix prevents a crash); "the Docker
    # image" is what ran, no picture pointing elsewhere; "is failing in/at" is the verb after its subject
    said = parse(
        "When running the Docker image, the FlashInfer JIT compilation fails with a Ninja build error, preventing the"
        " engine from starting."
    )
    assert said is not None and said.data["said"] == "fails with" and "points" not in said.data
    built = parse("The image build is failing in the release pipeline at the compilation step.")
    assert built is not None and built.data["said"] == "is failing in"
    # negatives: a fix that prevents a crash, a picture, a failing test named as a noun, a denial
    assert parse("This patch prevents the server from crashing when the pool is full.") is None
    pointing = parse("The server fails with an error, see the image below.")
    assert pointing is not None and pointing.data.get("points") is True
    assert parse("There is a failing test in CI for the router.") is None
    assert parse("The server is not failing in this setup.") is None


def test_a_quoted_failure_message_said_to_recur_states_a_failure():
    # fix15b: a code span quoting the failure's own message, then "recurred" / "occurred" / "persists"
    said = parse("With the new build the DeepEP `timeout (dispatch CPU)` recurred on every node.")
    assert said is not None and said.data["said"].strip().startswith("`timeout (dispatch CPU)` recurred")
    again = parse("After the upgrade the `NCCL error: unhandled system error` still persists on rank 3.")
    assert again is not None
    # negatives: a span with no failure word, or a failure message that did not recur
    assert parse("The `moe_recv_expert_counter` recurred in the log on every node.") is None
    assert parse("The `timeout (dispatch CPU)` never recurred after the fix.") is None


def test_what_the_run_s_log_shows_states_its_failure():
    # fix15b (verl-3873's shape, constructed): "the original log shows an NCCL `ALLREDUCE` timeout during ..." (the op in
    # a code span is one word of the verb's object)
    said = parse("The original log shows an NCCL `ALLREDUCE` timeout during the second `generate_sequences`.")
    assert said is not None and said.data["said"] == "shows an NCCL `ALLREDUCE` timeout"
    # negatives: a log that shows no failure, or a timeout that is a setting
    assert parse("The log shows the server is ready.") is None
    assert parse("The output shows no error during the run.") is None
    assert parse("The log shows the `NCCL_TIMEOUT` timeout setting is 600.") is None


def test_a_ci_job_lint_or_test_that_is_failing_is_no_run_of_the_program():
    # review15c item 3: the progressive's subject is the program or its build, not a CI job, a lint check or a test
    assert parse("The lint job is failing on main because of an unrelated ruff update; please ignore it.") is None
    assert parse("The CI check is failing on the docs build.") is None
    assert parse("test_foo is failing with the new tokenizer.") is None
    assert parse("The docs build is failing in the release pipeline.") is None
    # positives: the server, the package's build
    server = parse("The server keeps failing at CUDA graph capture.")
    assert server is not None and server.data["said"] == "keeps failing at"
    built = parse("The SGLang wheel build is failing in the release pipeline at the FlashMLA compilation step.")
    assert built is not None and built.data["said"] == "is failing in"


def test_a_code_span_is_a_quoted_failure_only_when_it_reads_as_a_message():
    # review15c item 4: an option, an identifier or a setting in a code span, or an infinitive/state frame, is no
    # failure message said to occur
    assert parse("In our deployment the `--watchdog-timeout` happens to be 600 because loading is slow.") is None
    assert parse("In our deployment the `--watchdog-timeout` occurred in the config.") is None
    assert parse("The `error_log` persists across restarts, which is handy.") is None
    assert parse("The `error_log` occurs in every run directory.") is None
    assert parse("The `TIMEOUT=1800 crash` occurs in the docs.") is None
    # positives: words with a standalone failure word, an exception class, "error: <text>"
    said = parse("With the new build the DeepEP `timeout (dispatch CPU)` recurred on every node.")
    assert said is not None and said.data["said"].strip() == "`timeout (dispatch CPU)` recurred"
    assert parse("The `RuntimeError` occurred again on rank 3.") is not None
    assert parse("After the upgrade the `NCCL error: unhandled system error` still persists on rank 3.") is not None


def test_a_count_of_zero_or_no_errors_states_no_failure():
    # review15c item 7: "zero"/"no" as the count of the got-verb's object is none, like "0 errors"
    assert parse("The log shows zero errors, but throughput is low.") is None
    assert parse("I got zero errors, but throughput is low.") is None
    assert parse("We got no errors in the first hour.") is None
    # positives: a count of some errors, a named one
    assert parse("The log shows two errors during CUDA graph capture.") is not None
    assert parse("I got a RuntimeError during CUDA graph capture.") is not None


def test_a_third_person_s_present_meeting_in_a_when_clause_is_a_condition():
    # mine16b (sglang-37019, a pull request's summary bullet): a behaviour on a condition, no failure of a run
    assert parse("- Raise when Mooncake single-region registration or deregistration reports a backend failure.") is None
    assert parse("Return early when the prefill worker gets a transfer error.") is None
    # positives: the writer's run in the clause, the past, a meeting outside a when clause
    mine = parse("When I launch the server it hits a CUDA error.")
    assert mine is not None and mine.data["said"] == "hits a CUDA error"
    past = parse("When the worker reported an error the router crashed.")
    assert past is not None and past.data["said"] == "crashed"
    plain = parse("The decode worker reports a transfer failure on every request.")
    assert plain is not None and plain.data["said"] == "reports a transfer failure"

"""The guards of the prose readers (time_claims.py, time_cues.py, stated_failure.py): the words that keep a sentence
of an issue from stating or placing a failure (a denial, a condition, a possibility, an intent, a question), each
defined once where the readers mean the same."""

from __future__ import annotations

import re

# the data key of a failure read from an exception a sentence names after its own words (classify.py): weaker than a log
# line, it gives way to any other failure of the input (signatures/match.py)
NAMED_IN_SENTENCE = "named_in_sentence"
# a clause ends at these: "I'm not sure why, but it crashes" states the crash
CLAUSE = re.compile(r"[,;:(]|\bbut\b|\bhowever\b", re.IGNORECASE)
# in the failure word's clause before it: a denial ("no error", "without crashing", "does not crash", "nothing failed");
# an error message's own words after it ("it raised a error: No model info found") deny nothing
DENIED = re.compile(r"(?i)\b(?:no|not|never|without|nothing|none|neither|nor|cannot|no longer)\b|n't\b")
# a condition ("if the server crashes", "what if it fails", "in case it hangs")
CONDITION_WORDS = r"if|unless|whether|in case"
CONDITION = re.compile(r"(?i)\b(?:" + CONDITION_WORDS + r")\b")
# a possibility, an expectation or another way ("it might crash", "expected to fail", "instead of failing")
SUPPOSED_WORDS = r"may|might|could|would|can|should|shall|must|expect(?:s|ed)?|how to|instead of|rather than"
# what the writer means to do, not what happened ("I want to send requests to see the error")
INTENT_WORDS = r"going to|plan(?:ning)? to|(?:try|trying|want|wanted|need|needs) to"
# the marks that end a question
QUESTION_MARKS = "?？"
# a claim said in the negative ("not during initialization", "（不是初始化）" before it), as a condition ("If you see
# out-of-memory errors during serving, ...": SGLang's own advice) or as a possibility ("issues may be encountered
# during startup", "it might fail during startup": what can happen, not when this failure did) places nothing; "I could
# reproduce it during startup" and "the server could crash during startup, as it did here" are no possibility; nor is
# a claim inside a "when" clause of any instance ("When an SGLang server process dies during startup, the error now
# includes the exit code": a rule's condition, as "if" is; "When I started it, it died during startup" is a run's)
NEGATED = re.compile(
    r"(?i)(?:\bnot|n't|\bno longer|不是)\W*(?:\w+\W+){0,2}$|\b(?:" + CONDITION_WORDS + r")\b[^.;:!?]*$"
    # (only a clause that opens its sentence and whose subject is the process failing in the generic present: "When
    # a second request arrives" in "The server crashes when a second request arrives." is this run's time, review16a
    # item 3; modifiers only before the process noun, "When a request reaches the server ..." has it as its object,
    # review16b item 5)
    r"|(?:^|[.!?:;]\s+|^[-*\s]+)when(?:ever)?\s+(?:an?|any)\s+(?:(?!(?:the|a|an|to|of|its|their)\b)[\w-]+\s+){0,3}?"
    r"(?:process(?:es)?|server|worker|rank|engine|scheduler|node|instance)\s*(?:(?:dies|crashes|fails|exits|hangs)\b[^.;:!?,]*)?$"
    r"|\b(?:may|might|could)\s+(?:also\s+)?(?:(?:be(?:\s+(?:encountered|seen|observed|raised))?|happen|occur|appear|arise)\s+)?$"
)
# a Chinese or Japanese claim said in the negative or as a plan: 没(有)/未/还没/尚未/不, 计划/准备/打算 just before it or
# inside it ("还没发请求时就报错了": it failed before any request was sent; "计划做高并发测试": a test not yet run), or the
# Japanese negative forms (送らない, 送っていない)
CJK_NEGATED = re.compile(r"没|未|不|计划|准备|打算|ない|ません")
# a line of Python source quoted in an issue or a pull request (a fence's line, a diff's "+"/"-" line): a statement that
# raises, returns or awaits a call, or calls a name of a module or an object, its result assigned or not
# ("self.record_failure(room, \"Failed to send kv chunk ...\")", "raise RuntimeError(\"...\")", "logger.error(f\"...\")",
# "print(\"...\")"). The strings it passes are the program's text, no record this run printed; a traceback's own
# source lines are read with their frame (classify.py reads this guard outside a traceback only)
_CODE_KEYWORD = r"^[+-]?\s*(?:raise|return|yield|await|assert)"
_CODE_STATEMENT = re.compile(
    r"(?:" + _CODE_KEYWORD + r"\s+[A-Za-z_][\w.]*\("
    r"|^[+-]?\s*(?:[A-Za-z_]\w*\s*=\s*)?(?:(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|print)\()"
)
# a statement that is code on its face (raise, return, yield, await, assert): its failure words are the program's
# wherever they stand; a bare call ("torch.distributed.init_process_group(backend=nccl) failed with NCCL error: ...")
# is code only as far as its string literals go: the words after it may be the run's own report of the call
_CODE_KEYWORD_STATEMENT = re.compile(_CODE_KEYWORD + r"\s")
_STRING_LITERAL = re.compile(r"""(?:[rfbuRFBU]|rb|br|fr|rf)?(["'])(.*?)(?<!\\)\1""")


def code_failure_text(text: str) -> str | None:
    """The part of a quoted source line whose failure wording is the program's text (None: the line is no code)."""
    if not _CODE_STATEMENT.match(text):
        return None
    if _CODE_KEYWORD_STATEMENT.match(text):
        return text
    return " ".join(m.group(2) for m in _STRING_LITERAL.finditer(text))


# other inference engines, as issues name them: a sentence about one of them states nothing of this server's run
# (the one list that classify, stated_failure and time_claims read)
OTHER_ENGINES = r"vLLM|TensorRT(?:[- ]LLM)?|trt-llm|TGI|text-generation-inference|llama\.cpp|ollama|lmdeploy|mlc-llm"


# a count of failures that is zero ("Failed requests:   0", "Total errors: 0", "num_errors: 0", "12 passed, 0 failed",
# "No errors found"): a clean summary's label, not a failure; a line or sentence whose failure words are all such
# labels states none
ZERO_COUNT = re.compile(
    # the label: the failure word, then at most a counted noun (plural) or "count" ("failed rank = 0" names a rank),
    # then 0 that ends the line or a field ("ERROR: 0 bytes free", "failed: 0 of 8 workers" are no counts of none);
    # the label may qualify a "failed" just before it, whose count it is: "Health check failed error count: 0", the
    # router's "Health check failed (consecutive failures: 0)" (sglang-router's worker.rs reason,
    # f"Health check failed (consecutive failures: {failures})")
    r"(?i)\b(?:fail(?:ed|ure)[ \t]+\(?(?:consecutive[ \t]+)?)?"
    r"(?:\w+_)?(?:fail(?:ed|ures?|s)?|errors?)(?:[ \t_]+(?:\w+s|count|total|num|number))?[ \t]*[:=][ \t]*0"
    r"(?=[ \t]*(?:$|[,;|)\]]))"
    # "0 failed" only after another count ("12 passed, 0 failed"; "Rank 0 failed to ..." numbers a rank)
    r"|\b\d+ \w+, 0 (?:failed|failures?|errors?)\b|\bno (?:errors?|failures?)\b"
)

"""Where a terminal or an editor cut a launch command, as the released ServerArgs types its options: a launcher or an
option that waits for its word at a line's end, a line that gives that word, a flag's name cut in two."""

from __future__ import annotations

import re

from logscope.core.server_flags import begins_an_option, is_option, may_take, takes, value_type

# a launcher cut after "-m" at a line's end ("pip3 install mooncake-transfer-engine && python3 -m"), its module next
SPLIT_LAUNCHER = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?python3?(?:\.\d+)?\s+-m\s*$")
_OPTION_AT_END = re.compile(r"(?:^|\s)(--[\w-]+)\s*$")


def _option_at_end(text: str) -> str | None:
    """The flag (as read: `port`) of an option that ends the text and takes a value it does not give."""
    option = _OPTION_AT_END.search(text)
    flag = option.group(1)[2:].replace("-", "_") if option else None
    return flag if flag is not None and takes(flag) in ("one", "many") else None


def wants_more(text: str) -> bool:
    """A command line cut where a word must follow: after "python -m", or after an option that takes a value
    (as the released argparse reads it) with none after it."""
    return bool(SPLIT_LAUNCHER.search(text)) or _option_at_end(text) is not None


_NUMBER_WORD = re.compile(r"^(?:-?\d+(?:\.\d+)?|\$\S+)$")


def gives_the_value(text: str, line: str) -> bool:
    """The line's first word can be the value the text's last option waits for: a number (or a shell variable) for
    an int or float option, any word for another."""
    flag = _option_at_end(text)
    words = line.split()
    return flag is None or (bool(words) and (value_type(flag) is None or bool(_NUMBER_WORD.match(words[0]))))


_LAST_WORD = re.compile(r"(?:^|\s)(-[\w-]*)$")


def cut_flag(text: str) -> bool:
    """The text ends in the start of a server flag's name, not a whole one (`... --nnodes 2 --node-r`)."""
    last = _LAST_WORD.search(text.rstrip())
    return last is not None and begins_an_option(last.group(1))


def flag_cut_between(text: str, line: str) -> bool:
    """The text's last word and the line's first word are one server flag cut in two at a terminal's width (`--dp-`
    then `size 8`): together, and only together, they are an option of a released ServerArgs."""
    if not cut_flag(text) or not line.split():
        return False
    last = text.rsplit(None, 1)[-1]
    return is_option((last + line.split(None, 1)[0]).split("=", 1)[0])


# how many words after it argparse lets an option take (an option no release resolves to one reading: one word, as it may)
_VALUES_TAKEN = {"none": 0, "one": 1, "optional": 1, "many": 1 << 30}
_NEGATIVE = re.compile(r"^-\d")
# a shell word (a quoted part keeps its blanks; an unclosed quote is a character of the word)
_SHELL_WORD = re.compile(r"""(?:[^\s"']|"[^"\n]*"|'[^'\n]*'|["'])+""")
_QUOTED_PART = re.compile(r""""[^"]*"|'[^']*'""")


def _bracket_depth(word: str) -> int:
    """How many JSON objects/arrays the word opens and leaves open (its quoted parts hold no brackets)."""
    bare = _QUOTED_PART.sub("", word)
    return bare.count("{") + bare.count("[") - bare.count("}") - bare.count("]")


def flags_only(line: str) -> bool:
    """Every word of the line is an option or a value of the option before it, as the released argparse lets each option
    take its words (a shell variable stands for any value; a comment ends the line): a flag line holds nothing else.
    "--port 30000 is the default, --enable-dp-attention gives the crash" is a sentence: "is" is no value of --port.
    A value that opens a JSON object or array unquoted (`--json-model-override-args {"rope_scaling": {"type": "yarn"}}`,
    as issues write it) runs, blanks and all, to its matching close: one value, the flags after it still count."""
    flag, left = None, 0
    words = _SHELL_WORD.finditer(line)
    for m in words:
        word = m.group(0)
        if word.startswith("#"):
            break  # a comment: the line's words end
        if word[0] in "{[" and flag is not None and left > 0:
            depth, end = _bracket_depth(word), m.end()
            while depth > 0:  # the unquoted JSON value's later words, up to its matching close
                more = next(words, None)
                if more is None:
                    return False  # never closed on the line: no value argparse was given whole
                depth, end = depth + _bracket_depth(more.group(0)), more.end()
            if not may_take(flag, line[m.start() : end]):
                return False
            left -= 1
            continue
        if len(word) > 1 and word[0] == word[-1] and word[0] in "\"'":
            word = word[1:-1]
        if word.startswith("-") and not _NEGATIVE.match(word):
            name, given, _ = word.lstrip("-").partition("=")
            flag, left = (None, 0) if given else (name, _VALUES_TAKEN.get(takes(name) or "", 1))
            continue
        if flag is None or left == 0 or not (word.startswith("$") or may_take(flag, word)):
            return False
        left -= 1
    return True

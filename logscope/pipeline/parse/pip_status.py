"""pip's own status lines that name a file or an index and state no version of anything installed (catalog/pip_status.json,
read from pip 20.0-25.3 by tools/upstream/pip_status.py): network/download.py's "Downloading %s", "Using cached %s" and
"Resuming download %s" (the URL, or the file name when PyPI's file host serves it, then " (size)" when pip knows it)
and models/search_scope.py's "Looking in indexes: {}" and "Looking in links: {}" (the URLs joined by ", "). A pip log
is mostly these lines, and their wheel names hold the prefilter's literals ("sgl_kernel", ".whl", the "torch2.6" of a
build tag): read as pip's and nothing more, they cost a match instead of the prose readers (~100 µs a line)."""

from __future__ import annotations

import re

# the heads (catalog/pip_status.json; tests/test_pip_status.py checks them against it)
DOWNLOAD_HEADS = ("Downloading", "Using cached", "Resuming download")
SCOPE_HEADS = ("Looking in indexes:", "Looking in links:")
# pip's indentation (utils/logging.py indent_log: 2 spaces a level), the head, then a URL or a distribution's file
# name (PEP 427 wheel or an sdist archive) and its size, or the index URLs; nothing after them. Linear: each part
# stops at a space, and the line is matched from its start only.
_STATUS = re.compile(
    r"[ \t]*(?:"
    rf"(?:{'|'.join(map(re.escape, DOWNLOAD_HEADS))}) "
    r"(?:[A-Za-z][\w+.-]*://\S+|[\w.+!-]+\.(?:whl|zip|tar\.gz|tar\.bz2|tar\.xz|tgz|tar))(?: \([\w ./]*\))?"
    rf"|(?:{'|'.join(map(re.escape, SCOPE_HEADS))}) \S+(?:, \S+)*"
    r")[ \t]*\r?"
)


def states_nothing(text: str) -> bool:
    """pip's download or search-scope line: a file or an index, no version of anything installed."""
    return _STATUS.fullmatch(text) is not None

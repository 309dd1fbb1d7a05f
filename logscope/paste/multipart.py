"""The paste form's multipart/form-data body, parsed as it streams in (RFC 7578), in linear time and bounded
memory: at most `MAX_PARTS` parts, `MAX_HEADER_BYTES` of headers per part, `MAX_PARAMS` parameters per
header, and no nested multipart part. Anything past a cap or not well formed is a FormError, which the page
answers 400 with its one line. (The standard library's e-mail parser, used before, is quadratic in the
parameters of a header and recursive in nested parts: one crafted request held the server for 36 s.)"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote

MAX_PARTS = 32
MAX_HEADER_BYTES = 8 << 10  # one part's header block
MAX_PARAMS = 16  # in one header value
MAX_BOUNDARY = 70  # RFC 2046


class FormError(ValueError):
    """The body is not a form this page reads: one line, answered 400."""


@dataclass
class FormPart:
    name: str  # the form field's name ("" when the part named none)
    filename: str | None
    data: bytearray = field(default_factory=bytearray)


def header_params(value: str) -> tuple[str, dict[str, str]]:
    """`form-data; name="text"; filename="a.log"` -> ("form-data", {name: text, filename: a.log}), in one pass;
    more than MAX_PARAMS parameters is a FormError. `filename*=UTF-8''...` is decoded."""
    items: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in value:
        if escaped:
            current.append(char)
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
            current.append(char)
        elif char == ";" and not quoted:
            items.append("".join(current).strip())
            current = []
            if len(items) > MAX_PARAMS:
                raise FormError(f"a part header has more than {MAX_PARAMS} parameters")
        else:
            current.append(char)
    items.append("".join(current).strip())
    params: dict[str, str] = {}
    for item in items[1:]:
        key, sep, raw = item.partition("=")
        if not sep:
            continue
        raw = raw.strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = raw[1:-1]
        key = key.strip().lower()
        if key.endswith("*"):
            charset, _, rest = raw.partition("''")
            key, raw = key[:-1], unquote(rest, encoding=charset or "utf-8", errors="replace")
        params[key] = raw
    return items[0].lower(), params


def boundary_of(content_type: str) -> bytes:
    kind, params = header_params(content_type)
    if kind != "multipart/form-data":
        raise FormError("the form is sent as multipart/form-data")
    boundary = params.get("boundary", "")
    if not boundary or len(boundary) > MAX_BOUNDARY or not boundary.isascii():
        raise FormError("the multipart body has no valid boundary")
    return boundary.encode("ascii")


class FormParser:
    """Feed the body's chunks as they come; `close()` gives the parts. Holds at most one chunk, the part being
    read and the finished parts (the body's size is capped by the caller)."""

    def __init__(self, content_type: str) -> None:
        self._delimiter = b"--" + boundary_of(content_type)
        self._buffer = bytearray()
        self._state = "preamble"
        self._part: FormPart | None = None
        self.parts: list[FormPart] = []
        self._count = 0

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while self._step():
            pass

    def close(self) -> list[FormPart]:
        if self._state != "done":
            raise FormError("the multipart body ends before its closing boundary")
        return self.parts

    def _step(self) -> bool:
        """One move of the state machine over the buffer; False when it needs more bytes."""
        buffer, delimiter = self._buffer, self._delimiter
        if self._state == "preamble":
            at = buffer.find(delimiter)
            if at < 0:
                del buffer[: max(len(buffer) - len(delimiter), 0)]
                return False
            del buffer[: at + len(delimiter)]
            self._state = "after_delimiter"
            return True
        if self._state == "after_delimiter":
            if len(buffer) < 2:
                return False
            if buffer.startswith(b"--"):
                self._state = "done"
                buffer.clear()
                return False
            line_end = buffer.find(b"\r\n", 0, 256)  # transport padding (spaces) may precede the line end
            if line_end < 0 or buffer[:line_end].strip(b" \t"):
                if line_end < 0 and len(buffer) < 256:
                    return False
                raise FormError("a multipart boundary line is malformed")
            del buffer[: line_end + 2]
            self._count += 1
            if self._count > MAX_PARTS:
                raise FormError(f"more than {MAX_PARTS} parts in the form")
            self._state = "headers"
            return True
        if self._state == "headers":
            end = 0 if buffer.startswith(b"\r\n") else buffer.find(b"\r\n\r\n", 0, MAX_HEADER_BYTES + 4)
            if end < 0:
                if len(buffer) > MAX_HEADER_BYTES:
                    raise FormError(f"a part's headers are longer than {MAX_HEADER_BYTES // 1024} KiB")
                return False
            self._part = self._read_headers(bytes(buffer[:end]))
            del buffer[: end + (2 if end == 0 else 4)]
            self._state = "body"
            return True
        if self._state == "body":
            assert self._part is not None
            at = buffer.find(b"\r\n" + delimiter)
            if at < 0:
                keep = len(delimiter) + 1
                if len(buffer) > keep:
                    self._part.data += buffer[: len(buffer) - keep]
                    del buffer[: len(buffer) - keep]
                return False
            self._part.data += buffer[:at]
            del buffer[: at + 2 + len(delimiter)]
            self.parts.append(self._part)
            self._part = None
            self._state = "after_delimiter"
            return True
        return False  # done: the epilogue is ignored

    def _read_headers(self, block: bytes) -> FormPart:
        name, filename = "", None
        for line in block.split(b"\r\n") if block else []:
            key, sep, raw = line.partition(b":")
            if not sep:
                raise FormError("a part header line has no colon")
            header = key.strip().lower()
            value = raw.strip().decode("utf-8", errors="replace")
            if header == b"content-disposition":
                _, params = header_params(value)
                name, filename = params.get("name", ""), params.get("filename")
            elif header == b"content-type":
                kind, _ = header_params(value)
                if kind.startswith("multipart/"):
                    raise FormError("a nested multipart part is not read: send each file as its own part")
        return FormPart(name, filename)

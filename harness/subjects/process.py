"""An out-of-process subject: any implementation behind a child process that speaks the
subject protocol (``docs/subject-protocol.md``): JSON lines on stdin/stdout.

The child is started on first use and says hello (protocol version, name, version,
capabilities). Every request has a timeout. A child that dies, hangs, answers out of
order or prints something that is not a protocol line is killed (with its process group)
and started again on the next request; the request that met it is that subject's
``Crashed`` outcome (``died``, ``timeout``, ``protocol``): a finding about the subject,
never the end of the run. A handle remembers its document, so a handle of an earlier
child is loaded again, transparently, in the new one.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import select
import signal
import subprocess
import tempfile
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final

from ..core.outcome import Crashed, Decoded, Encoded, Refused
from .protocol import ALL_CAPABILITIES

PROTOCOL_VERSION: Final = 1
#: Seconds for one request (a load of a real vocabulary included).
DEFAULT_TIMEOUT: Final = 20.0
#: Seconds for the child to start and say hello.
START_TIMEOUT: Final = 60.0
#: An answer longer than this is garbage (a subject cannot flood the harness' memory).
MAX_LINE: Final = 64 * 1024 * 1024
#: Documents kept loaded in the child; older ones are freed (and reloaded if used again).
KEEP_LOADED: Final = 8
#: Characters of the child's stderr kept in a crash's message.
STDERR_TAIL: Final = 400
#: Bytes of the end of stderr searched for a Rust panic's message (kept before the tail).
PANIC_WINDOW: Final = 64 * 1024
_PANIC: Final = re.compile(r"thread '[^']*' panicked at [^\n]*\n[^\n]*")
#: The thread id Rust prints after a panicking thread's name (it varies run to run).
_THREAD_ID: Final = re.compile(r"(thread '[^']*') \(\d+\)")
#: The build machine's folder before a Rust source path (``/srv/runner/x/x/`` in a
#: panic's location): not the subject's behaviour, and a path outside any repository.
_BUILD_FOLDER: Final = re.compile(r"(?<![\w.])/(?:[^/\s:]+/)*?(?=[^/\s:]+/src/[^\s:]+\.rs:\d)")


def cut_tail(text: str, *, cut: bool = False, limit: int = STDERR_TAIL) -> str:
    """The end of ``text`` in at most ``limit`` characters, starting at a word and marked
    "…" where the beginning was cut (``cut``: it was already cut before)."""
    if len(text) <= limit and not cut:
        return text
    kept = text[-(limit - 1):]
    if " " in kept:  # the first word may be a piece of one: start at the next
        kept = kept.split(" ", 1)[1]
    return "…" + kept


class SubjectStartError(Exception):
    """The subject's command could not be started or did not say hello."""


class _ChildFailedError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Hello:
    name: str
    version: str
    capabilities: frozenset[str]


@dataclass(eq=False)
class ProcessHandle:
    """A document loaded in the child: reloaded in a restarted child when used again."""

    document: str
    generation: int = -1
    remote: int = -1
    #: The child's load refused or crashed when the handle was reloaded.
    lost: Refused | Crashed | None = field(default=None)


class ProcessSubject:
    """A subject behind ``command`` (a list of arguments)."""

    def __init__(self, command: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                 label: str | None = None) -> None:
        self.command = list(command)
        self.timeout = timeout
        self._label = label
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = bytearray()
        self._owner = -1
        self._generation = 0
        self._next_id = 0
        self._hello: Hello | None = None
        self._loaded: OrderedDict[int, ProcessHandle] = OrderedDict()
        #: Restarts after a crash (for the report).
        self.restarts = 0
        _LIVE.add(self)

    # -- what the harness asks of every subject ----------------------------------------

    @property
    def name(self) -> str:
        return self._label or self.hello().name

    @property
    def capabilities(self) -> frozenset[str]:
        return self.hello().capabilities

    def version(self) -> str:
        return self.hello().version

    def hello(self) -> Hello:
        if self._hello is None:
            self._ensure_started()
        assert self._hello is not None
        return self._hello

    @property
    def pid(self) -> int | None:
        """The running child's process id (None before start or after a crash)."""
        return self._proc.pid if self._proc is not None and self._owned() else None

    def load(self, document: str) -> ProcessHandle | Refused | Crashed:
        handle = ProcessHandle(document)
        failure = self._load_into_child(handle)
        return failure if failure is not None else handle

    def encode(self, handle: ProcessHandle, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoded | Refused | Crashed:
        request: dict[str, Any] = {"op": "encode", "text": text,
                                   "add_special_tokens": add_special_tokens}
        if pair is not None:
            request["pair"] = pair
        answer = self._call_on(handle, request)
        if not isinstance(answer, dict):
            return answer
        try:
            return _encoded(answer)
        except (KeyError, TypeError, ValueError) as exc:
            return self._garbage(f"encode answer: {type(exc).__name__}: {exc}")

    def decode(self, handle: ProcessHandle, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Decoded | Refused | Crashed:
        answer = self._call_on(handle, {"op": "decode", "ids": list(ids),
                                        "skip_special_tokens": skip_special_tokens})
        if not isinstance(answer, dict):
            return answer
        text = answer.get("text")
        if not isinstance(text, str):
            return self._garbage("decode answer without a string 'text'")
        return Decoded(text)

    def close(self) -> None:
        """Stop the child (it is started again on the next request)."""
        self._stop()

    # -- the child -----------------------------------------------------------------------

    def _owned(self) -> bool:
        """A child started by this process (a forked worker starts its own)."""
        return self._owner == os.getpid()

    def _ensure_started(self) -> None:
        if self._proc is not None and self._owned():
            return
        self._proc = None  # a forked copy of the parent's: not ours to talk to
        self._buffer.clear()
        self._loaded.clear()
        self._generation += 1
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _stop()
        started = time.monotonic()
        try:
            self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, start_new_session=True)
        except OSError as exc:
            raise SubjectStartError(f"cannot start subject {self._describe()}: "
                                    f"{exc.strerror or exc}") from None
        self._owner = os.getpid()
        try:
            line = self._read_line(started + START_TIMEOUT, started)
            hello = json.loads(line)["hello"]
            if hello.get("protocol") != PROTOCOL_VERSION:
                raise ValueError(f"protocol {hello.get('protocol')!r}, expected "
                                 f"{PROTOCOL_VERSION}")
            capabilities = frozenset(str(c) for c in hello.get("capabilities", ()))
            unknown = capabilities - ALL_CAPABILITIES
            if unknown:
                raise ValueError(f"unknown capabilities {sorted(unknown)}")
            self._hello = Hello(str(hello["name"]), str(hello["version"]), capabilities)
        except (_ChildFailedError, ValueError, KeyError, TypeError) as exc:
            tail = self._stderr_tail()
            self._stop()
            raise SubjectStartError(
                f"subject {self._describe()} did not say hello: {str(exc)[:200]}"
                + (f" (stderr: {tail})" if tail else "")) from None

    def _describe(self) -> str:
        text = " ".join(self.command)
        return repr(text if len(text) <= 120 else text[:117] + "...")

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and self._owner == os.getpid():
            _kill(proc)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._buffer.clear()
        self._loaded.clear()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - PANIC_WINDOW))
            text = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        text = _THREAD_ID.sub(r"\1", text)  # Rust's "thread 'x' (12002)": a run's own id
        text = _BUILD_FOLDER.sub("", text)  # .../tokenizers/src/models/bpe/model.rs:267
        tail = cut_tail(" ".join(text[-STDERR_TAIL - 1:].split()), cut=size > STDERR_TAIL)
        panics = _PANIC.findall(text)  # a backtrace after it must not hide what panicked
        if panics:  # the first: a panic while panicking follows the one that matters
            said = " ".join(panics[0].split())[:STDERR_TAIL]
            if said not in tail:
                return f"{said} … {tail.removeprefix('…')}"
        return tail

    # -- requests ------------------------------------------------------------------------

    def _load_into_child(self, handle: ProcessHandle) -> Refused | Crashed | None:
        answer = self._request({"op": "load", "document": handle.document})
        if not isinstance(answer, dict):
            return answer
        remote = answer.get("handle")
        if not isinstance(remote, int):
            return self._garbage("load answer without an integer 'handle'")
        handle.generation, handle.remote = self._generation, remote
        self._loaded[remote] = handle
        while len(self._loaded) > KEEP_LOADED:
            old_remote, old = self._loaded.popitem(last=False)
            old.generation = -1
            freed = self._request({"op": "free", "handle": old_remote})
            if isinstance(freed, Crashed):
                break
        return None

    def _call_on(self, handle: ProcessHandle, request: dict[str, Any]
                 ) -> dict[str, Any] | Refused | Crashed:
        if handle.generation != self._generation or self._proc is None:
            failure = self._load_into_child(handle)
            if failure is not None:
                return Crashed("protocol", "the subject refused, on reload, a document "
                               f"it had loaded: {failure}") if isinstance(
                                   failure, Refused) else failure
        self._loaded.move_to_end(handle.remote)
        return self._request({**request, "handle": handle.remote})

    def _request(self, request: dict[str, Any]) -> dict[str, Any] | Refused | Crashed:
        try:
            self._ensure_started()
        except SubjectStartError as exc:
            return Crashed("died", str(exc))
        self._next_id += 1
        number = self._next_id
        payload = json.dumps({"id": number, **request}) + "\n"  # ASCII: lone surrogates travel
        started = time.monotonic()
        deadline = started + self.timeout
        try:
            self._write(payload.encode("utf-8"), deadline, started)
            line = self._read_line(deadline, started)
            return self._parse(line, number)
        except _ChildFailedError as failed:
            return self._crashed(failed.kind, failed.message)

    def _parse(self, line: bytes, number: int) -> dict[str, Any] | Refused:
        try:
            answer = json.loads(line)
        except ValueError:
            raise _ChildFailedError("protocol", f"not a JSON line: {_clip(line)}") from None
        if not isinstance(answer, dict) or answer.get("id") != number:
            raise _ChildFailedError("protocol", f"answer out of order: {_clip(line)}")
        if "ok" in answer and isinstance(answer["ok"], dict):
            return answer["ok"]
        refused = answer.get("refused")
        if isinstance(refused, dict):
            return Refused(str(refused.get("rule", ""))[:200],
                           str(refused.get("message", ""))[:400],
                           str(refused.get("path", ""))[:200])
        if "protocol_error" in answer:
            raise _ChildFailedError("protocol", "the subject reports a protocol error: "
                               f"{str(answer['protocol_error'])[:200]}")
        raise _ChildFailedError("protocol", f"not an answer: {_clip(line)}")

    def _garbage(self, message: str) -> Crashed:
        return self._crashed("protocol", message)

    def _crashed(self, kind: str, message: str) -> Crashed:
        """Kill the child (it restarts on the next request) and report the crash."""
        tail = self._stderr_tail()
        self._stop()
        self.restarts += 1
        text = message + (f" (stderr: {tail})" if tail else "")
        return Crashed(kind, text)  # type: ignore[arg-type]

    def _write(self, data: bytes, deadline: float, started: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _ChildFailedError("timeout", f"no request read in {_waited(started)}")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                written = os.write(fd, view[:65536])
            except (BrokenPipeError, ConnectionResetError):
                raise _ChildFailedError("died", self._exit_message()) from None
            view = view[written:]

    def _read_line(self, deadline: float, started: float) -> bytes:
        """The next line of the child's output, waited for until ``deadline`` (a timeout
        says how long it was waited for since ``started``)."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return line
            if len(self._buffer) > MAX_LINE:
                raise _ChildFailedError("protocol", f"an answer longer than {MAX_LINE} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _ChildFailedError("timeout", f"no answer in {_waited(started)}")
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise _ChildFailedError("died", self._exit_message())
            self._buffer += chunk

    def _exit_message(self) -> str:
        assert self._proc is not None
        try:
            status = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the subject closed its output"
        if status < 0:
            return f"the subject was killed by {signal.Signals(-status).name}"
        return f"the subject exited with status {status}"


def _encoded(answer: dict[str, Any]) -> Encoded:
    ids = tuple(answer["ids"])
    tokens = tuple(answer.get("tokens", ()))  # absent where the subject lacks the tier
    if tokens and len(tokens) != len(ids):
        raise ValueError(f"{len(ids)} ids but {len(tokens)} tokens")
    spans = tuple((int(a), int(b)) for a, b in answer.get("offsets", ()))
    return Encoded(ids=ids, tokens=tokens, spans=spans,
                   special_mask=tuple(answer.get("special_tokens_mask", ())),
                   word_ids=tuple(answer.get("word_ids", ())),
                   sequence_ids=tuple(answer.get("sequence_ids", ())),
                   type_ids=tuple(answer.get("type_ids", ())),
                   attention_mask=tuple(answer.get("attention_mask", ())),
                   model_word_ids=tuple(answer.get("model_word_ids", ())))


def _waited(started: float) -> str:
    """The time waited since ``started``, as a timeout message states it."""
    return f"{time.monotonic() - started:.1f} s"


def _clip(line: bytes) -> str:
    text = line[:120].decode("utf-8", "replace")
    return repr(text) + ("..." if len(line) > 120 else "")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and its process group, and reap it."""
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


_LIVE: weakref.WeakSet[ProcessSubject] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for subject in list(_LIVE):
        subject.close()

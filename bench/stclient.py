"""A light Streamlit client: what a browser tab sends and waits for, over Streamlit's own websocket protocol.

One ``Student`` is one browser: it loads the page (index.html and the static assets a
browser fetches, with its cookie jar), opens ``/_stcore/stream`` with the subprotocols
the frontend uses (``streamlit``, the XSRF token from the ``_streamlit_xsrf`` cookie),
and sends ``BackMsg.rerun_script`` messages built like the frontend's: the page's
script hash, the query string, ``context_info``, every widget value it has set on that
page (and a button as a one-shot ``trigger_value``, with the fragment's id when the
button sits in one). It waits for ``ForwardMsg.script_finished`` and reads the deltas to
learn the widgets' ids (``$$ID-<hash>-<key>``) and options, and to count exceptions and
``st.error`` boxes. ``load_test.py --validate`` compares these messages with what
Chromium sends for the same steps.

asyncio and the ``websockets`` package (installed with Streamlit): forty students are
forty coroutines in one process, so the client stays a small part of the machine.

This module is the only one that uses Streamlit's non-public wire protocol
(``streamlit.proto``) and the frontend's way of using it. A load
generator that speaks the protocol has no public alternative; ``validate.py`` checks it
against Chromium and ``tests/bench/test_load_test.py`` against a real server, and
``tests/test_architecture.py`` keeps every other module off these imports.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FINISHED = {
    ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY,
    ForwardMsg.ScriptFinishedStatus.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}
ASSET = re.compile(r'(?:href|src)="\./(static/[^"]+)"')


class ProtocolError(RuntimeError):
    pass


@dataclass
class Widget:
    id: str
    kind: str  # the element type: selectbox, text_area, button, ...
    proto: object  # the element's proto (its options, its fragment)
    fragment_id: str = ""


@dataclass
class RunResult:
    seconds: float
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # st.error boxes
    warnings: list[str] = field(default_factory=list)  # st.warning boxes
    texts: list[str] = field(default_factory=list)  # the markdown the run drew


class Student:
    """One simulated browser against one BPE Lab (``base``: ``http://host:port``)."""

    def __init__(self, base: str, *, timeout: float = 120.0):
        self.base = base.rstrip("/")
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.ws = None
        self.pages: dict[str, str] = {}  # url path ("" for the default) -> page script hash
        self.page_hash = ""
        self.url_path = ""
        self.query = ""
        self.widgets: dict[str, Widget] = {}  # user key -> widget
        self.values: dict[str, BackMsg] = {}  # widget id -> its WidgetState, as last sent
        self.sent: list[BackMsg] = []  # every BackMsg (for --validate)
        self.auto_reruns: dict[str, float] = {}  # fragment id -> seconds, as st.fragment(run_every=...) asked
        self.bytes_down = 0
        self._reader: asyncio.Task | None = None
        self._messages: asyncio.Queue = asyncio.Queue()

    # -- HTTP
    def _cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    async def load_page(self, path: str = "/", assets: list[str] | None = None) -> float:
        """GET the page and its static assets (``assets``: the paths a browser fetched; else those named in index.html).

        As a browser does: the page first (which sets the cookie), then the assets over six keep-alive
        connections, then the health check and host config (which sets the XSRF cookie).
        """
        t = time.perf_counter()
        html = (await self._fetch_all([path]))[0].decode("utf-8")
        wanted = assets if assets is not None else ["/" + a for a in ASSET.findall(html)]
        await self._fetch_all(wanted, connections=6)
        await self._fetch_all(["/_stcore/health", "/_stcore/host-config"])
        self.url_path = path.strip("/").split("?")[0]
        self.query = path.split("?", 1)[1] if "?" in path else ""
        return time.perf_counter() - t

    async def _fetch_all(self, paths: list[str], connections: int = 1) -> list[bytes]:
        """GET every path over ``connections`` keep-alive HTTP/1.1 connections (asyncio streams: no thread per request)."""
        url = urlsplit(self.base)
        host, port = url.hostname, url.port or 80
        todo = list(enumerate(paths))
        out: list[bytes] = [b""] * len(paths)

        async def worker() -> None:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                while todo:
                    i, path = todo.pop(0)
                    cookie = f"Cookie: {self._cookie_header()}\r\n" if self.cookies else ""
                    writer.write(
                        f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAccept-Encoding: gzip\r\n{cookie}"
                        f"User-Agent: bpe-lab-load-test\r\n\r\n".encode("latin-1")
                    )
                    await writer.drain()
                    out[i] = await self._response(reader, path)
            finally:
                writer.close()

        await asyncio.gather(*(worker() for _ in range(min(connections, len(paths)) or 1)))
        return out

    async def _response(self, reader: asyncio.StreamReader, path: str) -> bytes:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        headers: dict[str, str] = {}
        for line in head[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                k, v = k.strip().lower(), v.strip()
                if k == "set-cookie":
                    c = SimpleCookie()
                    c.load(v)
                    self.cookies.update({name: m.value for name, m in c.items()})
                headers[k] = v
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    break
                body += await reader.readexactly(size)
                await reader.readexactly(2)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.bytes_down += len(body)
        if status != 200:
            raise ProtocolError(f"GET {path}: HTTP {status}")
        return gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body

    # -- websocket
    async def connect(self) -> None:
        url = urlsplit(self.base)
        ws_url = f"{'wss' if url.scheme == 'https' else 'ws'}://{url.netloc}/_stcore/stream"
        protocols = ["streamlit"]
        if "_streamlit_xsrf" in self.cookies:
            protocols.append(self.cookies["_streamlit_xsrf"])
        self.ws = await websockets.connect(
            ws_url,
            subprotocols=protocols,
            additional_headers={"Cookie": self._cookie_header(), "Origin": self.base},
            max_size=None,
            open_timeout=30,
            ping_interval=None,
            compression=None,
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                self.bytes_down += len(data)
                msg = ForwardMsg()
                msg.ParseFromString(data)
                await self._messages.put(msg)
        except websockets.ConnectionClosed as e:
            await self._messages.put(e)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()

    def _context(self, msg: BackMsg) -> None:
        ci = msg.rerun_script.context_info
        ci.timezone, ci.timezone_offset, ci.locale = "UTC", 0, "en-US"
        ci.url = f"{self.base}/{self.url_path}" if self.url_path else f"{self.base}/"
        ci.is_embedded, ci.color_scheme = False, "light"

    async def rerun(
        self,
        *,
        trigger: str | None = None,
        fragment: bool = False,
        fragment_of: str | None = None,
        event: tuple[str, str, object] | None = None,
        auto_fragment: str | None = None,
    ) -> RunResult:
        """Send the current widget values (and a button press) and wait for the run to finish.

        ``fragment_of``: rerun only the fragment that widget sits in (a component reporting its state does that).
        ``event``: ``(key, name, value)``, a ``st.components.v2`` component's ``setTriggerValue(name, value)``
        (one run only, as a button press). ``auto_fragment``: a fragment's id from ``auto_reruns``, rerun as the
        frontend's timer for ``st.fragment(run_every=...)`` does.
        """
        msg = BackMsg()
        rs = msg.rerun_script
        if self.query:
            rs.query_string = self.query
        for state in self.values.values():
            rs.widget_states.widgets.add().CopyFrom(state)
        if event is not None:
            key, name, value = event
            ws = rs.widget_states.widgets.add()
            # the component's trigger aggregator (streamlit.components.v2.bidi_component): one widget per component
            ws.id = f"$$STREAMLIT_INTERNAL_KEY_{self.widget(key).id}__events"
            ws.json_trigger_value = json.dumps([{"event": name, "value": value}])
        fragment_id = ""
        if trigger is not None:
            w = self.widget(trigger)
            ws = rs.widget_states.widgets.add()
            ws.id, ws.trigger_value = w.id, True
            fragment_id = w.fragment_id if fragment else ""
        if fragment_of is not None:
            fragment_id = self.widget(fragment_of).fragment_id
        if self.page_hash:
            rs.page_script_hash = self.page_hash
        if auto_fragment is not None:
            fragment_id = auto_fragment
            rs.is_auto_rerun = True
        if fragment_id:
            rs.fragment_id = fragment_id
        self._context(msg)
        return await self._send_and_wait(msg)

    async def open(self, url_path: str = "") -> RunResult:
        """The first run of a session (as after loading the page at ``url_path``)."""
        msg = BackMsg()
        if self.query:
            msg.rerun_script.query_string = self.query
        msg.rerun_script.widget_states.SetInParent()
        if url_path:
            msg.rerun_script.page_name = url_path
        self._context(msg)
        return await self._send_and_wait(msg)

    async def navigate(self, url_path: str) -> RunResult:
        """Click a page in the sidebar: the page's script hash, no widget values (as the frontend sends)."""
        if url_path not in self.pages:
            raise ProtocolError(f"no page {url_path!r} in the navigation ({sorted(self.pages)})")
        self.page_hash = self.pages[url_path]
        self.url_path = url_path
        self.values.clear()
        self.widgets.clear()
        self.query = ""
        msg = BackMsg()
        msg.rerun_script.widget_states.SetInParent()
        msg.rerun_script.page_script_hash = self.page_hash
        self._context(msg)
        return await self._send_and_wait(msg)

    async def _send_and_wait(self, msg: BackMsg) -> RunResult:
        self.sent.append(msg)
        t = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        result = RunResult(0.0)
        deadline = t + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise ProtocolError(f"no script_finished within {self.timeout:.0f} s")
            try:
                fm = await asyncio.wait_for(self._messages.get(), left)
            except TimeoutError:
                raise ProtocolError(f"no script_finished within {self.timeout:.0f} s") from None
            if isinstance(fm, Exception):
                raise ProtocolError(f"the websocket closed: {fm}")
            kind = fm.WhichOneof("type")
            if kind == "delta":
                self._delta(fm, result)
            elif kind == "navigation":
                for p in fm.navigation.app_pages:
                    self.pages[p.url_pathname] = p.page_script_hash
                self.page_hash = fm.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "auto_rerun":
                self.auto_reruns.pop(fm.auto_rerun.fragment_id, None)  # the latest last: what a follower reruns
                self.auto_reruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "script_finished":
                status = fm.script_finished
                if status in FINISHED:
                    result.seconds = time.perf_counter() - t
                    return result
                if status == ForwardMsg.ScriptFinishedStatus.FINISHED_WITH_COMPILE_ERROR:
                    raise ProtocolError("the script did not compile")
                # FINISHED_EARLY_FOR_RERUN: the app reran itself (st.rerun); wait for that run

    def _delta(self, fm: ForwardMsg, result: RunResult) -> None:
        d = fm.delta
        if d.WhichOneof("type") != "new_element":
            return
        el = d.new_element
        kind = el.WhichOneof("type")
        if kind == "exception":
            result.exceptions.append(f"{el.exception.type}: {el.exception.message}")
            return
        if kind == "alert" and el.alert.format == 1:  # ERROR
            result.errors.append(el.alert.body)
            return
        if kind == "alert" and el.alert.format == 2:  # WARNING
            result.warnings.append(el.alert.body)
            return
        if kind == "markdown":
            result.texts.append(el.markdown.body)
            return
        proto = getattr(el, kind, None)
        wid = getattr(proto, "id", "") if proto is not None else ""
        if wid.startswith("$$ID-") and wid.count("-") >= 2:
            key = wid.split("-", 2)[2]
            self.widgets[key] = Widget(wid, kind, proto, d.fragment_id)

    def widget(self, key: str) -> Widget:
        if key not in self.widgets:
            raise ProtocolError(f"no widget {key!r} on this page ({sorted(self.widgets)})")
        return self.widgets[key]

    # -- setting values, as the frontend encodes them
    def _state(self, key: str):
        w = self.widget(key)
        state = BackMsg().rerun_script.widget_states.widgets.add()
        state.id = w.id
        self.values[w.id] = state
        return w, state

    def set_text(self, key: str, text: str) -> None:
        _, s = self._state(key)
        s.string_value = text

    def choose(self, key: str, contains: str) -> None:
        """A selectbox: the option whose label contains ``contains`` (the frontend sends the label)."""
        w, s = self._state(key)
        labels = list(w.proto.options)
        match = [o for o in labels if contains in o]
        if not match:
            raise ProtocolError(f"{key}: no option with {contains!r} in {labels}")
        s.string_value = match[0]

    def segment(self, key: str, label: str) -> None:
        """A segmented control (single choice): its label, as a string array."""
        w, s = self._state(key)
        labels = [getattr(o, "content", o) for o in w.proto.options]  # a button group's options carry their label
        if label not in labels:
            raise ProtocolError(f"{key}: no option {label!r} in {labels}")
        s.string_array_value.data.append(label)

    def set_bool(self, key: str, value: bool) -> None:
        """A checkbox or toggle."""
        _, s = self._state(key)
        s.bool_value = value

    def set_int(self, key: str, value: int) -> None:
        _, s = self._state(key)
        s.int_value = value

    def has(self, key: str) -> bool:
        """Whether the last run drew a widget (or component) with this key."""
        return key in self.widgets

    def component_data(self, key: str) -> dict:
        """The data a ``st.components.v2`` component was mounted with (JSON, sent as text or as bytes)."""
        proto = self.widget(key).proto
        kind = proto.WhichOneof("data")
        return json.loads(proto.bytes if kind == "bytes" else proto.json)

    def set_component_state(self, key: str, name: str, value) -> None:
        """A component's ``setStateValue(name, value)``: the frontend sends its whole state as one JSON value."""
        w, s = self._state(key)
        state = json.loads(s.json_value) if s.json_value else {}
        state[name] = value
        s.json_value = json.dumps(state)

    def report_step(self, k: int, key: str = "step.stepper") -> None:
        """What Step through's stepper (ui/step/stepper.js) sends when stepping pauses: step ``k`` of its trace (the
        Lesson page's stepper is ``lesson.stepper``)."""
        data = self.component_data(key)
        self.set_component_state(key, "step", {"k": k, "id": data["trace"]["id"], "epoch": data["goto"][0], "want": None})


def parse_back(payload: bytes | str) -> BackMsg:
    """A websocket frame a browser sent, as the ``BackMsg`` it encodes (Playwright gives binary frames as latin-1 text)."""
    msg = BackMsg()
    msg.ParseFromString(payload if isinstance(payload, bytes) else payload.encode("latin-1"))
    return msg


def describe(msg: BackMsg) -> dict:
    """What matters in a rerun message, for comparing ours with Chromium's: which widgets (by key), how each value
    is encoded, whether it names a page and a fragment."""
    rs = msg.rerun_script
    widgets = {}
    for w in rs.widget_states.widgets:
        key = w.id.split("-", 2)[2] if w.id.count("-") >= 2 else w.id
        widgets[key] = w.WhichOneof("value")
    return {
        "page": bool(rs.page_script_hash),
        "page_name": rs.page_name,
        "fragment": bool(rs.fragment_id),
        "widgets": widgets,
        "query": bool(rs.query_string),
        "context": rs.HasField("context_info"),
    }

#!/usr/bin/env python3
"""Raw-HTTP probe of one A2A agent: what its card says and what it really does.

    scripts/frameworks/probe.py URL [--push-wait 15] [--stream-timeout 30] [--out FILE]

Standard library only (any python3 >= 3.8). Prints one JSON report:
  card        every well-known path tried (status, content type, first 300 bytes), the card read
  deviations  how the card departs from the 1.0 proto and the 0.3 schema (JSON paths)
  interfaces  what the card declares (1.0 supportedInterfaces, 0.3 url/preferredTransport/additionalInterfaces)
  calls       every request sent, in order: binding, version, method, URL, HTTP status, content type,
              the first 300 bytes of the body, and what was read from it (task id, state, artifacts,
              error code); streams list each event
  push        the webhook listener (127.0.0.1 only) and every callback it received
  summary     per claim, what the calls showed

It sends requests only to the URL given and to interface URLs on loopback hosts.
"""

import argparse
import http.client
import http.server
import json
import socket
import sys
import threading
import time
import uuid
from urllib.parse import urlsplit, urlunsplit

QUESTION = "What is the capital of France?"
SNIP = 300
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"}

# 0.3 card members that 1.0 removed (NOTES.md section 8.7)
V03_ONLY_CARD = ["protocolVersion", "url", "preferredTransport", "additionalInterfaces",
                 "supportsAuthenticatedExtendedCard", "security"]
V10_REQUIRED_CARD = ["name", "description", "supportedInterfaces", "version", "capabilities",
                     "defaultInputModes", "defaultOutputModes", "skills"]
V03_REQUIRED_CARD = ["capabilities", "defaultInputModes", "defaultOutputModes", "description", "name",
                     "protocolVersion", "skills", "url", "version"]
V10_CAPABILITIES = {"streaming", "pushNotifications", "extensions", "extendedAgentCard"}
V03_CAPABILITIES = {"streaming", "pushNotifications", "extensions", "stateTransitionHistory"}
TERMINAL = {"completed", "failed", "canceled", "cancelled", "rejected",
            "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"}
INTERRUPTED = {"input-required", "auth-required", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"}


def snip(raw):
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
    return text[:SNIP]


# ---------------------------------------------------------------- webhook listener

class Webhook:
    """A loopback HTTP listener that records every request it gets and answers 200."""

    def __init__(self):
        hook = self
        self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                hook.received.append({
                    "at": round(time.monotonic() - hook.t0, 2),
                    "method": self.command,
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "x_a2a_notification_token": self.headers.get("X-A2A-Notification-Token"),
                    "content_type": self.headers.get("Content-Type"),
                    "body": snip(body),
                })
                # some agents validate the webhook with a GET ?validationToken=...; echo it back
                token = ""
                if "validationToken=" in self.path:
                    token = self.path.split("validationToken=", 1)[1].split("&", 1)[0]
                out = token.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            do_POST = do_GET = do_PUT = _any

            def log_message(self, *args):
                pass

        self.t0 = time.monotonic()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, tag):
        return "http://127.0.0.1:%d/webhook/%s" % (self.port, tag)

    def close(self):
        self.server.shutdown()


# ---------------------------------------------------------------- HTTP

def request(method, url, body=None, headers=None, timeout=30.0):
    """One HTTP request; returns (status, headers dict, body bytes) or raises."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    data = None
    hdrs = {"Accept": "application/json, text/event-stream"}
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    try:
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        status = resp.status
        rh = {k.lower(): v for k, v in resp.getheaders()}
        if "text/event-stream" in rh.get("content-type", ""):
            return status, rh, resp  # caller reads the stream, then closes conn
        raw = resp.read()
        conn.close()
        return status, rh, raw
    except Exception:
        conn.close()
        raise


def read_sse(resp, timeout):
    """Reads SSE events until the stream closes or `timeout` seconds pass. Returns (events, how_it_ended)."""
    events, data_lines = [], []
    t0 = time.monotonic()
    deadline = t0 + timeout
    sock = None
    try:
        sock = resp.fp.raw._sock  # type: ignore[attr-defined]
    except Exception:
        pass
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return events, "timeout after %ss (stream still open)" % timeout
        if sock is not None:
            sock.settimeout(left)
        try:
            line = resp.readline()
        except (socket.timeout, TimeoutError):
            return events, "timeout after %ss (stream still open)" % timeout
        except Exception as exc:  # noqa: BLE001
            return events, "read error: %r" % exc
        if not line:
            if data_lines:
                events.append(("\n".join(data_lines), round(time.monotonic() - t0, 2)))
            return events, "closed by server after %.2fs" % (time.monotonic() - t0)
        line = line.decode("utf-8", "replace").rstrip("\r\n")
        if line == "":
            if data_lines:
                events.append(("\n".join(data_lines), round(time.monotonic() - t0, 2)))
                data_lines = []
        elif line.startswith("data:"):
            data_lines.append(line[5:].lstrip(" "))


# ---------------------------------------------------------------- reading answers

def find_task_info(obj):
    """From any JSON answer (1.0 or 0.3, wrapped or not), what a task/message/event says."""
    info = {}
    if not isinstance(obj, dict):
        return info
    if "error" in obj and isinstance(obj["error"], dict):
        err = obj["error"]
        info["error_code"] = err.get("code")
        info["error_message"] = snip(str(err.get("message")))[:160]
        return info
    res = obj.get("result", obj)
    if not isinstance(res, dict):
        info["result"] = snip(json.dumps(res))[:120]
        return info
    shape = None
    for key in ("task", "message", "statusUpdate", "artifactUpdate", "msg"):
        if key in res and isinstance(res[key], dict):
            shape, res = key, res[key]
            break
    if shape is None:
        kind = res.get("kind")
        if kind in ("task", "message", "status-update", "artifact-update"):
            shape = "0.3:" + kind
        elif "status" in res and "id" in res:
            shape = "bare-task"
        elif "parts" in res and "role" in res:
            shape = "bare-message"
        elif "artifact" in res:
            shape = "bare-artifact-update"
        elif "status" in res and "taskId" in res:
            shape = "bare-status-update"
        elif "url" in res or "pushNotificationConfig" in res:
            shape = "push-config"
        elif "tasks" in res:
            shape = "task-list"
        elif "configs" in res:
            shape = "push-config-list"
    info["shape"] = shape
    if isinstance(res.get("contextId"), str):
        info["context_id"] = res["contextId"]
    if shape and ("task" in shape):
        info["task_id"] = res.get("id") if "task" == shape.split(":")[-1] or shape == "bare-task" else res.get("taskId")
    if isinstance(res.get("status"), dict):
        info["state"] = res["status"].get("state")
        if "final" in res:
            info["final"] = res["final"]
    if shape in ("0.3:status-update", "statusUpdate", "bare-status-update", "0.3:artifact-update",
                 "artifactUpdate", "bare-artifact-update"):
        info["task_id"] = res.get("taskId")
    if "artifacts" in res:
        arts = res.get("artifacts") or []
        info["artifacts"] = len(arts)
        info["artifact_text"] = texts_of([p for a in arts if isinstance(a, dict) for p in (a.get("parts") or [])])
    if "artifact" in res and isinstance(res["artifact"], dict):
        info["artifact_text"] = texts_of(res["artifact"].get("parts") or [])
    if "parts" in res:
        info["message_text"] = texts_of(res.get("parts") or [])
    if "history" in res:
        info["history_len"] = len(res.get("history") or [])
    if shape == "push-config":
        info["config"] = snip(json.dumps(res))[:200]
        info["config_id"] = res.get("id") or (res.get("pushNotificationConfig") or {}).get("id")
    if shape == "task-list":
        info["tasks"] = len(res.get("tasks") or [])
    if shape == "push-config-list":
        info["configs"] = len(res.get("configs") or [])
    return info


def texts_of(parts):
    out = []
    for p in parts:
        if isinstance(p, dict) and isinstance(p.get("text"), str):
            out.append(p["text"][:80])
    return out


def media_types_of(parts):
    return sorted({p.get("mediaType") or p.get("mimeType") or ("kind:" + p["kind"] if "kind" in p else
                   next((k for k in ("text", "raw", "url", "data", "file") if k in p), "?"))
                   for p in parts if isinstance(p, dict)})


# ---------------------------------------------------------------- answer checks

import re as _re

_TS = _re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
V10_STATES = {"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
              "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}
V03_STATES = {"submitted", "working", "input-required", "completed", "canceled", "failed", "rejected",
              "auth-required", "unknown"}


def wire_deviations(obj, expect, streamed=False):
    """How one JSON-RPC answer departs from the `expect`ed version's wire format ("1.0" or "0.3")."""
    dev = []
    if not isinstance(obj, dict):
        return ["answer is not a JSON object"]
    if obj.get("jsonrpc") != "2.0":
        dev.append("$.jsonrpc is %s, not \"2.0\"" % json.dumps(obj.get("jsonrpc")))
    if "error" in obj:
        err = obj["error"]
        if expect == "1.0" and isinstance(err, dict) and "data" in err and not isinstance(err["data"], list):
            dev.append("$.error.data is not an array of google.rpc Any (1.0)")
        return dev
    if "result" not in obj:
        return dev + ["neither result nor error"]
    res = obj["result"]
    if expect == "1.0" and isinstance(res, dict):
        members = [k for k in ("task", "message", "statusUpdate", "artifactUpdate") if k in res]
        if "kind" in res:
            dev.append("$.result is a 0.3 object (kind %s) where 1.0 wraps it in task/message/..." % json.dumps(res["kind"]))
        elif streamed and len(members) != 1 and "id" not in res:
            dev.append("$.result has %d of task/message/statusUpdate/artifactUpdate" % len(members))
    if expect == "0.3" and isinstance(res, dict):
        if any(k in res for k in ("task", "message", "statusUpdate", "artifactUpdate")) and "kind" not in res:
            dev.append("$.result is 1.0-wrapped (%s) in a 0.3 answer" % ",".join(k for k in res if k in ("task", "message", "statusUpdate", "artifactUpdate")))

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                sub = "%s.%s" % (path, k)
                if v is None:
                    dev.append("null member %s" % sub)
                    continue
                if "_" in k and k not in ("@type",) and not path.endswith("metadata"):
                    dev.append("snake_case member %s" % sub)
                if expect == "1.0" and k == "kind" and not path.endswith("metadata"):
                    dev.append("0.3 'kind' %s = %s" % (sub, json.dumps(v)))
                if expect == "1.0" and k == "final":
                    dev.append("0.3 'final' %s = %s" % (sub, json.dumps(v)))
                if k == "state" and isinstance(v, str):
                    if expect == "1.0" and v not in V10_STATES:
                        dev.append("state %s = %s is not a 1.0 TaskState" % (sub, json.dumps(v)))
                    if expect == "0.3" and v not in V03_STATES:
                        dev.append("state %s = %s is not a 0.3 TaskState" % (sub, json.dumps(v)))
                if k == "role" and isinstance(v, str):
                    if expect == "1.0" and v not in ("ROLE_USER", "ROLE_AGENT"):
                        dev.append("role %s = %s is not a 1.0 Role" % (sub, json.dumps(v)))
                    if expect == "0.3" and v not in ("user", "agent"):
                        dev.append("role %s = %s is not a 0.3 role" % (sub, json.dumps(v)))
                if k == "timestamp" and isinstance(v, str) and not _TS.match(v):
                    dev.append("timestamp %s = %s has no zone (RFC 3339 needs Z or an offset)" % (sub, json.dumps(v)))
                if k in ("history",) and isinstance(v, list):
                    for i, m in enumerate(v):
                        if isinstance(m, dict) and not m.get("messageId"):
                            dev.append("%s[%d] has no messageId" % (sub, i))
                if k == "artifacts" and isinstance(v, list):
                    for i, a in enumerate(v):
                        if isinstance(a, dict) and not a.get("artifactId"):
                            dev.append("%s[%d] has no artifactId" % (sub, i))
                if k == "parts" and isinstance(v, list) and not v:
                    dev.append("%s is empty" % sub)
                if k == "parts" and isinstance(v, list):
                    for i, part in enumerate(v):
                        if isinstance(part, dict):
                            if expect == "0.3" and "kind" not in part:
                                dev.append("%s[%d] has no 'kind' (0.3 Part)" % (sub, i))
                if k != "metadata":
                    walk(v, sub)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, "%s[%d]" % (path, i))

    walk(res, "$.result")
    return dev


# ---------------------------------------------------------------- card checks

def nulls(obj, path="$"):
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if v is None:
                out.append("%s.%s" % (path, k))
            else:
                out += nulls(v, "%s.%s" % (path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if v is None:
                out.append("%s[%d]" % (path, i))
            else:
                out += nulls(v, "%s[%d]" % (path, i))
    return out


def is_media_type(s):
    return isinstance(s, str) and "/" in s and " " not in s and not s.startswith("/") and not s.endswith("/")


def card_deviations(card, fetched_from):
    dev = []
    if not isinstance(card, dict):
        return ["card is not a JSON object"]
    for p in nulls(card):
        dev.append("null member: %s" % p)
    is10 = "supportedInterfaces" in card
    is03 = "protocolVersion" in card or "url" in card
    dev.append("card flavour: %s" % ("1.0 (supportedInterfaces)" if is10 and not is03 else
                                      "0.3 (protocolVersion/url)" if is03 and not is10 else
                                      "mixed 1.0 and 0.3 members" if is10 and is03 else "neither 1.0 nor 0.3"))
    for k in V10_REQUIRED_CARD:
        if card.get(k) is None:
            dev.append("1.0 required member missing: %s" % k)
    for k in V03_REQUIRED_CARD:
        if card.get(k) is None:
            dev.append("0.3 required member missing: %s" % k)
    for k in V03_ONLY_CARD:
        if k in card:
            dev.append("0.3-only member present: %s = %s" % (k, snip(json.dumps(card[k]))[:100]))
    caps = card.get("capabilities")
    if isinstance(caps, dict):
        for k in caps:
            if k not in V10_CAPABILITIES | V03_CAPABILITIES:
                dev.append("unknown capability member: capabilities.%s" % k)
            elif k not in V10_CAPABILITIES:
                dev.append("0.3-only capability: capabilities.%s = %s" % (k, json.dumps(caps[k])))
        for k in ("streaming", "pushNotifications", "stateTransitionHistory", "extendedAgentCard"):
            if k in caps and caps[k] is not None and not isinstance(caps[k], bool):
                dev.append("capabilities.%s is not a bool: %s" % (k, json.dumps(caps[k])))
        exts = caps.get("extensions")
        if isinstance(exts, list):
            for i, e in enumerate(exts):
                if not isinstance(e, dict) or not e.get("uri"):
                    dev.append("capabilities.extensions[%d] without uri" % i)
    elif caps is not None:
        dev.append("capabilities is not an object")
    for field in ("defaultInputModes", "defaultOutputModes"):
        modes = card.get(field)
        if isinstance(modes, list):
            if not modes:
                dev.append("%s is empty" % field)
            for m in modes:
                if not is_media_type(m):
                    dev.append("%s holds %s, not a media type" % (field, json.dumps(m)))
    for i, sk in enumerate(card.get("skills") or []):
        if not isinstance(sk, dict):
            continue
        for k in ("id", "name", "description", "tags"):
            if sk.get(k) is None:
                dev.append("skills[%d].%s missing (required in 1.0 and 0.3)" % (i, k))
        for field in ("inputModes", "outputModes"):
            for m in sk.get(field) or []:
                if not is_media_type(m):
                    dev.append("skills[%d].%s holds %s, not a media type" % (i, field, json.dumps(m)))
        if "security" in sk:
            dev.append("skills[%d].security is the 0.3 name (1.0: securityRequirements)" % i)
    for i, itf in enumerate(card.get("supportedInterfaces") or []):
        if not isinstance(itf, dict):
            dev.append("supportedInterfaces[%d] is not an object" % i)
            continue
        for k in ("url", "protocolBinding", "protocolVersion"):
            if not itf.get(k):
                dev.append("supportedInterfaces[%d].%s missing (required in 1.0)" % (i, k))
        if "transport" in itf:
            dev.append("supportedInterfaces[%d].transport is the 0.3 name (1.0: protocolBinding)" % i)
        b = itf.get("protocolBinding")
        if b and b not in ("JSONRPC", "GRPC", "HTTP+JSON") and "://" not in b:
            dev.append("supportedInterfaces[%d].protocolBinding %s is neither a core binding nor a URI" % (i, json.dumps(b)))
        v = itf.get("protocolVersion")
        if v and (v.count(".") != 1):
            dev.append("supportedInterfaces[%d].protocolVersion %s is not Major.Minor" % (i, json.dumps(v)))
    for i, itf in enumerate(card.get("additionalInterfaces") or []):
        if isinstance(itf, dict):
            for k in ("url", "transport"):
                if not itf.get(k):
                    dev.append("additionalInterfaces[%d].%s missing (required in 0.3)" % (i, k))
    pt = card.get("preferredTransport")
    if pt is not None and pt not in ("JSONRPC", "GRPC", "HTTP+JSON"):
        dev.append("preferredTransport %s is not JSONRPC/GRPC/HTTP+JSON" % json.dumps(pt))
    schemes = card.get("securitySchemes")
    if isinstance(schemes, dict):
        for name, sch in schemes.items():
            if isinstance(sch, dict) and "type" in sch:
                dev.append("securitySchemes.%s uses the 0.3 'type' discriminator (%s)" % (name, sch.get("type")))
    base = fetched_from
    for label, url in interface_urls(card):
        host = urlsplit(url).hostname if "://" in url else None
        if host is None:
            dev.append("%s URL %s is not absolute" % (label, json.dumps(url)))
        elif host in ("0.0.0.0",):
            dev.append("%s URL %s names 0.0.0.0" % (label, url))
        elif urlsplit(url).port != urlsplit(base).port:
            dev.append("%s URL %s is on another port than the card (%s)" % (label, url, base))
    return dev


def interface_urls(card):
    out = []
    for i, itf in enumerate(card.get("supportedInterfaces") or []):
        if isinstance(itf, dict) and itf.get("url"):
            out.append(("supportedInterfaces[%d]" % i, itf["url"]))
    if isinstance(card.get("url"), str):
        out.append(("url", card["url"]))
    for i, itf in enumerate(card.get("additionalInterfaces") or []):
        if isinstance(itf, dict) and itf.get("url"):
            out.append(("additionalInterfaces[%d]" % i, itf["url"]))
    return out


def declared_interfaces(card):
    """[(binding, version, url, where)], deduplicated, in card order."""
    seen, out = set(), []

    def add(binding, version, url, where):
        key = (binding, version, url)
        if key not in seen:
            seen.add(key)
            out.append({"binding": binding, "version": version, "url": url, "declared_at": where})

    for i, itf in enumerate(card.get("supportedInterfaces") or []):
        if isinstance(itf, dict):
            add(itf.get("protocolBinding") or itf.get("transport"), itf.get("protocolVersion"), itf.get("url"),
                "supportedInterfaces[%d]" % i)
    if isinstance(card.get("url"), str):
        add(card.get("preferredTransport") or "JSONRPC", card.get("protocolVersion"), card["url"], "url")
    for i, itf in enumerate(card.get("additionalInterfaces") or []):
        if isinstance(itf, dict):
            add(itf.get("transport"), card.get("protocolVersion"), itf.get("url"), "additionalInterfaces[%d]" % i)
    return out


# ---------------------------------------------------------------- the probe

class Probe:
    def __init__(self, base, push_wait, stream_timeout):
        self.base = base.rstrip("/")
        self.push_wait = push_wait
        self.stream_timeout = stream_timeout
        self.calls = []
        self.hook = Webhook()
        self.registered_at = None
        self.push_paths = []

    # one call, recorded
    def call(self, label, binding, version, method, url, body=None, headers=None, stream=False, expect=None):
        expect = expect or ("1.0" if version.startswith("1.0") or version.endswith("1.0-header") else "0.3")
        rec = {"label": label, "binding": binding, "version": version, "http": method, "url": url}
        if body is not None:
            rec["request"] = snip(json.dumps(body))
        t0 = time.monotonic()
        try:
            status, rh, raw = request(method, url, body, headers, timeout=self.stream_timeout + 5)
        except Exception as exc:  # noqa: BLE001
            rec["error"] = repr(exc)[:200]
            rec["secs"] = round(time.monotonic() - t0, 2)
            self.calls.append(rec)
            return rec
        rec["status"] = status
        rec["content_type"] = rh.get("content-type")
        if rh.get("a2a-extensions") or rh.get("x-a2a-extensions"):
            rec["extensions_header"] = rh.get("a2a-extensions") or rh.get("x-a2a-extensions")
        if not isinstance(raw, (bytes, bytearray)):  # an SSE stream
            events, ended = read_sse(raw, self.stream_timeout)
            raw.close()
            rec["stream"] = {"events": len(events), "ended": ended, "items": []}
            last_state, artifact_texts, final_seen = None, [], False
            for ev, at in events:
                item = {"at": at, "data": ev[:SNIP]}
                # RFC 7464 (JSON text sequences) puts record separators (0x1E) before each text:
                # read the JSON after leading ones, and say so (VoltAgent writes every event so).
                text = ev.lstrip("\x1e")
                if len(text) != len(ev):
                    item["record_separators"] = len(ev) - len(text)
                    item.setdefault("wire", []).append("data starts with a record separator (0x1E), RFC 7464")
                try:
                    parsed = json.loads(text)
                    item.update(find_task_info(parsed))
                    if binding == "JSONRPC":
                        wd = wire_deviations(parsed, expect, streamed=True)
                        if wd:
                            item["wire"] = (item.get("wire", []) + wd)[:12]
                except ValueError:
                    item["unparsed"] = True
                if item.get("state"):
                    last_state = item["state"]
                if item.get("final") is True:
                    final_seen = True
                artifact_texts += item.get("artifact_text") or []
                rec["stream"]["items"].append(item)
            rec["stream"]["last_state"] = last_state
            rec["stream"]["terminal"] = last_state in TERMINAL if last_state else False
            rec["stream"]["interrupted"] = last_state in INTERRUPTED if last_state else False
            rec["stream"]["final_flag_seen"] = final_seen
            rec["stream"]["artifact_texts"] = artifact_texts[:5]
            rec["stream"]["message_texts"] = [t for it in rec["stream"]["items"] for t in (it.get("message_text") or [])][:5]
            rec["stream"]["task_id"] = next((it.get("task_id") for it in rec["stream"]["items"] if it.get("task_id")), None)
        else:
            rec["body"] = snip(raw)
            try:
                parsed = json.loads(raw)
                rec.update(find_task_info(parsed))
                if binding == "JSONRPC":
                    wd = wire_deviations(parsed, expect)
                    if wd:
                        rec["wire"] = wd[:12]
            except ValueError:
                rec["unparsed"] = True
        rec["secs"] = round(time.monotonic() - t0, 2)
        self.calls.append(rec)
        return rec

    # ------------------------------------------------------------ card
    def fetch_card(self):
        tried, card, card_url = [], None, None
        if self.base.endswith(".json"):  # a card URL given directly (e.g. Mastra's /api/.well-known/{id}/agent-card.json)
            urls = [self.base]
        else:
            urls = [self.base + path for path in ("/.well-known/agent-card.json", "/.well-known/agent.json")]
        for url in urls:
            try:
                status, rh, raw = request("GET", url, timeout=10)
                entry = {"url": url, "status": status, "content_type": rh.get("content-type"),
                         "cache_control": rh.get("cache-control"), "etag": rh.get("etag"), "body": snip(raw)}
                if status == 200 and card is None:
                    try:
                        card, card_url = json.loads(raw), url
                        entry["bytes"] = len(raw)
                    except ValueError:
                        entry["unparsed"] = True
            except Exception as exc:  # noqa: BLE001
                entry = {"url": url, "error": repr(exc)[:200]}
            tried.append(entry)
        if card_url:
            try:
                status, rh, raw = request("GET", card_url, headers={"A2A-Version": "1.0"}, timeout=10)
                entry = {"url": card_url, "with_header": "A2A-Version: 1.0", "status": status,
                         "content_type": rh.get("content-type"), "vary": rh.get("vary"), "body": snip(raw)}
                try:
                    other = json.loads(raw)
                    entry["same_as_without_header"] = other == card
                    if other != card:
                        entry["card"] = other
                except ValueError:
                    entry["unparsed"] = True
                tried.append(entry)
            except Exception as exc:  # noqa: BLE001
                tried.append({"url": card_url, "with_header": "A2A-Version: 1.0", "error": repr(exc)[:200]})
        return tried, card, card_url

    # ------------------------------------------------------------ messages
    @staticmethod
    def msg10(text=QUESTION, task_id=None):
        m = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
        if task_id:
            m["taskId"] = task_id
        return m

    @staticmethod
    def msg03(text=QUESTION, task_id=None):
        m = {"kind": "message", "messageId": str(uuid.uuid4()), "role": "user",
             "parts": [{"kind": "text", "text": text}]}
        if task_id:
            m["taskId"] = task_id
        return m

    @staticmethod
    def rpc(method, params):
        return {"jsonrpc": "2.0", "id": str(uuid.uuid4())[:8], "method": method, "params": params}

    def mark_registration(self):
        self.registered_at = time.monotonic()

    # ------------------------------------------------------------ JSON-RPC
    def jsonrpc(self, url, declared_version):
        h10 = {"A2A-Version": "1.0"}
        out = {}
        # sends
        s10 = self.call("SendMessage", "JSONRPC", "1.0", "POST", url,
                        self.rpc("SendMessage", {"message": self.msg10()}), h10)
        s03 = self.call("message/send", "JSONRPC", "0.3", "POST", url,
                        self.rpc("message/send", {"message": self.msg03()}))
        s03c = self.call("message/send (configuration blocking, acceptedOutputModes text/plain)", "JSONRPC", "0.3",
                         "POST", url, self.rpc("message/send", {"message": self.msg03(), "configuration": {
                             "blocking": True, "acceptedOutputModes": ["text/plain"]}}))
        if not s03.get("task_id"):
            s03 = s03c
        # the same 1.0 method without the version header, and the 0.3 method with it
        self.call("SendMessage without A2A-Version", "JSONRPC", "1.0-no-header", "POST", url,
                  self.rpc("SendMessage", {"message": self.msg10()}))
        self.call("message/send with A2A-Version 1.0", "JSONRPC", "0.3-with-1.0-header", "POST", url,
                  self.rpc("message/send", {"message": self.msg03()}), h10, expect="0.3")
        # streams
        st10 = self.call("SendStreamingMessage", "JSONRPC", "1.0", "POST", url,
                         self.rpc("SendStreamingMessage", {"message": self.msg10()}), h10, stream=True)
        st03 = self.call("message/stream", "JSONRPC", "0.3", "POST", url,
                         self.rpc("message/stream", {"message": self.msg03()}))
        # get, with history
        for label, rec, method, hdr in (("GetTask", s10, "GetTask", h10), ("tasks/get", s03, "tasks/get", None),
                                        ("GetTask (streamed task)", st10, "GetTask", h10),
                                        ("tasks/get (streamed task)", st03, "tasks/get", None)):
            tid = rec.get("task_id") or (rec.get("stream") or {}).get("task_id")
            if tid:
                g = self.call(label, "JSONRPC", "1.0" if hdr else "0.3", "POST", url,
                              self.rpc(method, {"id": tid, "historyLength": 10}), hdr)
                ctx = rec.get("context_id") or next((it.get("context_id") for it in (rec.get("stream") or {}).get("items", [])
                                                     if it.get("context_id")), None)
                if (g.get("status") != 200 or "error_code" in g) and ctx:
                    self.call(label + " + contextId", "JSONRPC", "1.0" if hdr else "0.3", "POST", url,
                              self.rpc(method, {"id": tid, "contextId": ctx, "historyLength": 10}), hdr)
        self.call("GetTask unknown id", "JSONRPC", "1.0", "POST", url,
                  self.rpc("GetTask", {"id": "no-such-task"}), h10)
        self.call("ListTasks", "JSONRPC", "1.0", "POST", url, self.rpc("ListTasks", {}), h10)
        tid10 = s10.get("task_id") or (st10.get("stream") or {}).get("task_id")
        tid03 = s03.get("task_id") or (st03.get("stream") or {}).get("task_id")
        if tid10:
            self.call("CancelTask (terminal task)", "JSONRPC", "1.0", "POST", url,
                      self.rpc("CancelTask", {"id": tid10}), h10)
            self.call("SubscribeToTask (terminal task)", "JSONRPC", "1.0", "POST", url,
                      self.rpc("SubscribeToTask", {"id": tid10}), h10, stream=True)
        # push: on an existing task, then inline on a fresh non-blocking send
        tok = "probe-token-" + uuid.uuid4().hex[:8]
        if tid10:
            c = self.call("CreateTaskPushNotificationConfig", "JSONRPC", "1.0", "POST", url,
                          self.rpc("CreateTaskPushNotificationConfig",
                                   {"taskId": tid10, "url": self.hook.url("create-1.0"), "token": tok}), h10)
            self.mark_registration()
            self.call("GetTaskPushNotificationConfig", "JSONRPC", "1.0", "POST", url,
                      self.rpc("GetTaskPushNotificationConfig", {"taskId": tid10, "id": c.get("config_id") or tid10}), h10)
            self.call("ListTaskPushNotificationConfigs", "JSONRPC", "1.0", "POST", url,
                      self.rpc("ListTaskPushNotificationConfigs", {"taskId": tid10}), h10)
        inline10 = self.call("SendMessage + inline push config (returnImmediately)", "JSONRPC", "1.0", "POST", url,
                             self.rpc("SendMessage", {"message": self.msg10(), "configuration": {
                                 "returnImmediately": True,
                                 "taskPushNotificationConfig": {"url": self.hook.url("inline-1.0"), "token": tok}}}), h10)
        self.mark_registration()
        if inline10.get("task_id"):
            self.call("GetTaskPushNotificationConfig (inline task)", "JSONRPC", "1.0", "POST", url,
                      self.rpc("ListTaskPushNotificationConfigs", {"taskId": inline10["task_id"]}), h10)
        if tid03:
            c3 = self.call("tasks/pushNotificationConfig/set", "JSONRPC", "0.3", "POST", url,
                           self.rpc("tasks/pushNotificationConfig/set",
                                    {"taskId": tid03, "pushNotificationConfig": {"url": self.hook.url("set-0.3"),
                                                                                 "token": tok}}))
            self.mark_registration()
            self.call("tasks/pushNotificationConfig/get", "JSONRPC", "0.3", "POST", url,
                      self.rpc("tasks/pushNotificationConfig/get", {"id": tid03}))
        inline03 = self.call("message/send + inline push config (blocking false)", "JSONRPC", "0.3", "POST", url,
                             self.rpc("message/send", {"message": self.msg03(), "configuration": {
                                 "blocking": False, "acceptedOutputModes": ["text/plain"],
                                 "pushNotificationConfig": {"url": self.hook.url("inline-0.3"), "token": tok}}}))
        self.mark_registration()
        if inline03.get("task_id"):
            self.call("tasks/pushNotificationConfig/get (inline task)", "JSONRPC", "0.3", "POST", url,
                      self.rpc("tasks/pushNotificationConfig/get", {"id": inline03["task_id"]}))
        out["task_ids"] = {"1.0": tid10, "0.3": tid03}
        return out

    # ------------------------------------------------------------ HTTP+JSON
    def rest(self, url, declared_version):
        url = url.rstrip("/")
        h10 = {"A2A-Version": "1.0", "Content-Type": "application/a2a+json"}
        s10 = self.call("POST /message:send", "HTTP+JSON", "1.0", "POST", url + "/message:send",
                        {"message": self.msg10()}, h10)
        s03 = self.call("POST /v1/message:send", "HTTP+JSON", "0.3", "POST", url + "/v1/message:send",
                        {"message": self.msg03(), "configuration": {"blocking": True}})
        st10 = self.call("POST /message:stream", "HTTP+JSON", "1.0", "POST", url + "/message:stream",
                         {"message": self.msg10()}, h10, stream=True)
        st03 = self.call("POST /v1/message:stream", "HTTP+JSON", "0.3", "POST", url + "/v1/message:stream",
                         {"message": self.msg03()}, stream=True)
        # 0.3's HTTP+JSON bodies are the ProtoJSON of the 0.3 gRPC proto (a2a.v1): {"request": Message},
        # Message.content (not parts), ROLE_USER
        def pmsg():
            return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "content": [{"text": QUESTION}]}
        p03 = self.call("POST /v1/message:send (0.3 proto JSON)", "HTTP+JSON", "0.3-proto", "POST",
                        url + "/v1/message:send", {"request": pmsg(), "configuration": {"blocking": True}})
        pst03 = self.call("POST /v1/message:stream (0.3 proto JSON)", "HTTP+JSON", "0.3-proto", "POST",
                          url + "/v1/message:stream", {"request": pmsg()}, stream=True)
        tidp = p03.get("task_id") or (pst03.get("stream") or {}).get("task_id")
        tid10 = s10.get("task_id") or (st10.get("stream") or {}).get("task_id")
        tid03 = s03.get("task_id") or (st03.get("stream") or {}).get("task_id")
        tok = "probe-token-" + uuid.uuid4().hex[:8]
        if tidp:
            self.call("GET /v1/tasks/{id} (0.3 proto JSON)", "HTTP+JSON", "0.3-proto", "GET",
                      url + "/v1/tasks/%s?historyLength=10" % tidp)
            cp = self.call("POST /v1/tasks/{id}/pushNotificationConfigs (0.3 proto JSON)", "HTTP+JSON", "0.3-proto",
                           "POST", url + "/v1/tasks/%s/pushNotificationConfigs" % tidp,
                           {"parent": "tasks/%s" % tidp, "configId": "probe",
                            "config": {"name": "tasks/%s/pushNotificationConfigs/probe" % tidp,
                                       "pushNotificationConfig": {"id": "probe", "url": self.hook.url("rest-proto-0.3"),
                                                                  "token": tok}}})
            self.mark_registration()
            self.call("GET /v1/tasks/{id}/pushNotificationConfigs/probe (0.3 proto JSON)", "HTTP+JSON", "0.3-proto",
                      "GET", url + "/v1/tasks/%s/pushNotificationConfigs/probe" % tidp)
        self.call("POST /v1/message:send + inline push (0.3 proto JSON)", "HTTP+JSON", "0.3-proto", "POST",
                  url + "/v1/message:send", {"request": pmsg(), "configuration": {
                      "blocking": False, "pushNotification": {"url": self.hook.url("rest-proto-inline-0.3"), "token": tok}}})
        self.mark_registration()
        if tid10:
            self.call("GET /tasks/{id}", "HTTP+JSON", "1.0", "GET", url + "/tasks/%s?historyLength=10" % tid10,
                      headers=h10)
            c = self.call("POST /tasks/{id}/pushNotificationConfigs", "HTTP+JSON", "1.0", "POST",
                          url + "/tasks/%s/pushNotificationConfigs" % tid10,
                          {"taskId": tid10, "url": self.hook.url("rest-create-1.0"), "token": tok}, h10)
            self.mark_registration()
            if c.get("config_id"):
                self.call("GET /tasks/{id}/pushNotificationConfigs/{cid}", "HTTP+JSON", "1.0", "GET",
                          url + "/tasks/%s/pushNotificationConfigs/%s" % (tid10, c["config_id"]), headers=h10)
        if tid03:
            self.call("GET /v1/tasks/{id}", "HTTP+JSON", "0.3", "GET", url + "/v1/tasks/%s?historyLength=10" % tid03)
            self.call("POST /v1/tasks/{id}/pushNotificationConfigs", "HTTP+JSON", "0.3", "POST",
                      url + "/v1/tasks/%s/pushNotificationConfigs" % tid03,
                      {"taskId": tid03, "pushNotificationConfig": {"url": self.hook.url("rest-set-0.3"), "token": tok}})
            self.mark_registration()
        self.call("POST /message:send (inline push)", "HTTP+JSON", "1.0", "POST", url + "/message:send",
                  {"message": self.msg10(), "configuration": {
                      "returnImmediately": True,
                      "taskPushNotificationConfig": {"url": self.hook.url("rest-inline-1.0"), "token": tok}}}, h10)
        self.call("POST /v1/message:send (inline push)", "HTTP+JSON", "0.3", "POST", url + "/v1/message:send",
                  {"message": self.msg03(), "configuration": {
                      "blocking": False,
                      "pushNotificationConfig": {"url": self.hook.url("rest-inline-0.3"), "token": tok}}})
        self.mark_registration()
        return {"task_ids": {"1.0": tid10, "0.3": tid03}}

    def wait_for_push(self):
        if self.registered_at is None:
            return 0.0
        deadline = self.registered_at + self.push_wait
        while time.monotonic() < deadline:
            time.sleep(0.25)
        return self.push_wait


def loopback_url(url, base):
    """An interface URL the probe may call: on a loopback host; 0.0.0.0 is rewritten to 127.0.0.1."""
    if not url or "://" not in url:
        return None
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK:
        return None
    if parts.hostname in ("0.0.0.0", "localhost"):
        netloc = "127.0.0.1" + (":%d" % parts.port if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    return url


def summarize(probe, card, interfaces):
    caps = (card or {}).get("capabilities") or {}
    s = {"declared": {k: caps.get(k) for k in ("streaming", "pushNotifications", "stateTransitionHistory",
                                                "extendedAgentCard") if k in caps}}
    answered = {}
    for c in probe.calls:
        ok = c.get("status") == 200 and ("error_code" not in c) and not c.get("error")
        key = "%s %s %s @%s" % (c["binding"], c["version"], c["label"], urlsplit(c["url"]).path or "/")
        answered[key] = ("ok" if ok else
                         "error %s" % c.get("error_code") if "error_code" in c else
                         "HTTP %s" % c.get("status") if "status" in c else c.get("error", "?")[:60])
        if c.get("stream"):
            st = c["stream"]
            answered[key] += " stream: %d events, last state %s, artifact %s, %s" % (
                st["events"], st["last_state"], bool(st["artifact_texts"]), st["ended"])
    s["calls"] = answered
    wire = {}
    for c in probe.calls:
        found = list(c.get("wire") or [])
        for it in (c.get("stream") or {}).get("items", []):
            found += it.get("wire") or []
        if found:
            uniq = []
            for d in found:
                d = _re.sub(r"\[\d+\]", "[]", d)
                if d not in uniq:
                    uniq.append(d)
            wire["%s %s %s @%s" % (c["binding"], c["version"], c["label"], urlsplit(c["url"]).path or "/")] = uniq[:15]
    s["wire_deviations"] = wire
    s["push_callbacks"] = len(probe.hook.received)
    s["push_callbacks_by_path"] = {}
    for r in probe.hook.received:
        s["push_callbacks_by_path"][r["path"]] = s["push_callbacks_by_path"].get(r["path"], 0) + 1
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("url")
    ap.add_argument("--push-wait", type=float, default=15.0)
    ap.add_argument("--stream-timeout", type=float, default=30.0)
    ap.add_argument("--out")
    ap.add_argument("--extra-jsonrpc", action="append", default=[],
                    help="also probe this URL as JSON-RPC (e.g. a path the card does not name)")
    ap.add_argument("--extra-rest", action="append", default=[],
                    help="also probe this URL as HTTP+JSON")
    args = ap.parse_args()
    probe = Probe(args.url, args.push_wait, args.stream_timeout)
    report = {"target": args.url, "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    tried, card, card_url = probe.fetch_card()
    report["card"] = {"tried": tried, "card_url": card_url, "card": card}
    if card is None:
        report["verdict"] = "no card"
        print(json.dumps(report, indent=2))
        return 1
    report["deviations"] = card_deviations(card, card_url)
    interfaces = declared_interfaces(card)
    report["interfaces"] = interfaces
    done = set()
    targets = [(i["binding"], i["version"], i["url"], i["declared_at"]) for i in interfaces]
    targets += [("JSONRPC", None, u, "--extra-jsonrpc") for u in args.extra_jsonrpc]
    targets += [("HTTP+JSON", None, u, "--extra-rest") for u in args.extra_rest]
    report["interface_results"] = []
    for binding, version, url, where in targets:
        callable_url = loopback_url(url, args.url)
        entry = {"binding": binding, "version": version, "url": url, "declared_at": where}
        if callable_url is None:
            entry["skipped"] = "not a loopback URL (not called)"
        elif (binding, callable_url) in done:
            entry["skipped"] = "same binding and URL already probed"
        elif binding in ("JSONRPC", "jsonrpc", "JSON-RPC"):
            done.add((binding, callable_url))
            first = len(probe.calls)
            entry.update(probe.jsonrpc(callable_url, version))
            entry["calls"] = [i for i in range(first, len(probe.calls))]
        elif binding in ("HTTP+JSON", "REST", "HTTP_JSON", "http+json"):
            done.add((binding, callable_url))
            first = len(probe.calls)
            entry.update(probe.rest(callable_url, version))
            entry["calls"] = [i for i in range(first, len(probe.calls))]
        else:
            entry["skipped"] = "binding %s not probed" % binding
        report["interface_results"].append(entry)
    waited = probe.wait_for_push()
    report["calls"] = probe.calls
    report["push"] = {"webhook_port": probe.hook.port, "waited_secs_after_last_registration": waited,
                      "received": probe.hook.received}
    report["summary"] = summarize(probe, card, interfaces)
    probe.hook.close()
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

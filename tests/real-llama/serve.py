"""A real llama.cpp server for scripts/real-llama.sh, from PyPI packages only.

Starts llama.cpp's own C++ server (the `xllamacpp` wheel embeds it) on 127.0.0.1:PORT
with --jinja semantics and the given chat template. With --force-port it also listens on
127.0.0.1:FORCE_PORT and forwards everything to the server, except that a Chat
Completions request offering tools whose last message is the user's gets
`tool_choice: "required"` and an assistant prefill `<tool_call>\\n`: llama.cpp's grammar
then makes a tiny model's first reply one native tool call, which the server parses and
sends as `tool_calls` (streamed or not, as asked). Later turns (after a tool result) pass
through untouched, so the run can end with a text answer.

Prints one JSON line {"url": ..., "forced_url": ...} once both listen; exits on SIGTERM
or SIGINT (or, with --stdin, when its standard input closes).
"""

import argparse
import http.client
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import xllamacpp

FORWARDED_REQUEST_HEADERS = ("content-type", "accept", "authorization")
FORWARDED_RESPONSE_HEADERS = ("content-type", "cache-control")


def force_tool_call(body: bytes) -> bytes:
    try:
        request = json.loads(body)
    except ValueError:
        return body
    messages = request.get("messages") or []
    if request.get("tools") and messages and messages[-1].get("role") == "user":
        request["tool_choice"] = "required"
        messages.append({"role": "assistant", "content": "<tool_call>\n"})
        print("forced a tool call", file=sys.stderr, flush=True)
        return json.dumps(request).encode()
    return body


def proxy_handler(upstream_port: int):
    class Proxy(BaseHTTPRequestHandler):
        # HTTP/1.0: the body ends when the connection closes, so streams pass as they come.
        protocol_version = "HTTP/1.0"

        def log_message(self, format, *args):
            pass

        def do_GET(self):
            self.forward(None)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.rstrip("/").endswith("/chat/completions"):
                body = force_tool_call(body)
            self.forward(body)

        def forward(self, body):
            conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=600)
            headers = {
                k: v for k, v in self.headers.items() if k.lower() in FORWARDED_REQUEST_HEADERS
            }
            conn.request(self.command, self.path, body=body, headers=headers)
            response = conn.getresponse()
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() in FORWARDED_RESPONSE_HEADERS:
                    self.send_header(name, value)
            self.end_headers()
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                self.wfile.write(chunk)
                self.wfile.flush()
            conn.close()

    return Proxy


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--force-port", type=int)
    parser.add_argument("--template", help="a Jinja chat template file")
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--predict", type=int, default=256, help="longest answer, in tokens")
    parser.add_argument("--stdin", action="store_true", help="exit when stdin closes")
    parser.add_argument(
        "--no-jinja",
        action="store_true",
        help="llama-server's default: no Jinja templates, so requests with tools are refused",
    )
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_predict = args.predict
    params.n_parallel = 1
    params.use_jinja = not args.no_jinja
    if args.template and not args.no_jinja:
        with open(args.template, encoding="utf-8") as f:
            params.chat_template = f.read()
    server = xllamacpp.Server(params)

    ready = {"url": f"http://127.0.0.1:{args.port}"}
    if args.force_port:
        proxy = ThreadingHTTPServer(("127.0.0.1", args.force_port), proxy_handler(args.port))
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        ready["forced_url"] = f"http://127.0.0.1:{args.force_port}"
    print(json.dumps(ready), flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.stdin:

        def wait_for_stdin():
            sys.stdin.read()
            stop.set()

        threading.Thread(target=wait_for_stdin, daemon=True).start()
    while not stop.wait(1):
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An HTTP store that misbehaves on request, for HTTPStoreTests.

    python fault_server.py PORT

Serves objects at /<mode>/<key> on 127.0.0.1:PORT, one object table for every mode. PUT
stores, GET and HEAD read, DELETE removes; the mode says how it goes wrong:

    plain       behaves
    flaky       answers 503 to the first two requests of each method and path, then behaves
    down        always 503
    slow        waits 4 s before answering
    stall       announces the object's length, sends half of it and waits 4 s
    loop        302 to /loop2/<key>, which 302s back to /loop/<key>
    hops        302 to /hops<N+1>/<key>, without end and never twice the same URL
    redirect    307 to /plain/<key> on the same host
    elsewhere   307 to /plain/<key> on http://localhost:PORT, a host name other than 127.0.0.1
    truncated   announces 100 bytes more than the object has, sends the object and closes
    oversize    announces 10 MB (and sends until the client hangs up)
    chunked     no length announced: 64 KB chunks until the client hangs up
    denied      403
    unauthorized 401

GET /stats gives, as JSON, the count of requests per "METHOD /path" and the Authorization
header each path last carried ("" for none).
"""

import http.server
import json
import sys
import threading
import time

objects = {}
counts = {}
authorization = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.answer(send_body=True)

    def do_HEAD(self):
        self.answer(send_body=False)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        mode, key = self.route()
        if self.fault(mode, key):
            return
        with lock:
            objects[key] = body
        self.reply(201, b"")

    def do_DELETE(self):
        mode, key = self.route()
        if self.fault(mode, key):
            return
        with lock:
            found = objects.pop(key, None)
        self.reply(204 if found is not None else 404, b"")

    def route(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        mode, key = (parts[0], parts[-1]) if len(parts) > 1 else (parts[0], "")
        with lock:
            name = f"{self.command} {self.path.split('?')[0]}"
            counts[name] = counts.get(name, 0) + 1
            authorization[self.path.split("?")[0]] = self.headers.get("Authorization", "")
        return mode, key

    def reply(self, status, body, send_body=True, headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def fault(self, mode, key):
        """Answers as the mode goes wrong; False when the request is to be served."""
        name = f"{self.command} {self.path.split('?')[0]}"
        port = self.server.server_address[1]
        if mode == "flaky":
            with lock:
                count = counts[name]
            if count <= 2:
                self.reply(503, b"busy")
                return True
        elif mode == "down":
            self.reply(503, b"down")
            return True
        elif mode == "slow":
            time.sleep(4)
        elif mode == "loop":
            self.reply(302, b"", headers=[("Location", f"/loop2/{key}")])
            return True
        elif mode == "loop2":
            self.reply(302, b"", headers=[("Location", f"/loop/{key}")])
            return True
        elif mode.startswith("hops"):
            hop = int(mode[4:] or "0") + 1
            self.reply(302, b"", headers=[("Location", f"/hops{hop}/{key}")])
            return True
        elif mode == "redirect":
            self.reply(307, b"", headers=[("Location", f"/plain/{key}")])
            return True
        elif mode == "elsewhere":
            location = f"http://localhost:{port}/plain/{key}"
            self.reply(307, b"", headers=[("Location", location)])
            return True
        elif mode == "denied":
            self.reply(403, b"forbidden")
            return True
        elif mode == "unauthorized":
            self.reply(401, b"unauthorized", headers=[("WWW-Authenticate", 'Basic realm="x"')])
            return True
        return False

    def answer(self, send_body):
        if self.path == "/stats":
            with lock:
                body = json.dumps({"counts": counts, "authorization": authorization}).encode()
            self.reply(200, body)
            return
        mode, key = self.route()
        if self.fault(mode, key):
            return
        with lock:
            body = objects.get(key)
        if body is None:
            self.reply(404, b"no such object", send_body)
            return
        if mode == "stall":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                time.sleep(4)
            self.close_connection = True
            return
        if mode == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            if send_body:
                self.wfile.write(body)
            self.close_connection = True
            return
        if mode in ("oversize", "chunked"):
            self.send_response(200)
            if mode == "oversize":
                self.send_header("Content-Length", str(10_000_000))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            if not send_body:
                return
            chunk = b"x" * 65536
            try:
                for _ in range(160):
                    if mode == "chunked":
                        self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                    else:
                        self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.reply(200, body, send_body)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()

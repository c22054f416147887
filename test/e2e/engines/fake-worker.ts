import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A stand-in `envace_worker` package (Python stdlib only) that starts in milliseconds, for
 * supervisor tests: `/health` answers, `/v1/train/load` records its path to $FAKE_LOG (only with
 * the bearer token from $ENVACE_WORKER_API_KEY, as the real worker), and FAKE_MODE=crash makes it
 * exit at once with code 3. Put its directory first on PYTHONPATH; `model` is a directory that
 * passes the supervisor's model-directory check.
 */
export function writeFakeWorker(): { pythonPath: string; log: string; model: string } {
  const root = mkdtempSync(join(tmpdir(), "envace-fake-worker-"));
  const pkg = join(root, "envace_worker");
  mkdirSync(pkg);
  writeFileSync(join(pkg, "__init__.py"), "");
  writeFileSync(
    join(pkg, "__main__.py"),
    `
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
if os.environ.get("FAKE_MODE") == "crash":
    print("fake worker: crashing on purpose", flush=True)
    sys.exit(3)
args = sys.argv[1:]
host, port = args[args.index("--host") + 1], int(args[args.index("--port") + 1])
state = {"step": 0}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self):
        self.reply({"status": "ok", "model": "fake", "step": state["step"], "world_size": 1})
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.headers.get("authorization") != "Bearer " + os.environ.get("ENVACE_WORKER_API_KEY", "?"):
            return self.reply({"error": {"message": "missing or wrong bearer token"}}, 401)
        if self.path == "/v1/train/load":
            with open(os.environ["FAKE_LOG"], "a") as f: f.write(body["path"] + "\\n")
            state["step"] = 42
            return self.reply({"path": body["path"], "step": 42, "optimizer": True})
        self.reply({"error": {"message": "no such route"}}, 404)
srv = HTTPServer((host, port), H)
print(f"listening on http://{host}:{srv.server_address[1]}", flush=True)
srv.serve_forever()
`,
  );
  const model = join(root, "model");
  mkdirSync(model);
  writeFileSync(join(model, "config.json"), "{}");
  return { pythonPath: root, log: join(root, "loads.log"), model };
}

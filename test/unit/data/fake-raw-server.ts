import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for raw.githubusercontent.com on 127.0.0.1: every path answers with a body derived
 * from the path, except `missing` paths (404) and `broken` paths (the connection drops mid-body).
 */
export async function startFakeRawServer(opts: { missing?: string[]; broken?: string[] } = {}) {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? "/");
    requests.push(path);
    if (opts.missing?.some((m) => path.endsWith(m))) {
      res.writeHead(404, "Not Found").end("404: Not Found");
      return;
    }
    if (opts.broken?.some((b) => path.endsWith(b))) {
      res.writeHead(200, { "content-length": "100000" });
      res.write("partial");
      setImmediate(() => res.destroy());
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(`content of ${path}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

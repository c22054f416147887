import {
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
} from "node:fs";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { EnvaceError } from "../../core/errors.js";
import { dataFiles, type Benchmark, type DataFile } from "./manifest.js";

export const DEFAULT_DATA_BASE_URL = "https://raw.githubusercontent.com";

export interface FetchDataOptions {
  /** Data directory; the benchmark's folder is created inside it. */
  dir: string;
  /** Where `<repo>/<ref>/<path>` is fetched from (default: env ENVACE_DATA_BASE_URL, then raw GitHub). */
  baseUrl?: string;
  /** Download again files that are already there (default false: they are kept, so a rerun resumes). */
  force?: boolean;
  /** Downloads at a time (default 4). */
  concurrency?: number;
  /** Attempts per file on network errors and 5xx answers (default 3); a 4xx answer fails at once. */
  attempts?: number;
  onProgress?: (event: FetchProgress) => void;
}

export interface FetchProgress {
  file: DataFile;
  status: "downloaded" | "skipped";
  bytes: number;
  done: number;
  total: number;
}

export interface FetchReport {
  bench: Benchmark;
  dir: string;
  downloaded: string[];
  skipped: string[];
  bytes: number;
}

export function fileUrl(base: string, file: DataFile): string {
  return `${base.replace(/\/+$/, "")}/${file.repo}/${file.ref}/${file.path}`;
}

/**
 * Downloads one benchmark's files into `dir`. Each file is written to a temporary name next to
 * its destination and renamed when complete, so an interrupted run leaves no partial file and a
 * rerun skips what is already there. The first failure stops the run with DATA_DOWNLOAD_ERROR
 * naming the URL; files completed before it are kept.
 */
export async function fetchBenchmarkData(bench: Benchmark, opts: FetchDataOptions): Promise<FetchReport> {
  const base = opts.baseUrl ?? process.env.ENVACE_DATA_BASE_URL ?? DEFAULT_DATA_BASE_URL;
  const files = dataFiles(bench);
  const report: FetchReport = { bench, dir: opts.dir, downloaded: [], skipped: [], bytes: 0 };
  let next = 0;
  let done = 0;
  let failure: unknown = null;

  const worker = async (): Promise<void> => {
    while (failure === null && next < files.length) {
      const file = files[next++]!;
      const dest = join(opts.dir, ...file.dest.split("/"));
      try {
        let bytes: number;
        let status: FetchProgress["status"];
        if (!opts.force && existsSync(dest)) {
          bytes = statSync(dest).size;
          status = "skipped";
          report.skipped.push(file.dest);
        } else {
          bytes = await downloadWithRetries(fileUrl(base, file), dest, opts.attempts ?? 3);
          status = "downloaded";
          report.downloaded.push(file.dest);
          report.bytes += bytes;
        }
        done += 1;
        opts.onProgress?.({ file, status, bytes, done, total: files.length });
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  if (failure !== null) throw failure;
  return report;
}

async function downloadWithRetries(url: string, dest: string, attempts: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await download(url, dest);
    } catch (e) {
      const retryable = !(
        e instanceof EnvaceError && (e.details as { retryable?: boolean })?.retryable === false
      );
      if (!retryable || attempt >= attempts) throw e;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

async function download(url: string, dest: string): Promise<number> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (e) {
    throw new EnvaceError("DATA_DOWNLOAD_ERROR", `cannot fetch ${url}: ${causeOf(e)}`, {
      url,
      retryable: true,
    });
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new EnvaceError(
      "DATA_DOWNLOAD_ERROR",
      `cannot fetch ${url}: HTTP ${res.status} ${res.statusText}`,
      {
        url,
        status: res.status,
        retryable: res.status >= 500 || res.status === 429,
      },
    );
  }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.part-${process.pid}`;
  const out = createWriteStream(tmp);
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), out);
    renameSync(tmp, dest);
  } catch (e) {
    // pipeline rejects as soon as the body fails, possibly before the file stream has opened its
    // file; removing the file then would race the open, which creates it afterwards. Wait for the
    // destroyed stream to close first.
    out.destroy();
    await closed(out);
    rmSync(tmp, { force: true });
    throw new EnvaceError("DATA_DOWNLOAD_ERROR", `download of ${url} failed: ${causeOf(e)}`, {
      url,
      retryable: true,
    });
  }
  return statSync(dest).size;
}

function closed(stream: WriteStream): Promise<void> {
  return stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once("close", () => resolve()));
}

/** Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is in `cause`. */
function causeOf(e: unknown): string {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message;
  return `${err.message ?? String(e)}${cause ? ` (${cause})` : ""}`;
}

/**
 * @module models/download
 * Downloads one model file: into `FILE.part` beside the destination, resumed with an HTTP `Range` request
 * when a partial file is there, hashed as it arrives (the partial part re-hashed first), checked against the
 * expected SHA-256 and size, then renamed into place — so the destination either is the whole, verified file
 * or does not exist. A cut connection keeps the partial file for the next attempt; a checksum mismatch or a
 * full disk removes it.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, open, rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { type HttpResponse, httpRequest } from "../net/index.js";

/** How far a download got. */
export interface DownloadProgress {
  received: number;
  /** Bytes in all, when the server said. */
  total?: number;
  /** True for the first event of a resumed download. */
  resumedFrom?: number;
}

export interface DownloadOptions {
  url: string;
  /** The final path; the partial file is `dest + ".part"`. */
  dest: string;
  /**
   * The expected SHA-256 (hex). Without one, the checksum the server states for the file is used (Hugging
   * Face's `X-Linked-ETag`); a download with neither is refused before it starts.
   */
  sha256?: string;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
}

/** Why a download failed; `kind` says what the user can do. */
export class DownloadError extends Error {
  override readonly name = "DownloadError";
  constructor(
    readonly kind: "http" | "checksum" | "no_checksum" | "disk_full" | "interrupted" | "cancelled",
    message: string,
  ) {
    super(message);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
/** No byte for this long stops the download (what arrived is kept, to resume). */
const DOWNLOAD_IDLE_MS = 60_000;

/** Downloads `url` to `dest`, verified. Resolves with the file's SHA-256. */
export async function downloadFile(options: DownloadOptions): Promise<{ sha256: string; bytes: number }> {
  const part = `${options.dest}.part`;
  const have = await partialSize(part);
  const headers: Record<string, string> = have > 0 ? { range: `bytes=${have}-` } : {};
  let res: HttpResponse;
  try {
    // The URL is the catalogue's or the user's own: `configured` (a mirror on loopback works); a redirect to
    // another host (Hugging Face's CDN) is vetted like any untrusted URL.
    res = await httpRequest(options.url, {
      mode: "configured",
      headers: { ...headers, "accept-encoding": "identity" },
      idleMs: DOWNLOAD_IDLE_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw new DownloadError("cancelled", "the download was cancelled");
    throw new DownloadError("http", `cannot reach ${new URL(options.url).host}: ${reason(error)}`);
  }
  const resumed = res.status === 206 && have > 0;
  if (res.status === 416 && have > 0) {
    // The partial file is already whole (or longer than the file): start again rather than guess.
    await rm(part, { force: true });
    res.close();
    return downloadFile(options);
  }
  if (res.status < 200 || res.status > 299) {
    res.close();
    throw new DownloadError("http", `${options.url} answered ${res.status} ${res.statusText}`.trim());
  }
  const expected = (options.sha256 ?? serverChecksum(res))?.toLowerCase();
  if (!expected || !SHA256.test(expected)) {
    res.close();
    throw new DownloadError(
      "no_checksum",
      `no SHA-256 to verify ${options.url} against: pass --sha256 HEX (the server states none)`,
    );
  }
  const total = totalBytes(res, resumed ? have : 0);
  const hash = createHash("sha256");
  let received = 0;
  if (resumed) {
    await pipeline(createReadStream(part), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) hash.update(chunk);
    });
    received = have;
  }
  options.onProgress?.({ received, ...(total ? { total } : {}), ...(resumed ? { resumedFrom: have } : {}) });
  // Each chunk is written before the next is read, so a cut connection leaves everything received on disk.
  const file = await open(part, resumed ? "a" : "w");
  try {
    for await (const chunk of res.chunks()) {
      await file.write(chunk);
      hash.update(chunk);
      received += chunk.length;
      options.onProgress?.({ received, ...(total ? { total } : {}) });
    }
  } catch (error) {
    await file.close().catch(() => {});
    if ((error as NodeJS.ErrnoException).code === "ENOSPC") {
      await rm(part, { force: true });
      throw new DownloadError(
        "disk_full",
        `the disk is full: ${options.dest} needs ${total ? `${mb(total)} MB` : "more space"} — free some space and run the command again`,
      );
    }
    if (options.signal?.aborted)
      throw new DownloadError(
        "cancelled",
        `the download was cancelled; ${mb(received)} MB kept — run the command again to resume`,
      );
    throw new DownloadError(
      "interrupted",
      `the download stopped after ${mb(received)} MB (${reason(error)}) — run the command again to resume`,
    );
  }
  await file.close();
  if (total !== undefined && received !== total)
    throw new DownloadError(
      "interrupted",
      `the download stopped after ${mb(received)} of ${mb(total)} MB — run the command again to resume`,
    );
  const actual = hash.digest("hex");
  if (actual !== expected) {
    await rm(part, { force: true });
    throw new DownloadError(
      "checksum",
      `the downloaded file does not match its checksum (expected sha256 ${expected}, got ${actual}); it was removed`,
    );
  }
  await rename(part, options.dest);
  return { sha256: actual, bytes: received };
}

async function partialSize(part: string): Promise<number> {
  try {
    const info = await lstat(part);
    return info.isFile() ? info.size : 0;
  } catch {
    return 0;
  }
}

/** Hugging Face states an LFS file's SHA-256 in `X-Linked-ETag` (or `ETag` on the final host). */
function serverChecksum(res: HttpResponse): string | undefined {
  for (const name of ["x-linked-etag", "etag"]) {
    const value = res.headers[name]?.replace(/^W\//, "").replaceAll('"', "");
    if (value && SHA256.test(value.toLowerCase())) return value;
  }
  return undefined;
}

function totalBytes(res: HttpResponse, offset: number): number | undefined {
  const range = res.headers["content-range"]?.match(/\/(\d+)$/);
  if (range) return Number(range[1]);
  const length = Number(res.headers["content-length"]);
  return Number.isFinite(length) && length > 0 ? offset + length : undefined;
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

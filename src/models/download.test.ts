import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import type http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tinyModel } from "../test-support/tiny-gguf.js";
import { startServer, type TestServer } from "../test-support/web-servers.js";
import { DownloadError, type DownloadProgress, downloadFile } from "./download.js";

const MODEL = tinyModel({ script: ["Hello", "▁there"] });
const SHA = createHash("sha256").update(MODEL).digest("hex");

/** How the server behaves for the next requests. */
let mode: { cutAfter?: number; cutOnceOnDisk?: string; etag?: string; status?: number } = {};

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (mode.status) {
    res.writeHead(mode.status).end("no");
    return;
  }
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = range ? Number(range[1]) : 0;
  if (start >= MODEL.length) {
    res.writeHead(416, { "content-range": `bytes */${MODEL.length}` }).end();
    return;
  }
  const headers: Record<string, string> = {
    "content-length": String(MODEL.length - start),
    ...(mode.etag ? { "x-linked-etag": `"${mode.etag}"` } : {}),
  };
  if (range) headers["content-range"] = `bytes ${start}-${MODEL.length - 1}/${MODEL.length}`;
  res.writeHead(range ? 206 : 200, headers);
  const cut = mode.cutAfter;
  if (cut !== undefined) {
    mode = { ...mode, cutAfter: undefined };
    // Send part of the body, then close the connection short of its length (the client sees a cut stream) —
    // once the client has written some of it to disk: a stream's error discards the chunks it still queues.
    const partFile = mode.cutOnceOnDisk;
    res.write(MODEL.subarray(start, start + cut), async () => {
      for (let i = 0; i < 600 && partFile && (await partialBytes(partFile)) === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      res.socket?.end();
    });
    return;
  }
  res.end(MODEL.subarray(start));
}

async function partialBytes(path: string): Promise<number> {
  return stat(path).then(
    (info) => info.size,
    () => 0,
  );
}

let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startServer(serve);
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  mode = {};
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function fresh(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "tg-models-"));
  return join(dir, "tiny.gguf");
}

// Each case moves a few hundred kilobytes through a real server; a busy machine can take tens of seconds.
describe("downloadFile", { timeout: 120_000 }, () => {
  it("downloads, reports progress up to the total, verifies the checksum and renames into place", async () => {
    const dest = await fresh();
    const events: DownloadProgress[] = [];
    const done = await downloadFile({
      url: `${server.origin}/m.gguf`,
      dest,
      sha256: SHA,
      onProgress: (p) => events.push(p),
    });
    expect(done).toEqual({ sha256: SHA, bytes: MODEL.length });
    expect(await readFile(dest)).toEqual(MODEL);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(events.at(-1)).toEqual({ received: MODEL.length, total: MODEL.length });
    const received = events.map((e) => e.received);
    expect(received).toEqual([...received].sort((a, b) => a - b));
  });

  it("keeps the partial file when the connection is cut, and resumes it with a Range request", async () => {
    const dest = await fresh();
    mode = { cutAfter: 100_000, cutOnceOnDisk: `${dest}.part` };
    const first = await downloadFile({ url: `${server.origin}/m.gguf`, dest, sha256: SHA }).catch(
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(DownloadError);
    expect((first as DownloadError).kind).toBe("interrupted");
    expect((first as DownloadError).message).toMatch(/run the command again to resume/);
    const kept = (await readFile(`${dest}.part`)).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(MODEL.length);
    expect(existsSync(dest)).toBe(false);

    const events: DownloadProgress[] = [];
    await downloadFile({
      url: `${server.origin}/m.gguf`,
      dest,
      sha256: SHA,
      onProgress: (p) => events.push(p),
    });
    expect(events[0]).toEqual({ received: kept, total: MODEL.length, resumedFrom: kept });
    expect(server.requests.at(-1)?.headers.range).toBe(`bytes=${kept}-`);
    expect(await readFile(dest)).toEqual(MODEL);
  });

  it("refuses a file whose checksum does not match and removes the partial file", async () => {
    const dest = await fresh();
    const error = await downloadFile({ url: `${server.origin}/m.gguf`, dest, sha256: "0".repeat(64) }).catch(
      (e: unknown) => e,
    );
    expect((error as DownloadError).kind).toBe("checksum");
    expect((error as DownloadError).message).toContain(`got ${SHA}`);
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it("uses the checksum the server states (Hugging Face's X-Linked-ETag) when none is pinned", async () => {
    const dest = await fresh();
    mode = { etag: SHA };
    await downloadFile({ url: `${server.origin}/m.gguf`, dest });
    expect(await readFile(dest)).toEqual(MODEL);
    mode = { etag: "f".repeat(64) };
    const other = join(dir, "other.gguf");
    const error = await downloadFile({ url: `${server.origin}/m.gguf`, dest: other }).catch(
      (e: unknown) => e,
    );
    expect((error as DownloadError).kind).toBe("checksum");
  });

  it("refuses to start without any checksum to verify against", async () => {
    const dest = await fresh();
    const error = await downloadFile({ url: `${server.origin}/m.gguf`, dest }).catch((e: unknown) => e);
    expect((error as DownloadError).kind).toBe("no_checksum");
    expect((error as DownloadError).message).toMatch(/--sha256/);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it("says the disk is full and leaves nothing behind (writes go to /dev/full)", async () => {
    const dest = await fresh();
    await symlink("/dev/full", `${dest}.part`);
    const error = await downloadFile({ url: `${server.origin}/m.gguf`, dest, sha256: SHA }).catch(
      (e: unknown) => e,
    );
    expect((error as DownloadError).kind).toBe("disk_full");
    expect((error as DownloadError).message).toMatch(/the disk is full/);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(existsSync(dest)).toBe(false);
  });

  it("names the status of a refused download", async () => {
    const dest = await fresh();
    mode = { status: 404 };
    const error = await downloadFile({ url: `${server.origin}/m.gguf`, dest, sha256: SHA }).catch(
      (e: unknown) => e,
    );
    expect((error as DownloadError).kind).toBe("http");
    expect((error as DownloadError).message).toMatch(/answered 404/);
  });

  it("starts again when the partial file is already as long as the file", async () => {
    const dest = await fresh();
    await writeFile(`${dest}.part`, MODEL);
    await downloadFile({ url: `${server.origin}/m.gguf`, dest, sha256: SHA });
    expect(await readFile(dest)).toEqual(MODEL);
  });
});

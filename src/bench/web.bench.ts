/**
 * @module bench/web
 * web_fetch of a 5 MB HTML page from a loopback server, against an anchor doing the same work in the same run:
 * the global `fetch`, the HTML cut to the same budget web_fetch uses (a 256 KiB slice, grown fourfold while the
 * Markdown is shorter than the 50,000-character output), linkedom + turndown, the Markdown cut to 50,000
 * characters. The page marks its content with one <article>, so web_fetch converts that element and runs no
 * Readability; it also strips scripts and styles from the whole page and makes links absolute, which the
 * anchor (converting the body) does not: ours does a little more work.
 * Wall time per fetch (p50, p99; interleaved), and peak RSS above idle in a child process.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { createWebFetchTool } from "../tools/web-fetch.js";
import { fmt, interleaved, report } from "./harness.js";

const PAGE_BYTES = 5 * 1024 * 1024;
const RSS_TARGET_MB = 64;
const TIME_TARGET = 1.5;

/** A deterministic page of about `bytes`: head with style and script, nav, many article sections, footer. */
function makePage(bytes: number): string {
  const parts = [
    "<!doctype html><html><head><title>Big Manual</title><style>body{font:14px sans-serif}</style>",
    "<script>window.analytics = { id: 42 };</script></head><body>",
    '<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav><main><article>',
    "<h1>Big Manual</h1>",
  ];
  let size = parts.join("").length;
  for (let i = 0; size < bytes - 200; i++) {
    const section =
      `<section id="s${i}"><h2>Section ${i}</h2><p>Paragraph ${i} explains <a href="/docs/${i}">topic ${i}</a> ` +
      `with <b>bold</b> and <code>code()</code>. ${"Lorem ipsum dolor sit amet, consectetur adipiscing. ".repeat(6)}</p>` +
      `<ul><li>point one of ${i}</li><li>point two of ${i}</li></ul>` +
      (i % 10 === 0 ? `<pre><code>const x${i} = ${i};</code></pre><script>track(${i})</script>` : "") +
      "</section>";
    parts.push(section);
    size += section.length;
  }
  parts.push("</article></main><footer>Footer text</footer></body></html>");
  return parts.join("");
}

/** Starts a loopback server that serves `page` as HTML. */
async function serve(page: string): Promise<{ url: string; hostPort: string; close(): Promise<void> }> {
  const body = Buffer.from(page);
  const server = http.createServer((_req, res) => {
    // `connection: close`: a slow conversion must not meet a keep-alive socket the server already timed out.
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-length": body.length,
      connection: "close",
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/manual.html`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One web_fetch call, as the tool runs it. */
async function ours(url: string, hostPort: string): Promise<number> {
  const tool = createWebFetchTool({ allowHosts: [hostPort] });
  const result = await tool.build({ url }).run(new AbortController().signal);
  if (result.error) throw new Error(`web_fetch failed: ${result.error.message}`);
  return result.llmContent.length;
}

const OUTPUT_CHARS = 50_000;
const FIRST_SLICE = 256 * 1024;

/** The anchor: fetch, convert a budgeted slice of the HTML (grown while the output is short), cut. */
async function anchor(url: string): Promise<number> {
  const html = await (await fetch(url)).text();
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
  service.remove(["script", "style"]);
  let markdown = "";
  for (let budget = FIRST_SLICE; ; budget *= 4) {
    const { document } = parseHTML(`<!doctype html><html><body>${html.slice(0, budget)}</body></html>`);
    markdown = service.turndown(document.body as unknown as TurndownService.Node);
    if (markdown.length >= OUTPUT_CHARS || budget >= html.length) break;
  }
  return markdown.slice(0, OUTPUT_CHARS).length;
}

/** In a child: idle RSS after imports and GC, then the peak RSS over one fetch; prints JSON. */
async function child(which: string, url: string, hostPort: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const idle = process.memoryUsage.rss();
  const chars = which === "ours" ? await ours(url, hostPort) : await anchor(url);
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ idleMb: idle / 2 ** 20, peakMb: peak / 2 ** 20, chars }));
}

/** Runs `which` in a fresh process and returns its peak RSS above idle, in MB. */
function rssAboveIdle(which: string, url: string, hostPort: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), "--web-bench-child", which, url, hostPort],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    proc.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${which} child exited with ${code}`));
      const { idleMb, peakMb } = JSON.parse(out) as { idleMb: number; peakMb: number };
      resolve(peakMb - idleMb);
    });
  });
}

export default async function run(): Promise<void> {
  const page = makePage(PAGE_BYTES);
  const server = await serve(page);
  try {
    const oursRss = Math.max(
      await rssAboveIdle("ours", server.url, server.hostPort),
      await rssAboveIdle("ours", server.url, server.hostPort),
    );
    const anchorRss = await rssAboveIdle("anchor", server.url, server.hostPort);
    report({
      name: `web_fetch 5 MB HTML: peak RSS above idle (child process)`,
      ours: `${oursRss.toFixed(1)} MB`,
      anchor: `${anchorRss.toFixed(1)} MB (fetch + same budget + linkedom/turndown)`,
      ratio: oursRss / anchorRss,
      target: `≤ ${RSS_TARGET_MB} MB (absolute)`,
      pass: oursRss <= RSS_TARGET_MB,
    });
    const [timeOurs, timeAnchor] = await interleaved(
      () => ours(server.url, server.hostPort),
      () => anchor(server.url),
      9,
    );
    const ratio = timeOurs.p50 / timeAnchor.p50;
    report({
      name: "web_fetch 5 MB HTML, 50,000-character output: time per fetch",
      ours: `p50 ${fmt(timeOurs.p50)} p99 ${fmt(timeOurs.p99)}`,
      anchor: `fetch + same budget + linkedom/turndown: p50 ${fmt(timeAnchor.p50)} p99 ${fmt(timeAnchor.p99)}`,
      ratio,
      target: `≤ ${TIME_TARGET}×`,
      pass: ratio <= TIME_TARGET,
    });
  } finally {
    await server.close();
  }
}

if (process.argv[2] === "--web-bench-child") {
  const [, , , which = "ours", url = "", hostPort = ""] = process.argv;
  await child(which, url, hostPort);
}

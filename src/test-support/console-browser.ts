/**
 * @module test-support/console-browser
 * The console's browser tests' (and bench's) shared parts: Debian's chromium through playwright-core, a
 * console over a workspace's shared approvals folder, signing in, axe-core run in the page (over CDP, which
 * the page's CSP does not govern), and a real `toolgate call` process. Nothing here imports vitest, so the
 * console bench drives the browser through the same code.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { approvalsDir, FileApprovalStore } from "../approvals/index.js";
import { type ConsoleOptions, type RunningConsole, startConsole } from "../console/index.js";
import { userStateDir } from "../state/index.js";
import { BIN, REPO_ROOT, type RunResult, tempWorkspace } from "./cli.js";
import { TOKEN, userHome } from "./console.js";

const CHROMIUM = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"].find((p) => existsSync(p)) as string;
/** Where the test run saves the screenshots docs/console.md shows. */
export const SHOTS = join(REPO_ROOT, "test-output", "console");
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}

/** A new browser context signed in to the console at `url` as `name`, its page live. */
export async function signIn(
  browser: Browser,
  url: string,
  name: string,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.on("dialog", (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  await page.goto(url);
  await page.getByLabel("Console token").fill(TOKEN);
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("#status", { hasText: /^live$/ }).waitFor({ timeout: 30_000 });
  return page;
}

/** The ids of axe-core's serious and critical violations on the page as it is. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate("axe.run({ resultTypes: ['violations'] })")) as {
    violations: { id: string; impact: string }[];
  };
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

/** Runs `toolgate COMMAND ...` in `ws` (no terminal) with the user's config folder `home`. */
export function runToolgate(ws: string, home: string, argv: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ws,
      env: { ...process.env, XDG_CONFIG_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `toolgate call TOOL ARGS` in `ws` (no terminal) with the user's config folder `home`. */
export function callTool(ws: string, home: string, tool: string, args: unknown): Promise<RunResult> {
  return runToolgate(ws, home, ["call", tool, JSON.stringify(args), "--workspace", ws]);
}

/**
 * The shared approvals folder's store of the user whose config folder is `home` (what the workspace's
 * `[approvals] route = "console"` processes publish to).
 */
export function sharedStore(home: string): FileApprovalStore {
  return new FileApprovalStore({ dir: approvalsDir(userStateDir({ env: { XDG_CONFIG_HOME: home } })) });
}

/** A workspace made of `files`, its user (trusting it), that user's shared store, and optionally a console. */
export async function sharedWorkspace(files: Record<string, string>, trusted = true) {
  const ws = await tempWorkspace(files);
  const home = userHome(trusted ? ws : undefined);
  return { ws, home, store: sharedStore(home) };
}

/**
 * A browser test's fixture: a workspace of `files` (trusted), a console over its user's shared folder, and
 * chromium. `options.auditFile` is relative to the workspace. `signIn` opens a signed-in page; `close` ends
 * all three.
 */
export async function consoleInBrowser(
  files: Record<string, string>,
  options: Omit<ConsoleOptions, "store" | "token"> = {},
) {
  mkdirSync(SHOTS, { recursive: true });
  const { ws, home, store } = await sharedWorkspace(files);
  const running: RunningConsole = await startConsole({
    store,
    token: TOKEN,
    ...options,
    ...(options.auditFile ? { auditFile: join(ws, options.auditFile) } : {}),
  });
  const browser = await launchChromium();
  return {
    ws,
    home,
    store,
    running,
    browser,
    signIn: (name: string, context: BrowserContextOptions = {}) =>
      signIn(browser, running.url, name, context),
    async close() {
      await browser.close();
      await running.close();
      await store.close();
    },
  };
}

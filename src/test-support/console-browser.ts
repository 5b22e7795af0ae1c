/**
 * @module test-support/console-browser
 * The console's browser tests' shared parts: Debian's chromium through playwright-core, signing in, axe-core
 * run in the page (over CDP, which the page's CSP does not govern), and a real `toolgate call` process.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { BIN, REPO_ROOT, type RunResult } from "./cli.js";
import { TOKEN } from "./console.js";

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
  await expect.poll(() => page.locator("#status").textContent(), { timeout: 30_000 }).toBe("live");
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

/** Runs `toolgate call TOOL ARGS` in `ws` (no terminal) with the user's config folder `home`. */
export function callTool(ws: string, home: string, tool: string, args: unknown): Promise<RunResult> {
  const argv = [BIN, "call", tool, JSON.stringify(args), "--workspace", ws];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ws, env: { ...process.env, XDG_CONFIG_HOME: home } });
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

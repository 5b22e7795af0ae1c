/**
 * @module test-support/console
 * Test helpers for the console (not exported by the front door): a raw HTTP request whose Host and Origin
 * the test chooses (fetch would not let it), a console over a temp folder, and signing in.
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileApprovalStore } from "../approvals/index.js";
import {
  askView,
  type ConsoleOptions,
  type RunningConsole,
  type SessionGrant,
  startConsole,
} from "../console/index.js";
import type { ApprovalAsk, ApprovalStore, ConfirmationDetails } from "../core/index.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request to 127.0.0.1:`port` with exactly the headers given. */
export function raw(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    /** The loopback address to send from (any of 127.0.0.0/8). */
    localAddress?: string;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers ?? {},
        setHost: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

export const TOKEN = "test-token-0123456789abcdefghijklmnop";

/** A console on a fresh approvals folder; `close` removes both. */
export async function consoleFixture(options: Partial<ConsoleOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tg-console-"));
  const store = new FileApprovalStore({ dir });
  const running: RunningConsole = await startConsole({ store, token: TOKEN, ...options });
  const host = `127.0.0.1:${running.port}`;
  return {
    dir,
    store,
    running,
    host,
    origin: `http://${host}`,
    /**
     * Signs in as `name` as the page does; returns the session secret and CSRF token the console handed
     * back, and `auth`, the header that carries the session (spread it into a request's headers).
     */
    async signIn(name = "alice") {
      const res = await raw(running.port, {
        method: "POST",
        path: "/login",
        headers: { host, origin: `http://${host}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: TOKEN, name }).toString(),
      });
      const grant = (res.status === 200 ? JSON.parse(res.body) : {}) as Partial<SessionGrant>;
      const session = grant.session ?? "";
      return {
        session,
        csrf: grant.csrf ?? "",
        key: grant.key ?? "",
        auth: { authorization: `Bearer ${session}` },
        response: res,
      };
    },
    async close() {
      await running.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const DETAILS: ConfirmationDetails = {
  toolName: "shell",
  description: "shell: rm -rf build",
  risk: "high",
  locations: ["/ws/build"],
  type: "exec",
  command: "rm -rf build",
  reason: "deletes files",
  rule: "policy.toml#3",
  sandbox: "workspace-write: writes only inside /ws, no network",
};

export function ask(overrides: Partial<ApprovalAsk> = {}): ApprovalAsk {
  return { callId: "call-1", tool: "shell", details: DETAILS, timeoutMs: 600_000, ...overrides };
}

/** A user configuration folder of its own (XDG_CONFIG_HOME), trusting `trusted` (or nothing). */
export function userHome(trusted?: string): string {
  const home = mkdtempSync(join(tmpdir(), "tg-console-xdg-"));
  mkdirSync(join(home, "toolgate"), { recursive: true });
  const list = trusted
    ? [{ path: realpathSync(trusted), since: new Date(0).toISOString(), content: "any" }]
    : [];
  writeFileSync(join(home, "toolgate", "trusted.json"), JSON.stringify({ version: 2, trusted: list }));
  return home;
}

/** The group key the page sends with a batch of the group holding ask `id` (console/batch-group.ts). */
export async function groupOf(store: ApprovalStore, id: string) {
  const view = askView((await store.get(id))!);
  return { process: view.process, project: view.project, worker: view.worker, agent: view.agent };
}

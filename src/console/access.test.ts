/**
 * The console's access checks over real HTTP on 127.0.0.1: the table in testdata/access-cases.json (no
 * token, a wrong session, a foreign or missing Origin, a forged CSRF token, a Host the console does not
 * serve), sign-in, the cookie's flags, the headers every response carries, and the refusal of a remote
 * console without TLS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileApprovalStore } from "../approvals/index.js";
import { toolgate } from "../test-support/cli.js";
import { ask, consoleFixture, raw, TOKEN } from "../test-support/console.js";
import { consoleOptionsProblem, startConsole } from "./index.js";
import cases from "./testdata/access-cases.json" with { type: "json" };

interface AccessCase {
  note: string;
  method: string;
  path: string;
  host: string;
  origin: string | null;
  session: "none" | "valid" | "wrong";
  csrf: "none" | "valid" | "forged";
  want: number;
}

describe("console access over HTTP", () => {
  let fixture: Awaited<ReturnType<typeof consoleFixture>>;
  let signedIn: Awaited<ReturnType<typeof fixture.signIn>>;
  beforeAll(async () => {
    fixture = await consoleFixture();
    signedIn = await fixture.signIn("alice");
  });
  afterAll(async () => fixture.close());

  it.each(cases.cases as AccessCase[])("$note → $want", async (c) => {
    const port = String(fixture.running.port);
    const record = await fixture.store.publish(ask({ callId: c.note }));
    const headers: Record<string, string> = {};
    const host = c.host === "ours" ? fixture.host : c.host.replace("PORT", port);
    if (host !== "") headers.host = host;
    if (c.origin !== null)
      headers.origin = c.origin === "ours" ? fixture.origin : c.origin.replace("PORT", port);
    if (c.session === "valid") headers.cookie = signedIn.cookie;
    if (c.session === "wrong") headers.cookie = `${signedIn.cookie.split("=")[0]}=${"A".repeat(43)}`;
    if (c.csrf === "valid") headers["x-csrf-token"] = signedIn.csrf;
    if (c.csrf === "forged") headers["x-csrf-token"] = `${signedIn.csrf.slice(0, -2)}xx`;
    let body: string | undefined;
    if (c.method === "POST" && c.path === "/login") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams({ token: TOKEN }).toString();
    } else if (c.method === "POST") {
      headers["content-type"] = "application/json";
      body = JSON.stringify({ decision: "approve" });
    }
    const res = await raw(fixture.running.port, {
      method: c.method,
      path: c.path.replace("ASK", record.id),
      headers,
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status).toBe(c.want);
    if (c.want > 400) expect(res.body).toMatch(/refused|not signed in/);
    if (res.headers["set-cookie"] !== undefined) expect(c.path).toBe("/login");
    // Nothing refused changed the ask.
    const state = (await fixture.store.get(record.id))?.state;
    expect(state).toBe(c.want === 200 && c.method === "POST" ? "approved" : "pending");
  });

  it("signs in with the token only, into an HttpOnly SameSite=Strict cookie", async () => {
    const wrong = await raw(fixture.running.port, {
      method: "POST",
      path: "/login",
      headers: {
        host: fixture.host,
        origin: fixture.origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token: `${TOKEN}x` }).toString(),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    expect(wrong.body).toContain("That is not the console&#39;s token.");
    expect(signedIn.loginStatus).toBe(303);
    expect(signedIn.setCookie).toMatch(
      /^toolgate_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    expect(signedIn.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("sends a strict CSP with no inline script, and forbids framing, on every response", async () => {
    for (const path of ["/login", "/", "/app.js", "/api/approvals", "/nope"]) {
      const res = await raw(fixture.running.port, {
        path,
        headers: { host: fixture.host, cookie: signedIn.cookie },
      });
      const csp = String(res.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
    const page = await raw(fixture.running.port, {
      path: "/",
      headers: { host: fixture.host, cookie: signedIn.cookie },
    });
    // The page's only script is the static file; no inline script or style, no event-handler attributes.
    expect(page.body.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/app.js">']);
    expect(page.body).not.toMatch(/<style|\son[a-z]+=|style=/i);
  });
});

describe("console start-up", () => {
  it("refuses --allow-remote without TLS files or the acknowledgement, and a remote address without --allow-remote", async () => {
    const store = new FileApprovalStore({ dir: `${process.env.XDG_CONFIG_HOME}/console-startup` });
    const base = { store, token: TOKEN };
    expect(consoleOptionsProblem({ ...base, host: "0.0.0.0" })).toBe(
      "the console listens on loopback only: 0.0.0.0 needs --allow-remote",
    );
    const noTls =
      "--allow-remote needs --tls-cert and --tls-key (or --insecure-http, accepting that the token and the session cookie cross the network unencrypted)";
    expect(consoleOptionsProblem({ ...base, host: "0.0.0.0", allowRemote: true })).toBe(noTls);
    await expect(startConsole({ ...base, host: "0.0.0.0", allowRemote: true })).rejects.toThrow(noTls);
    expect(
      consoleOptionsProblem({ ...base, host: "0.0.0.0", allowRemote: true, insecureHttp: true }),
    ).toBeUndefined();
    expect(consoleOptionsProblem({ ...base })).toBeUndefined();
    await expect(startConsole({ ...base, token: "short" })).rejects.toThrow("at least 16 characters");
  });

  it("says so and exits 2 when `toolgate console --allow-remote` has no TLS", async () => {
    const r = await toolgate(["console", "--listen", "0.0.0.0:0", "--allow-remote"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("toolgate: --allow-remote needs --tls-cert and --tls-key");
    const local = await toolgate(["console", "--listen", "192.168.1.20:0"]);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("192.168.1.20 needs --allow-remote");
  });
});

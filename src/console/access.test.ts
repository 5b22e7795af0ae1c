/**
 * The console's access checks over real HTTP on 127.0.0.1: the table in testdata/access-cases.json (no
 * token, a wrong session, the real session in cookies only — what another loopback port's server gets — a
 * foreign or missing Origin, a forged CSRF token, a Host the console does not serve), sign-in into a secret
 * and never a cookie, sign-out, the headers every response carries, and the refusal of a remote console
 * without TLS.
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
  session: "none" | "valid" | "wrong" | "cookie" | "query" | "basic" | "lowercase";
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
    const secret = signedIn.session;
    if (c.session === "valid") Object.assign(headers, signedIn.auth);
    if (c.session === "wrong") headers.authorization = `Bearer ${"A".repeat(43)}`;
    // Every name the session was or could be kept under: a cookie is never looked at.
    if (c.session === "cookie")
      headers.cookie = `toolgate_console=${secret}; __Host-toolgate_console=${secret}; session=${secret}`;
    if (c.session === "basic") headers.authorization = `Basic ${btoa(`alice:${secret}`)}`;
    if (c.session === "lowercase") headers.authorization = `bearer ${secret}`;
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
      path: c.path.replace("ASK", record.id).replaceAll("SECRET", secret),
      headers,
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status).toBe(c.want);
    if (c.want > 400) expect(res.body).toMatch(/refused|not signed in/);
    expect(res.headers["set-cookie"]).toBeUndefined();
    // Nothing refused changed the ask.
    const state = (await fixture.store.get(record.id))?.state;
    expect(state).toBe(c.want === 200 && c.method === "POST" ? "approved" : "pending");
  });

  it("signs in with the token only, into a secret returned as JSON, never a cookie", async () => {
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
    expect(JSON.parse(wrong.body)).toEqual({ error: "That is not the console's token." });
    const { response } = signedIn;
    expect(response.status).toBe(200);
    expect(response.headers["set-cookie"]).toBeUndefined();
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(signedIn.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(response.body)).toMatchObject({ name: "alice", expiresAt: expect.any(Number) });
    // Neither page holds anything of a session: the shell is the same for anyone.
    for (const path of ["/", "/login"]) {
      const page = await raw(fixture.running.port, { path, headers: { host: fixture.host } });
      expect(page.body).not.toContain(signedIn.session);
      expect(page.body).not.toContain(signedIn.csrf);
    }
  });

  it("ends a session at sign-out; its secret is refused after", async () => {
    const bob = await fixture.signIn("bob");
    const who = () =>
      raw(fixture.running.port, { path: "/api/session", headers: { host: fixture.host, ...bob.auth } });
    expect(JSON.parse((await who()).body)).toMatchObject({ name: "bob" });
    const out = await raw(fixture.running.port, {
      method: "POST",
      path: "/api/sign-out",
      headers: { host: fixture.host, origin: fixture.origin, "x-csrf-token": bob.csrf, ...bob.auth },
    });
    expect(out.status).toBe(200);
    expect((await who()).status).toBe(401);
  });

  it("sends a strict CSP with no inline script, and forbids framing, on every response", async () => {
    for (const path of ["/login", "/", "/app.js", "/api/approvals", "/nope"]) {
      const res = await raw(fixture.running.port, {
        path,
        headers: { host: fixture.host, ...signedIn.auth },
      });
      const csp = String(res.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
    // Each page's only script is its static file; no inline script or style, no event-handler attributes.
    for (const [path, script] of [
      ["/", "/app.js"],
      ["/login", "/login.js"],
    ]) {
      const page = await raw(fixture.running.port, { path: path as string, headers: { host: fixture.host } });
      expect(page.body.match(/<script[^>]*>/g)).toEqual([`<script type="module" src="${script}">`]);
      expect(page.body).not.toMatch(/<style|\son[a-z]+=|style=/i);
    }
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
      "--allow-remote needs --tls-cert and --tls-key (or --insecure-http, accepting that the token and the session cross the network unencrypted)";
    expect(consoleOptionsProblem({ ...base, host: "0.0.0.0", allowRemote: true })).toBe(noTls);
    await expect(startConsole({ ...base, host: "0.0.0.0", allowRemote: true })).rejects.toThrow(noTls);
    expect(
      consoleOptionsProblem({ ...base, host: "0.0.0.0", allowRemote: true, insecureHttp: true }),
    ).toBeUndefined();
    expect(consoleOptionsProblem({ ...base })).toBeUndefined();
    await expect(startConsole({ ...base, token: "short" })).rejects.toThrow("at least 32 characters");
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

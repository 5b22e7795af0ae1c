/**
 * The console's seal on its answers (console/seal.ts), over real HTTP: every answer to a signed-in request
 * carries HMAC-SHA256 under the key the sign-in handed out, over the request's nonce, the status and the
 * body — refusals included — and each live-stream event over its number; an answer to a request that is not
 * signed in has no seal (there is no key to make one with), and the key never travels in any answer but the
 * sign-in's.
 */
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, consoleFixture, raw } from "../test-support/console.js";
import { NONCE_HEADER, SEAL_HEADER } from "./seal.js";

let fixture: Awaited<ReturnType<typeof consoleFixture>>;
let signedIn: Awaited<ReturnType<typeof fixture.signIn>>;

const hmac = (key: string, parts: (string | number)[]) =>
  createHmac("sha256", Buffer.from(key, "base64url")).update(parts.join("\n")).digest("base64url");

const NONCE = "nonce-0123456789abcdef";

describe("the console's sealed answers", () => {
  beforeAll(async () => {
    fixture = await consoleFixture();
    signedIn = await fixture.signIn("alice");
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("seals an answer over the nonce, the status and the body with the session's key", async () => {
    expect(signedIn.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await raw(fixture.running.port, {
      path: "/api/approvals",
      headers: { host: fixture.host, ...signedIn.auth, [NONCE_HEADER]: NONCE },
    });
    expect(res.status).toBe(200);
    expect(res.headers[SEAL_HEADER]).toBe(hmac(signedIn.key, [NONCE, 200, res.body]));
    const other = await raw(fixture.running.port, {
      path: "/api/approvals",
      headers: { host: fixture.host, ...signedIn.auth, [NONCE_HEADER]: `${NONCE}-other` },
    });
    expect(other.headers[SEAL_HEADER]).toBe(hmac(signedIn.key, [`${NONCE}-other`, 200, other.body]));
    expect(other.headers[SEAL_HEADER]).not.toBe(res.headers[SEAL_HEADER]);
    expect(JSON.stringify([res.headers, res.body])).not.toContain(signedIn.key);
  });

  it("seals its refusals to a signed-in page too (a wrong CSRF token, a bad decision)", async () => {
    const headers = {
      host: fixture.host,
      origin: fixture.origin,
      "content-type": "application/json",
      ...signedIn.auth,
      [NONCE_HEADER]: NONCE,
    };
    for (const [csrf, status] of [
      ["wrong", 403],
      [signedIn.csrf, 400],
    ] as const) {
      const res = await raw(fixture.running.port, {
        method: "POST",
        path: "/api/approvals/batch",
        headers: { ...headers, "x-csrf-token": csrf },
        body: "{}",
      });
      expect(res.status).toBe(status);
      expect(res.headers[SEAL_HEADER]).toBe(hmac(signedIn.key, [NONCE, status, res.body]));
    }
  });

  it("leaves an answer to a request that is not signed in unsealed", async () => {
    const res = await raw(fixture.running.port, {
      path: "/api/approvals",
      headers: { host: fixture.host, authorization: `Bearer ${"x".repeat(43)}`, [NONCE_HEADER]: NONCE },
    });
    expect(res.status).toBe(401);
    expect(res.headers[SEAL_HEADER]).toBeUndefined();
  });

  it("seals each live-stream event over the nonce, its number, its name and its data", async () => {
    const frames = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: fixture.running.port,
          path: "/api/events",
          headers: { host: fixture.host, ...signedIn.auth, [NONCE_HEADER]: NONCE },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          let asked = false;
          res.on("data", (d: string) => {
            text += d;
            // The ready event, then (once an ask is published) the ask's.
            if (!asked && text.includes("\n\n")) {
              asked = true;
              fixture.store.publish(ask({ callId: "sealed-event" })).catch(reject);
            }
            if (text.split("\n\n").length > 2) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
    const events = frames
      .split("\n\n")
      .filter((f) => f !== "")
      .slice(0, 2)
      .map((frame) =>
        Object.fromEntries(
          frame.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
        ),
      );
    expect(events[0]).toEqual({
      event: "ready",
      data: "{}",
      seal: `0.${hmac(signedIn.key, [NONCE, 0, "ready", "{}"])}`,
    });
    expect(events[1]?.event).toBe("ask");
    expect(events[1]?.seal).toBe(`1.${hmac(signedIn.key, [NONCE, 1, "ask", events[1]?.data as string])}`);
  });
});

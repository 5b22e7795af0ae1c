/**
 * Webhook notifications against real HTTP receivers on 127.0.0.1: one that checks the signature, one that
 * fails twice and then takes it, one that never answers (the ask is published, answered and waited for
 * while it hangs), and the receiver's checks of testdata/webhook-signature-cases.json.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { withoutSecurityKeys } from "../config/index.js";
import { InProcessApprovalStore } from "../core/index.js";
import { ask } from "../test-support/console.js";
import cases from "./testdata/webhook-signature-cases.json" with { type: "json" };
import {
  resolveWebhook,
  signWebhook,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookNotifier,
  withWebhook,
} from "./webhook.js";

const SECRET = "webhook-secret-0123456789abcdefghij";

interface Received {
  body: string;
  signature: string | undefined;
  valid: boolean;
}

/** A receiver on loopback; `answer` decides each response (or never, to hang). */
async function receiver(answer: (n: number, res: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      body += d;
    });
    req.on("end", () => {
      const signature = req.headers[WEBHOOK_SIGNATURE_HEADER] as string | undefined;
      received.push({ body, signature, valid: verifyWebhook(SECRET, signature, body) });
      answer(received.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("the approvals webhook", () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it("posts each new ask as JSON, signed over the timestamp and the body", async () => {
    const hook = await receiver((_, res) => res.end("ok"));
    closers.push(hook.close);
    const notifier = new WebhookNotifier({ url: hook.url, secret: SECRET });
    const store = withWebhook(new InProcessApprovalStore(), notifier);
    const record = await store.publish(ask({ callId: "c1" }));
    await notifier.idle();
    expect(hook.received).toHaveLength(1);
    const [got] = hook.received as [Received];
    expect(got.valid).toBe(true);
    expect(got.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(got.body)).toMatchObject({
      type: "approval.pending",
      id: record.id,
      callId: "c1",
      tool: "shell",
      details: { command: "rm -rf build" },
    });
  });

  /** Publishes one ask to a receiver answering `status(n)` to its n-th request; waits for the delivery's end. */
  async function deliverOne(status: (n: number) => number, retries?: number) {
    const hook = await receiver((n, res) => {
      res.statusCode = status(n);
      res.end();
    });
    closers.push(hook.close);
    const gaveUp: string[] = [];
    const notifier = new WebhookNotifier({
      url: hook.url,
      secret: SECRET,
      firstDelayMs: 10,
      ...(retries === undefined ? {} : { retries }),
      onGiveUp: (_, e) => gaveUp.push(e.message),
    });
    await withWebhook(new InProcessApprovalStore(), notifier).publish(ask());
    await notifier.idle();
    return { hook, gaveUp };
  }

  it("retries with backoff when the receiver fails, until it takes the ask", async () => {
    const { hook, gaveUp } = await deliverOne((n) => (n <= 2 ? 503 : 200));
    expect(hook.received.map((r) => r.valid)).toEqual([true, true, true]);
    expect(gaveUp).toEqual([]);
  });

  it("gives up after the last retry, saying why", async () => {
    const { hook, gaveUp } = await deliverOne(() => 500, 2);
    expect(hook.received).toHaveLength(3);
    expect(gaveUp).toEqual(["the webhook answered 500"]);
  });

  it("never holds up the call: a receiver that hangs does not delay publishing, answering or waiting", async () => {
    const hanging: ServerResponse[] = [];
    const hook = await receiver((_, res) => hanging.push(res));
    closers.push(hook.close);
    const notifier = new WebhookNotifier({ url: hook.url, secret: SECRET });
    const store = withWebhook(new InProcessApprovalStore(), notifier);
    const record = await store.publish(ask());
    const waiting = store.wait(record.id);
    await store.answer(record.id, { approved: true, by: "alice" });
    expect((await waiting).state).toBe("approved");
    // The receiver has the request and has still not answered: the call went on without it.
    await expect.poll(() => hook.received.length, { timeout: 30_000 }).toBe(1);
    expect(hanging).toHaveLength(1);
  });

  it.each(cases.cases)("a receiver's check: $note → $want", ({ change, ageS, want }) => {
    const body = JSON.stringify({ type: "approval.pending", id: "x" });
    const sentAt = 1_800_000_000;
    let header: string | undefined = signWebhook(SECRET, sentAt, body);
    let checkedBody = body;
    let secret = SECRET;
    if (change === "body") checkedBody = body.replace('"x"', '"y"');
    if (change === "secret") secret = `${SECRET}!`;
    if (change === "timestamp") header = header.replace(`t=${sentAt}`, `t=${sentAt + 1}`);
    if (change === "missing") header = undefined;
    if (change === "uppercase")
      header = header?.replace(/v1=(\w+)/, (_, mac: string) => `v1=${mac.toUpperCase()}`);
    expect(verifyWebhook(secret, header, checkedBody, (sentAt + ageS) * 1000)).toBe(want);
  });

  it("is a security key: an untrusted workspace's config cannot set the webhook or its secret", () => {
    const config = { approvals: { webhook: "http://127.0.0.1:1/x", webhook_secret: `\${env:X}` } };
    const { config: kept, ignored } = withoutSecurityKeys(config);
    expect(kept).toEqual({});
    expect(ignored).toEqual(["approvals.webhook", "approvals.webhook_secret"]);
  });

  it("reads its secret from a variable only, and refuses a bad URL or a short secret", () => {
    const env = { HOOK: "s".repeat(40), TOOLGATE_WEBHOOK_SECRET: "t".repeat(32) };
    expect(resolveWebhook({}, env)).toBeUndefined();
    expect(resolveWebhook({ webhook: "https://h.example/x", webhookSecret: `\${env:HOOK}` }, env)).toEqual({
      url: "https://h.example/x",
      secret: env.HOOK,
    });
    expect(resolveWebhook({ webhook: "http://127.0.0.1:9/x" }, env)?.secret).toBe(
      env.TOOLGATE_WEBHOOK_SECRET,
    );
    expect(() => resolveWebhook({ webhook: "file:///etc/passwd" }, env)).toThrow("http:// or https://");
    expect(() => resolveWebhook({ webhook: "https://h.example/x", webhookSecret: "literal" }, env)).toThrow(
      "must name a variable",
    );
    expect(() =>
      resolveWebhook({ webhook: "https://h.example/x", webhookSecret: `\${env:NOPE}` }, env),
    ).toThrow("at least 32 characters in NOPE (it has 0)");
  });
});

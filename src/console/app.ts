/**
 * @module console/app
 * The console's routes on hono: sign-in with the token, the page and its static script, the pending asks
 * (a list, then server-sent events as asks are published and settled), answering one, and the audit log.
 * Every route passes the access checks of console/access.ts first.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { type ApprovalStore, displaySafe } from "../core/index.js";
import { type ConsoleAccess, securityHeaders } from "./access.js";
import { auditFilterFrom } from "./audit-query.js";
import { readAuditPage } from "./audit-read.js";
import { batchGroupRefusal, parseGroupKey } from "./batch-group.js";
import { ConsoleDecisions, parseDecision } from "./decisions.js";
import { appPage, STYLE } from "./pages.js";
import { NONCE_HEADER, nonceOf, sealAnswers, sealedEvent } from "./seal.js";
import type { ConsoleSession } from "./session.js";
import { mountSignIn } from "./signin.js";
import { askView } from "./views.js";

/** Options of {@link createConsoleApp}. */
export interface ConsoleAppOptions {
  store: ApprovalStore;
  access: ConsoleAccess;
  /** The page's script (the built `dist/console/page/app.js`). */
  script: string;
  /** The login page's script (the built `dist/console/page/login.js`). */
  loginScript: string;
  /** The audit log shown by the audit view; none: the view says there is none. */
  auditFile?: string;
}

const MAX_REASON = 2_000;

/**
 * The largest request bodies read, in bytes: a sign-in is a token and a name; an API change at most a batch
 * of 1,000 ids with a reason (~40 KB). Counted from Content-Length before reading, and while streaming a
 * chunked body, so an over-large one is never held in memory.
 */
export const BODY_LIMITS = { signIn: 4 * 1024, api: 64 * 1024 } as const;

const limitBody = (maxSize: number, what: string) =>
  bodyLimit({
    maxSize,
    onError: (c) =>
      c.text(`refused: the request body is larger than ${maxSize} bytes, the most ${what} takes`, 413),
  });

async function jsonBody(req: { json(): Promise<unknown> }): Promise<Record<string, unknown> | undefined> {
  try {
    const body = await req.json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal's reason the model sees: trimmed, at most 2,000 characters. */
const reasonOf = (body: { reason?: unknown }) =>
  typeof body.reason === "string" ? body.reason.trim().slice(0, MAX_REASON) : "";

/**
 * The console as a hono app (serve it with @hono/node-server).
 * @example serve({ fetch: createConsoleApp({ store, access, script }).fetch, hostname: "127.0.0.1", port })
 */
export function createConsoleApp(options: ConsoleAppOptions): Hono {
  const { store, access } = options;
  const app = new Hono();
  app.use("*", securityHeaders, access.guard);
  app.use("/login", limitBody(BODY_LIMITS.signIn, "a sign-in"));
  app.use("*", limitBody(BODY_LIMITS.api, "a console request"));

  app.get("/style.css", (c) => c.body(STYLE, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/app.js", (c) =>
    c.body(options.script, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );

  // Every answer to a signed-in request is sealed with the session's key (console/seal.ts).
  app.use("/api/*", sealAnswers);
  mountSignIn(app, access, options.loginScript);
  // The page is a shell without data: its script sends the session (from sessionStorage) with each request.
  app.get("/", (c) => c.html(appPage()));

  const api = new Hono<{ Variables: { session: ConsoleSession } }>();
  api.use("*", access.signedIn);

  api.get("/approvals", async (c) => {
    const pending = await store.list({ state: "pending" });
    return c.json({ pending: pending.map(askView) });
  });

  const decisions = new ConsoleDecisions(store);
  // One batch: the asks of one agent turn, approved or denied together (console/decisions.ts).
  api.post("/approvals/batch", async (c) => {
    const body = await jsonBody(c.req);
    if (!body) return c.json({ ok: false, message: "the body must be JSON" }, 400);
    const { ids } = body;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string"))
      return c.json({ ok: false, message: "ids must be a list of approval ids" }, 400);
    if (body.decision !== "approve" && body.decision !== "deny")
      return c.json({ ok: false, message: 'a batch\'s decision must be "approve" or "deny"' }, 400);
    // Only the group the page showed, whole: an ask of another process, project or agent, or one that joined
    // after the person looked, refuses the batch (console/batch-group.ts).
    const group = parseGroupKey(body.group);
    if (!group)
      return c.json({ ok: false, message: "a batch names its group (process, project, worker, agent)" }, 400);
    const refused = await batchGroupRefusal(store, group, ids);
    if (refused) return c.json({ ok: false, message: refused }, 409);
    const reply = await decisions.batch(ids, body.decision, c.get("session").name, reasonOf(body));
    return c.json(reply.body, reply.status);
  });

  api.post("/approvals/:id", async (c) => {
    const body = await jsonBody(c.req);
    if (!body) return c.json({ ok: false, message: "the body must be JSON" }, 400);
    const decision = parseDecision(body.decision);
    if (!decision)
      return c.json({ ok: false, message: 'decision must be "approve", "always" or "deny"' }, 400);
    const reply = await decisions.one(c.req.param("id"), decision, c.get("session").name, reasonOf(body));
    return c.json(reply.body, reply.status);
  });

  api.get("/events", (c) =>
    streamSSE(c, async (stream) => {
      // Each event sealed with the session's key over the stream's nonce and its number (console/seal.ts).
      const { key } = c.get("session");
      const nonce = nonceOf(c.req.header(NONCE_HEADER));
      let seq = 0;
      const send = (event: string, data: string) => stream.write(sealedEvent(key, nonce, seq++, event, data));
      const queue: string[] = [];
      let wake: (() => void) | undefined;
      const stop = store.watch((record) => {
        queue.push(JSON.stringify(askView(record)));
        wake?.();
      });
      stream.onAbort(() => {
        stop();
        wake?.();
      });
      // A ready event first: the page then fetches the list, so nothing published in between is missed.
      await send("ready", "{}");
      while (!stream.aborted) {
        const data = queue.shift();
        if (data !== undefined) {
          await send("ask", data);
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          const ping = setTimeout(resolve, 15_000);
          ping.unref();
        });
        wake = undefined;
        if (queue.length === 0 && !stream.aborted) await send("ping", "{}");
      }
      stop();
    }),
  );

  api.get("/audit", async (c) => {
    const { auditFile } = options;
    if (!auditFile) return c.json({ file: null, records: [], next: null });
    const filter = auditFilterFrom(c.req.query());
    if ("problem" in filter) return c.json({ ok: false, message: filter.problem }, 400);
    // One page, newest first; `next` is the cursor of the page after it (console/audit-read.ts).
    const page = await readAuditPage(auditFile, filter);
    return c.json({ file: displaySafe(auditFile, false), ...page });
  });

  app.route("/api", api);
  app.notFound((c) => c.text("not found", 404));
  return app;
}

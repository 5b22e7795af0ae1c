/**
 * @module approvals/webhook
 * `[approvals] webhook`: each new ask is POSTed as JSON to a URL (a Slack or Teams bridge can sit behind it),
 * signed so the receiver knows it came from here and is fresh: `X-Toolgate-Signature: t=<unix seconds>,
 * v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. A receiver recomputes the HMAC over the timestamp and the raw
 * body, compares in constant time, and refuses a timestamp more than 5 minutes from its clock (the replay
 * window; {@link verifyWebhook} does all three). Delivery never holds up the call: publishing returns at once,
 * and the POST runs beside it — each try cut off after 10 s, retried 5 times with backoff (1 s, 2 s, 4 s …),
 * each try signed anew. Timers do not keep a finished process alive.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type {
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalStore,
  SettleResult,
} from "../core/index.js";
import { httpRequest } from "../net/index.js";

/** The header the signature travels in. */
export const WEBHOOK_SIGNATURE_HEADER = "x-toolgate-signature";
/** How far a signed timestamp may be from the receiver's clock (seconds). */
export const WEBHOOK_REPLAY_WINDOW_S = 300;

/** Options of {@link WebhookNotifier}. */
export interface WebhookOptions {
  url: string;
  /** The shared secret the HMAC is keyed with. */
  secret: string;
  /** Tries after the first (default 5). */
  retries?: number;
  /** The first wait before a retry, doubled each time (default 1 s). */
  firstDelayMs?: number;
  /** Longest a try may take (default 10 s). */
  timeoutMs?: number;
  /** Told when a notification is given up (after the last try). */
  onGiveUp?: (record: ApprovalRecord, error: Error) => void;
  now?: () => number;
}

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${mac}`;
}

/**
 * Whether `header` signs `body` with `secret` within the replay window of `nowMs` — what a receiver checks.
 * @example verifyWebhook(secret, req.headers["x-toolgate-signature"], rawBody) // true
 */
export function verifyWebhook(
  secret: string,
  header: string | undefined,
  body: string,
  nowMs: number = Date.now(),
): boolean {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(nowMs / 1000 - timestamp) > WEBHOOK_REPLAY_WINDOW_S) return false;
  const want = Buffer.from(signWebhook(secret, timestamp, body));
  const got = Buffer.from(header as string);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** What the receiver gets for a new ask. */
export function webhookBody(record: ApprovalRecord): string {
  const { id, callId, tool, agent, createdAt, expiresAt, details } = record;
  return JSON.stringify({ type: "approval.pending", id, callId, tool, agent, createdAt, expiresAt, details });
}

/** Posts new asks to one URL, beside the calls. */
export class WebhookNotifier {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly options: WebhookOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts delivering `record`; returns at once. */
  notify(record: ApprovalRecord): void {
    const delivery = this.deliver(record).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  /** Resolves once every delivery started so far has succeeded or been given up. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async deliver(record: ApprovalRecord): Promise<void> {
    const { url, secret, retries = 5, firstDelayMs = 1_000, timeoutMs = 10_000 } = this.options;
    const body = webhookBody(record);
    let error = new Error("not sent");
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(firstDelayMs * 2 ** (attempt - 1));
      try {
        // A configured endpoint (loopback bridges allowed); no redirect is followed.
        const response = await httpRequest(url, {
          mode: "configured",
          method: "POST",
          headers: {
            "content-type": "application/json",
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, Math.floor(this.now() / 1000), body),
          },
          body,
          maxRedirects: 0,
          timeoutMs,
        });
        response.close();
        if (response.status >= 200 && response.status < 300) return;
        error = new Error(`the webhook answered ${response.status}`);
      } catch (cause) {
        error = cause as Error;
      }
    }
    this.options.onGiveUp?.(record, error);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * `store` whose every new ask is also sent to the webhook (after it is stored; never waited for).
 * @example const approvals = withWebhook(approvalStoreFor("console"), new WebhookNotifier({ url, secret }))
 */
export function withWebhook(store: ApprovalStore, notifier: WebhookNotifier): ApprovalStore {
  return {
    shared: store.shared,
    async publish(ask: ApprovalAsk) {
      const record = await store.publish(ask);
      notifier.notify(record);
      return record;
    },
    get: (id: string) => store.get(id),
    answer: (id: string, answer: ApprovalAnswer): Promise<SettleResult> => store.answer(id, answer),
    withdraw: (id: string) => store.withdraw(id),
    wait: (id: string, options?: { signal?: AbortSignal }) => store.wait(id, options),
    list: (filter?: ApprovalFilter) => store.list(filter),
    expire: () => store.expire(),
    watch: (listener: (record: ApprovalRecord) => void) => store.watch(listener),
    close: async () => store.close?.(),
  };
}

/** The variable the webhook's secret is read from when `webhook_secret` is unset. */
export const WEBHOOK_SECRET_ENV = "TOOLGATE_WEBHOOK_SECRET";

/**
 * `[approvals] webhook` and `webhook_secret` as options, or undefined when no webhook is set; a clear error
 * for a URL that is not http(s) or a secret that is missing, written in the file, or short.
 * @example resolveWebhook({ webhook: "https://hooks.example/tg", webhookSecret: "${env:TG_HOOK}" }, process.env)
 */
export function resolveWebhook(
  config: { webhook?: string | undefined; webhookSecret?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): { url: string; secret: string } | undefined {
  if (!config.webhook) return undefined;
  let url: URL;
  try {
    url = new URL(config.webhook);
  } catch {
    throw new Error(`[approvals] webhook is not a URL: ${config.webhook}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new Error("[approvals] webhook must be an http:// or https:// URL");
  const ref = config.webhookSecret;
  const name = ref === undefined ? WEBHOOK_SECRET_ENV : /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(ref)?.[1];
  if (name === undefined)
    throw new Error(
      `[approvals] webhook_secret must name a variable, as "\${env:VAR}": a secret is not written in a config file`,
    );
  const secret = env[name] ?? "";
  if (secret.length < 32)
    throw new Error(
      `[approvals] webhook needs a signing secret of at least 32 characters in ${name} (it has ${secret.length}); e.g. openssl rand -hex 32`,
    );
  return { url: url.href, secret };
}

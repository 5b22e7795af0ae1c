/**
 * @module fleet/overlay
 * The project's shared policy overlay: the rules "always" approvals added (`toolgate approvals approve ID
 * --always`), each naming one tool and exactly one set of arguments (their sha256 digest, never the
 * arguments), kept in Redis with a version every change raises. Every worker reads the version at each call
 * its own policy would ask about and reloads the rules when it changed, so a rule applies from the next call.
 * An overlay rule only ever turns an `ask` into an `allow`: a deny stays a deny, an allow stays an allow, and
 * a call asking to leave the sandbox further than its rule grants still asks.
 */
import {
  argsDigest,
  type Decider,
  type DecisionRequest,
  type PolicyDecision,
  sandboxFor,
} from "../core/index.js";
import { type FleetClient, runScript } from "./connect.js";
import type { FleetKeys } from "./keys.js";

/** One overlay rule: the approval that made it, the call it names, who and when. */
export interface OverlayRule {
  /** The id of the approval that added it. */
  id: string;
  tool: string;
  argsDigest: string;
  /** The ask's description, display-safe. */
  description?: string;
  by: string;
  at: number;
  /** The overlay version this rule was added at. */
  version: number;
}

/** Removes one rule and raises the version when it existed. KEYS: rules hash, version. ARGV: rule id. */
const REMOVE_SCRIPT = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1
`;

/** The rule id a decision names for an overlay rule. */
export const overlayRuleRef = (id: string) => `fleet-overlay#${id}`;

/**
 * The overlay of one project.
 * @example const decider = new PolicyOverlay(client, fleetKeys("shop")).decider(engine);
 */
export class PolicyOverlay {
  private version: string | null | undefined;
  private byCall = new Map<string, OverlayRule>();

  constructor(
    private readonly client: FleetClient,
    private readonly keys: FleetKeys,
  ) {}

  /** Every rule, oldest first, and the overlay's version. */
  async list(): Promise<{ version: number; rules: OverlayRule[] }> {
    const [version, rules] = await Promise.all([
      this.client.get(this.keys.overlayVersion),
      this.client.hGetAll(this.keys.overlayRules),
    ]);
    const list = Object.values(rules).map((text) => JSON.parse(text) as OverlayRule);
    return { version: Number(version ?? 0), rules: list.sort((a, b) => a.version - b.version) };
  }

  /** Removes rule `id`; false when there is none. */
  async remove(id: string): Promise<boolean> {
    const removed = await runScript(
      this.client,
      REMOVE_SCRIPT,
      [this.keys.overlayRules, this.keys.overlayVersion],
      [id],
    );
    return removed === 1;
  }

  /** The rule naming exactly this call, reloading the rules when the version moved. */
  async match(tool: string, digest: string): Promise<OverlayRule | undefined> {
    const version = await this.client.get(this.keys.overlayVersion);
    if (version !== this.version) {
      const { rules } = await this.list();
      this.byCall = new Map(rules.map((r) => [`${r.tool}\n${r.argsDigest}`, r]));
      this.version = version;
    }
    return this.byCall.get(`${tool}\n${digest}`);
  }

  /**
   * `inner` with the overlay applied to its `ask`s. The overlay unreadable (the server away), the ask
   * stands: it then fails closed at the approval store.
   */
  decider(inner: Decider): Decider {
    return {
      decide: async (request: DecisionRequest): Promise<PolicyDecision> => {
        const decision = await inner.decide(request);
        if (decision.decision !== "ask") return decision;
        // Leaving the sandbox further than the rule grants is a question of its own: still asked.
        if (sandboxFor(decision, request.invocation) !== decision.sandbox) return decision;
        const rule = await this.match(request.tool.name, argsDigest(request.args)).catch(() => undefined);
        if (!rule) return decision;
        return {
          ...decision,
          decision: "allow",
          rule: { id: overlayRuleRef(rule.id), source: "fleet-overlay", index: rule.version },
          reason: `approved "always" by ${rule.by} (fleet overlay rule ${rule.id}, version ${rule.version})`,
        };
      },
    };
  }
}

/**
 * The HTTP server's session table on a clock the test moves: idle sessions expire and active ones never do,
 * the caps per client token and overall hold (places being initialised count), admission reclaims expired
 * sessions first, and a refusal says when to retry.
 */
import { describe, expect, it } from "vitest";
import { type Refusal, type Reservation, SessionTable } from "./http-sessions.js";

function table(limits: { idleMs?: number; maxSessions?: number; maxPerToken?: number } = {}) {
  let now = 0;
  const expired: string[] = [];
  const sessions = new SessionTable<string>(
    { idleMs: 1000, maxSessions: 4, maxPerToken: 4, ...limits, now: () => now },
    (value) => expired.push(value),
  );
  let n = 0;
  /** Opens a session for `token` whose initialising request has ended (idle from now). */
  const open = (token = 0) => {
    const place = sessions.reserve(token);
    if (!("commit" in place)) throw new Error(place.reason);
    const id = `s${n++}`;
    sessions.begin(place.commit(id, id))();
    return id;
  };
  return {
    sessions,
    expired,
    open,
    tick: (ms: number) => {
      now += ms;
    },
  };
}

const refused = (place: Reservation<string> | Refusal): Refusal => {
  if ("commit" in place) throw new Error("admitted");
  return place;
};

describe("SessionTable", () => {
  it("expires a session idle past the limit, and never one with a request in flight", () => {
    const t = table();
    const idle = t.open();
    const busy = t.open();
    const end = t.sessions.begin(t.sessions.get(busy, 0)!);
    t.tick(999);
    expect(t.sessions.sweep()).toBe(0);
    t.tick(1);
    expect(t.sessions.sweep()).toBe(1);
    expect(t.expired).toEqual([idle]);
    t.tick(60_000);
    expect(t.sessions.sweep()).toBe(0);
    // Idle from the moment its last request ended.
    end();
    t.tick(999);
    expect(t.sessions.sweep()).toBe(0);
    t.tick(1);
    expect(t.sessions.sweep()).toBe(1);
    expect(t.expired).toEqual([idle, busy]);
  });

  it("refuses past the overall cap with a retry time, and admits as soon as an idle session has expired", () => {
    const t = table({ maxSessions: 3, maxPerToken: 3 });
    const first = t.open();
    t.tick(400);
    t.open();
    t.open();
    const full = refused(t.sessions.reserve(0));
    expect(full.reason).toBe("too many sessions (at most 3)");
    expect(full.retryAfterS).toBe(1);
    t.tick(600);
    // No sweep ran: admission itself reclaims the one that expired.
    expect("commit" in t.sessions.reserve(0)).toBe(true);
    expect(t.expired).toEqual([first]);
  });

  it("gives no retry time when every session is active", () => {
    const t = table({ maxSessions: 1 });
    const id = t.open();
    t.sessions.begin(t.sessions.get(id, 0)!);
    expect(refused(t.sessions.reserve(0))).toEqual({ reason: "too many sessions (at most 1)" });
  });

  it("caps each client token, so one client's abandoned sessions leave the others their places", () => {
    const t = table({ maxSessions: 4, maxPerToken: 2 });
    t.open(0);
    t.open(0);
    expect(refused(t.sessions.reserve(0)).reason).toBe("too many sessions for this client token (at most 2)");
    t.open(1);
    t.open(1);
    expect(t.sessions.size).toBe(4);
  });

  it("counts places being initialised against the caps until committed or cancelled", () => {
    const t = table({ maxSessions: 2, maxPerToken: 2 });
    const a = t.sessions.reserve(0) as Reservation<string>;
    const b = t.sessions.reserve(1) as Reservation<string>;
    expect(refused(t.sessions.reserve(1)).reason).toBe("too many sessions (at most 2)");
    a.cancel();
    a.cancel();
    const c = t.sessions.reserve(1) as Reservation<string>;
    expect("commit" in c).toBe(true);
    b.commit("b", "b");
    c.commit("c", "c");
    expect(t.sessions.size).toBe(2);
    expect(refused(t.sessions.reserve(0)).reason).toBe("too many sessions (at most 2)");
  });

  it("finds a session only with the token that opened it", () => {
    const t = table();
    const id = t.open(1);
    expect(t.sessions.get(id, 1)?.value).toBe(id);
    expect(t.sessions.get(id, 0)).toBeUndefined();
  });
});

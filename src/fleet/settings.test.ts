/** `[fleet]` resolved from the config and the environment. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${env:VAR}` is the config syntax under test
import { describe, expect, it } from "vitest";
import { redactUrl } from "./connect.js";
import { resolveFleet } from "./settings.js";

describe("resolveFleet", () => {
  it("is off without [fleet] redis and without TOOLGATE_REDIS_URL", () => {
    expect(resolveFleet(undefined, ["/w/shop"], {})).toBeUndefined();
    expect(resolveFleet({ project: "x" }, ["/w/shop"], {})).toBeUndefined();
  });

  it("reads the URL, a ${env:VAR} in it, or TOOLGATE_REDIS_URL; the project defaults to the first root's name", () => {
    expect(resolveFleet({ redis: "redis://h:6379" }, ["/w/shop", "/w/b"], {})).toEqual({
      url: "redis://h:6379",
      project: "shop",
    });
    expect(
      resolveFleet({ redis: "rediss://agent:${env:PW}@h:6380", project: "p" }, [], { PW: "s3cret" }),
    ).toEqual({ url: "rediss://agent:s3cret@h:6380", project: "p" });
    expect(resolveFleet(undefined, ["/w/my shop"], { TOOLGATE_REDIS_URL: "unix:///run/r.sock" })).toEqual({
      url: "unix:///run/r.sock",
      project: "my-shop",
    });
  });

  it("refuses an unset variable, another scheme and a project name that breaks the hash tag", () => {
    expect(() => resolveFleet({ redis: "${env:NOPE}" }, ["/w"], {})).toThrow(
      "[fleet] redis names the variable NOPE, which is not set",
    );
    expect(() => resolveFleet({ redis: "http://h" }, ["/w"], {})).toThrow(
      "[fleet] redis must start with redis://, rediss:// or unix://",
    );
    expect(() => resolveFleet({ redis: "redis://h", project: "a}b" }, ["/w"], {})).toThrow(
      '[fleet] project "a}b" must be 1–100 letters, digits, ".", "_" or "-"',
    );
  });

  it("hides a password in messages", () => {
    expect(redactUrl("rediss://agent:s3cret@h:6380")).toBe("rediss://agent:***@h:6380");
    expect(redactUrl("redis://h:6379")).toBe("redis://h:6379");
  });
});

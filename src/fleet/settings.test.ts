/** `[fleet]` resolved from the config and the environment. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${env:VAR}` is the config syntax under test
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { settingsFromConfig } from "../config/index.js";
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
      worker: `${hostname()}:${process.pid}`,
    });
    expect(
      resolveFleet({ redis: "rediss://agent:${env:PW}@h:6380", project: "p", worker: "ci-7" }, [], {
        PW: "s3cret",
      }),
    ).toEqual({ url: "rediss://agent:s3cret@h:6380", project: "p", worker: "ci-7" });
    expect(resolveFleet(undefined, ["/w/my shop"], { TOOLGATE_REDIS_URL: "unix:///run/r.sock" })).toEqual({
      url: "unix:///run/r.sock",
      project: "my-shop",
      worker: `${hostname()}:${process.pid}`,
    });
  });

  it("refuses an unset variable, another scheme, a project name that breaks the hash tag and a worker of two lines", () => {
    expect(() => resolveFleet({ redis: "${env:NOPE}" }, ["/w"], {})).toThrow(
      "[fleet] redis names the variable NOPE, which is not set",
    );
    expect(() => resolveFleet({ redis: "http://h" }, ["/w"], {})).toThrow(
      "[fleet] redis must start with redis://, rediss:// or unix://",
    );
    expect(() => resolveFleet({ redis: "redis://h", project: "a}b" }, ["/w"], {})).toThrow(
      '[fleet] project "a}b" must be 1–100 letters, digits, ".", "_" or "-"',
    );
    expect(() => resolveFleet({ redis: "redis://h", worker: "a\nb" }, ["/w"], {})).toThrow(
      "[fleet] worker must be one non-empty line",
    );
  });

  it("takes a cluster's nodes instead of one server, and the credentials from the environment", () => {
    expect(
      resolveFleet({ cluster: ["redis://n1:7000", "rediss://${env:N2}"], project: "p", worker: "w" }, [], {
        N2: "n2:7001",
        TOOLGATE_REDIS_USERNAME: "agent",
        TOOLGATE_REDIS_PASSWORD: "pw",
      }),
    ).toEqual({
      url: "redis://n1:7000",
      cluster: ["redis://n1:7000", "rediss://n2:7001"],
      username: "agent",
      password: "pw",
      project: "p",
      worker: "w",
    });
    expect(() => resolveFleet({ redis: "redis://h", cluster: ["redis://n1:7000"] }, ["/w"], {})).toThrow(
      "[fleet] takes redis (one server) or cluster (its nodes), not both",
    );
    expect(() => resolveFleet({ cluster: [] }, ["/w"], {})).toThrow("[fleet] cluster names no node");
    expect(() => resolveFleet({ cluster: ["unix:///r.sock"] }, ["/w"], {})).toThrow(
      "[fleet] cluster nodes are redis:// or rediss:// URLs",
    );
    expect(() => resolveFleet({ redis: "redis://h", usernameEnv: "not a name" }, ["/w"], {})).toThrow(
      "[fleet] username_env must name an environment variable",
    );
  });

  it("reads username_env, password_env and the TLS files as the config file names them", () => {
    const { fleet } = settingsFromConfig({
      fleet: {
        redis: "rediss://h:6380",
        project: "p",
        worker: "w",
        username_env: "SHOP_USER",
        password_env: "SHOP_PW",
        tls_ca: "certs/ca.crt",
        tls_cert: "/etc/toolgate/client.crt",
        tls_key: "/etc/toolgate/client.key",
      },
    });
    expect(resolveFleet(fleet, ["/w/shop"], { SHOP_USER: "shop", SHOP_PW: "pw" })).toMatchObject({
      username: "shop",
      password: "pw",
      tls: { ca: "/w/shop/certs/ca.crt", cert: "/etc/toolgate/client.crt", key: "/etc/toolgate/client.key" },
    });
  });

  it("hides a password in messages", () => {
    expect(redactUrl("rediss://agent:s3cret@h:6380")).toBe("rediss://agent:***@h:6380");
    expect(redactUrl("redis://h:6379")).toBe("redis://h:6379");
  });
});

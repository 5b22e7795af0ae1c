import { describe, expect, it } from "vitest";
import type { Decision } from "../../core/index.js";
import { createUrlKind, prepareUrl } from "./url.js";

const plugin = createUrlKind();

function holds(op: string, operand: unknown, raw: unknown, decision: Decision = "allow") {
  const compile = plugin.operators[op];
  if (!compile) throw new Error(`no operator ${op}`);
  return compile(operand)(
    plugin.prepare(raw, { roots: [], args: {} }) as ReturnType<typeof prepareUrl>,
    decision,
  );
}

describe("url plug-in: prepare", () => {
  it("normalizes with the WHATWG parser", () => {
    expect(prepareUrl("HTTPS://Docs.Python.org.:443/a/../b")).toEqual({
      valid: true,
      href: "https://docs.python.org./b",
      scheme: "https",
      host: "docs.python.org",
      port: 443,
    });
    expect(prepareUrl("http://0x7f.1:8080/")).toMatchObject({ host: "127.0.0.1", port: 8080 });
    expect(prepareUrl("http://[::FFFF:127.0.0.1]/")).toMatchObject({ host: "::ffff:7f00:1", port: 80 });
  });

  it.each([["not a url"], [""], [42], [null]])("marks %j invalid", (raw) => {
    expect(prepareUrl(raw).valid).toBe(false);
  });
});

describe("url plug-in: host", () => {
  const table: Array<[string, unknown, string, boolean]> = [
    ["exact", "docs.python.org", "https://docs.python.org/3/", true],
    ["exact, other host", "docs.python.org", "https://python.org/", false],
    ["case and trailing dot", "Docs.Python.Org.", "https://DOCS.python.org./x", true],
    ["wildcard matches a subdomain", "*.example.com", "https://a.example.com/", true],
    ["wildcard matches a deep subdomain", "*.example.com", "https://a.b.example.com/", true],
    ["wildcard does not match the apex", "*.example.com", "https://example.com/", false],
    ["wildcard does not match a look-alike", "*.example.com", "https://evilexample.com/", false],
    ["wildcard does not match a suffix trick", "*.example.com", "https://example.com.evil.net/", false],
    ["array: any", ["a.com", "*.mozilla.org"], "https://developer.mozilla.org/", true],
    ["array: none", ["a.com", "*.mozilla.org"], "https://mozilla.org.evil/", false],
    ["userinfo does not fool it", "allowed.com", "http://allowed.com@127.0.0.1/", false],
    ["userinfo: the real host matches", "127.0.0.1", "http://allowed.com@127.0.0.1/", true],
    ["fragment does not fool it", "allowed.com", "http://127.0.0.1#@allowed.com/", false],
    ["IPv4 spellings normalize", "127.0.0.1", "http://2130706433/", true],
    ["pattern spellings normalize", "127.1", "http://127.0.0.1/", true],
    ["IPv6 with brackets", "[::1]", "http://[::1]:8080/", true],
    ["IPv6 without brackets", "::1", "http://[0:0::1]/", true],
    ["IDN host in punycode", "xn--bcher-kva.example", "https://bücher.example/", true],
    ["a URL without a host", "example.com", "mailto:someone@example.com", false],
  ];
  it.each(table)("%s", (_note, operand, url, want) => {
    expect(holds("host", operand, url)).toBe(want);
  });

  it.each([
    ["*", 'host pattern "*" is invalid: use an exact host or "*.example.com"'],
    ["a.*.com", 'host pattern "a.*.com" is invalid: use an exact host or "*.example.com"'],
    [
      "example.com:8080",
      'host pattern "example.com:8080" must be a bare host (use the port and scheme operators)',
    ],
    [
      "https://example.com/",
      'host pattern "https://example.com/" must be a bare host (use the port and scheme operators)',
    ],
    ["exa mple.com", 'host pattern "exa mple.com" is not a valid host name'],
  ])("refuses the operand %j", (operand, message) => {
    expect(() => plugin.operators.host!(operand)).toThrow(message);
  });

  it("refuses a non-string operand", () => {
    expect(() => plugin.operators.host!(5)).toThrow("expects a string or an array of strings, got number");
  });
});

describe("url plug-in: scheme and port", () => {
  it.each([
    ["scheme", "https", "https://a.com/", true],
    ["scheme", "HTTPS:", "https://a.com/", true],
    ["scheme", "https", "http://a.com/", false],
    ["scheme", ["http", "https"], "http://a.com/", true],
    ["port", 443, "https://a.com/", true],
    ["port", 443, "https://a.com:8443/", false],
    ["port", 80, "http://a.com/", true],
    ["port", [8080, 8443], "https://a.com:8443/", true],
    ["port", "8080", "http://a.com:8080/", true],
    ["port", 80, "mailto:x@y.z", false],
  ])("%s %j on %s → %s", (op, operand, url, want) => {
    expect(holds(op, operand, url)).toBe(want);
  });

  it.each([[70000], [-1], [1.5], ["http"], [[]]])("refuses the port operand %j", (operand) => {
    expect(() => plugin.operators.port!(operand)).toThrow(/port/);
  });
});

describe("url plug-in: text operators on the normalized URL", () => {
  it.each([
    ["equals", "https://Example.com", "https://example.com/", true],
    ["equals", "https://example.com/a", "https://example.com/b", false],
    ["oneOf", ["https://a.com/", "https://B.com"], "https://b.com/", true],
    ["prefix", "https://docs.python.org/3/", "https://docs.python.org/3/library/", true],
    ["prefix", "https://docs.python.org/3/", "https://docs.python.org.evil.com/3/", false],
    ["contains", "/api/", "https://a.com/v1/api/x", true],
    ["glob", "https://docs.python.org/**", "https://docs.python.org/3/library/os.html", true],
    ["glob", "https://docs.python.org/**", "https://evil.com/docs.python.org/", false],
    ["regex", "^https://[a-z]+\\.example\\.com/", "https://api.example.com/x", true],
    ["regex", "^https://[a-z]+\\.example\\.com/", "http://api.example.com/x", false],
  ])("%s %j on %s → %s", (op, operand, url, want) => {
    expect(holds(op, operand, url)).toBe(want);
  });

  it("refuses a catastrophic regex", () => {
    expect(() => plugin.operators.regex!("(a+)+$")).toThrow(/catastrophic backtracking/);
  });
});

describe("url plug-in: unparseable URLs fail closed", () => {
  const ops: Array<[string, unknown]> = [
    ["host", "example.com"],
    ["scheme", "https"],
    ["port", 443],
    ["prefix", "https://"],
    ["glob", "**"],
    ["regex", ".*"],
  ];
  it.each(ops)("%s: allow and ask rules do not match, deny rules do", (op, operand) => {
    expect(holds(op, operand, "::not a url::", "allow")).toBe(false);
    expect(holds(op, operand, "::not a url::", "ask")).toBe(false);
    expect(holds(op, operand, "::not a url::", "deny")).toBe(true);
  });
});

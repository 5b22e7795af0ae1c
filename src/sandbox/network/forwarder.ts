/**
 * @module sandbox/network/forwarder
 * A fresh network namespace for one command — loopback only, no route anywhere — with one way out: `socat`
 * listening on 127.0.0.1:PORT inside it, relaying each connection to the egress proxy's unix socket on the host
 * (a socket file is reachable from any network namespace; an address is not). The namespace is made by a small
 * bwrap of its own: its user and network namespaces (bwrap brings loopback up), and its own PID namespace, so
 * socat and every child it forks die together when that bwrap ends — at `close()`, or with toolgate
 * (`--die-with-parent`). The command's bwrap then enters the namespace with `nsenter` and keeps it
 * (`--share-net`): nothing in it has any capability over the namespace, so no route or interface can be added.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { hostProgram } from "../host-programs.js";

/** Options of {@link openForwarder}. */
export interface ForwarderOptions {
  /** The egress proxy's unix socket. */
  socketPath: string;
  /** The port socat listens on inside the namespace (127.0.0.1). */
  port: number;
  /** The bwrap binary (checked to work by the sandbox's detection). */
  bwrap: string;
  /** The socat binary (default `socat` on PATH). */
  socat?: string;
  /** Gives up (and fails closed) after this long (default 30 000 ms: a busy machine, not a hang). */
  timeoutMs?: number;
}

/** A ready forwarder: the namespace exists and socat listens in it. */
export interface Forwarder {
  /** The `nsenter … --` prefix that runs a program inside the namespace. */
  enter: string[];
  /** Ends the namespace's bwrap (and with it socat and its children). Idempotent. */
  close(): void;
}

/**
 * Makes the namespace and starts socat in it; resolves once socat listens.
 * @throws Error naming what failed (bwrap, socat missing, socat's own message) — the command must not run.
 */
export function openForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const tools = forwarderTools(options.socat);
  if ("missing" in tools) return Promise.reject(new Error(tools.missing));
  const { socat, nsenter } = tools;
  const args = [
    // Own user namespace (the one that owns the network namespace, so nsenter can join both), own network
    // namespace (bwrap brings loopback up), own PID namespace (everything in it dies with its first process).
    "--unshare-user",
    "--unshare-net",
    "--unshare-pid",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--info-fd",
    "3",
    "--",
    socat,
    "-d",
    "-d",
    // A child per connection, at most as many as the proxy takes: socat's processes stay bounded too.
    `TCP-LISTEN:${options.port},bind=127.0.0.1,fork,reuseaddr,max-children=256`,
    `UNIX-CONNECT:${options.socketPath}`,
  ];
  // Its own process group: a Ctrl-C at toolgate's terminal must not end the namespace of a background command.
  const holder = spawn(options.bwrap, args, { stdio: ["ignore", "ignore", "pipe", "pipe"], detached: true });
  return new Promise<Forwarder>((resolve, reject) => {
    let info = "";
    let said = "";
    let settled = false;
    const close = () => {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill("SIGKILL");
    };
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      close();
      const last = said.trim().split("\n").filter(Boolean).slice(-3).join("; ");
      reject(new Error(`${why}${last ? ` (${last})` : ""}`));
    };
    const timer = setTimeout(
      () => fail(`the network namespace was not ready after ${options.timeoutMs ?? 30_000} ms`),
      options.timeoutMs ?? 30_000,
    );
    const ready = () => {
      if (settled) return;
      const pid = childPid(info);
      if (pid === undefined || !/ listening on /.test(said)) return;
      settled = true;
      clearTimeout(timer);
      resolve({ enter: enterArgs(nsenter, pid), close });
    };
    const infoStream = holder.stdio[3] as NodeJS.ReadableStream | null;
    infoStream?.on("data", (chunk: Buffer) => {
      info += chunk.toString();
    });
    infoStream?.on("end", ready);
    infoStream?.on("error", () => {});
    // socat logs each accepted connection too: keep reading, so a full pipe never blocks it.
    const decoder = new StringDecoder("utf8");
    holder.stderr?.on("data", (chunk: Buffer) => {
      if (settled) return;
      said += decoder.write(chunk);
      ready();
    });
    holder.stderr?.on("error", () => {});
    holder.once("error", (error) => {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      fail(missing ? `${options.bwrap} was not found` : `could not start bwrap: ${error.message}`);
    });
    // `close`, not `exit`: by then every byte bwrap wrote to stderr has been read (its reason is in it).
    holder.once("close", (code, signal) => {
      const missing = /socat.*(No such file|not found)|execvp/i.test(said);
      fail(
        missing
          ? "socat is not installed (apt-get install socat)"
          : `the network namespace's bwrap ended (${signal ?? `exit status ${code}`})`,
      );
    });
  });
}

/**
 * The programs a forwarder needs besides bwrap, found on PATH, or what is missing with its fix (also what
 * `toolgate doctor` reports).
 */
export function forwarderTools(socatPath?: string): { socat: string; nsenter: string } | { missing: string } {
  const socat = socatPath ?? hostProgram("socat");
  if (!socat) return { missing: "socat is not installed (apt-get install socat)" };
  const nsenter = hostProgram("nsenter");
  if (!nsenter) return { missing: "nsenter is not installed (apt-get install util-linux)" };
  return { socat, nsenter };
}

/** bwrap's `child-pid` from its `--info-fd` JSON, once complete. */
function childPid(info: string): number | undefined {
  try {
    const pid = (JSON.parse(info) as { "child-pid"?: unknown })["child-pid"];
    return typeof pid === "number" && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * nsenter into the namespace of `pid`. A non-root user joins the namespace's user namespace first (it owns the
 * network namespace, and this user owns it) keeping its own uid; root needs only the network namespace, so its
 * command's bwrap runs exactly as without a network grant.
 */
function enterArgs(nsenter: string, pid: number): string[] {
  const net = `--net=/proc/${pid}/ns/net`;
  if (process.getuid?.() === 0) return [nsenter, net, "--"];
  return [nsenter, `--user=/proc/${pid}/ns/user`, net, "--preserve-credentials", "--"];
}

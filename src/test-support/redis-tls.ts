/**
 * @module test-support/redis-tls
 * A real `redis-server` that speaks only TLS on a loopback port (`--port 0 --tls-port N`, Debian's build has
 * TLS), with certificates made by `openssl` in a temp folder: a test CA, the server's certificate for
 * 127.0.0.1 (by IP only, so `localhost` does not match it), a client certificate the server accepts, and a
 * second, rogue CA with a client certificate of its own. The server asks every client for a certificate
 * signed by the test CA (`--tls-auth-clients yes`). Its Unix socket stays plain: the test's own view of
 * what reached the server.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedis, type TestRedis } from "./redis-process.js";

/** Paths of the PEM files {@link makeCertificates} wrote. */
export interface TestCertificates {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  rogueCa: string;
  rogueClientCert: string;
  rogueClientKey: string;
}

const openssl = (dir: string, ...args: string[]) =>
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });

/** A key and a certificate signed by CA `ca`, with the extensions in `ext`. */
async function issue(dir: string, ca: string, name: string, subject: string, ext: string): Promise<void> {
  await writeFile(join(dir, `${name}.ext`), ext);
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(dir, "req", ...key, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  openssl(
    dir,
    ...["x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`],
    ...["-CAcreateserial", "-out", `${name}.crt`, "-days", "2", "-extfile", `${name}.ext`],
  );
}

/**
 * Makes the test CA, the server's and a client's certificates, and a rogue CA with its own client, in a
 * fresh temp folder.
 */
export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-tls-"));
  for (const ca of ["ca", "rogue"]) {
    const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl(
      dir,
      ...["req", "-x509", ...key, "-keyout", `${ca}.key`, "-out", `${ca}.crt`, "-days", "2"],
      ...["-subj", `/CN=toolgate test ${ca} CA`],
      ...["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
    );
  }
  await issue(
    dir,
    "ca",
    "server",
    "/CN=127.0.0.1",
    "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
  );
  await issue(dir, "ca", "client", "/CN=worker", "extendedKeyUsage=clientAuth\n");
  await issue(dir, "rogue", "rogue-client", "/CN=worker", "extendedKeyUsage=clientAuth\n");
  const at = (file: string) => join(dir, file);
  return {
    dir,
    ca: at("ca.crt"),
    serverCert: at("server.crt"),
    serverKey: at("server.key"),
    clientCert: at("client.crt"),
    clientKey: at("client.key"),
    rogueCa: at("rogue.crt"),
    rogueClientCert: at("rogue-client.crt"),
    rogueClientKey: at("rogue-client.key"),
  };
}

/** A loopback port free a moment ago (the server is started on it at once; a clash is retried). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TLS-only test server and the port its TLS listener is on. */
export interface TlsRedis extends TestRedis {
  port: number;
  /** `rediss://127.0.0.1:PORT`. */
  tlsUrl: string;
}

/** Starts a server whose only TCP listener is TLS with `certs`, asking clients for a certificate. */
export async function startTlsRedis(certs: TestCertificates): Promise<TlsRedis> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const redis = await startRedis([
        ...["--bind", "127.0.0.1", "--tls-port", String(port)],
        ...["--tls-cert-file", certs.serverCert, "--tls-key-file", certs.serverKey],
        ...["--tls-ca-cert-file", certs.ca, "--tls-auth-clients", "yes"],
      ]);
      return Object.assign(redis, { port, tlsUrl: `rediss://127.0.0.1:${port}` });
    } catch (error) {
      // Another process took the port between the probe and the server's bind.
      if (attempt >= 5 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

/** Removes the certificates' folder. */
export async function removeCertificates(certs: TestCertificates): Promise<void> {
  await rm(certs.dir, { recursive: true, force: true });
}

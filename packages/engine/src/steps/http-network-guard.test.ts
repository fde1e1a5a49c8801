import type { LookupAddress } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import type { NetworkPolicy } from "../network/policy.js";
import { executeSkill } from "../run/execute-skill.js";

const HINT = "set ALLOW_PRIVATE_NETWORKS=true to allow private networks";

/** A loopback server whose every request is counted: what the guard must keep runs from. */
let secret: Server;
let secretPort: number;
let secretHits = 0;
/** A loopback server the allow-list lets through, which redirects where it is told. */
let redirector: Server;
let redirectorPort: number;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

beforeAll(async () => {
  secret = createServer((_request, response) => {
    secretHits += 1;
    response.writeHead(200, { "content-type": "application/json" }).end('{"secret":"s3cr3t"}');
  });
  secretPort = await listen(secret);
  redirector = createServer((request, response) => {
    const to = new URL(request.url ?? "/", "http://x").searchParams.get("to");
    if (to === null) response.writeHead(200, { "content-type": "text/plain" }).end("landed");
    else response.writeHead(302, { location: to }).end();
  });
  redirectorPort = await listen(redirector);
});

afterAll(async () => {
  await Promise.all([close(secret), close(redirector)]);
});

async function fetchWith(url: string, network?: NetworkPolicy) {
  const definition = parseSkillDefinition(
    `id: s
name: S
inputs: [{ json_key: url, data_type: string }]
steps:
  - http: { url: "{{ inputs.url }}", save_as: response }
`,
    "s.yaml",
  );
  return executeSkill({
    definition,
    inputs: { url },
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: () => {},
    ...(network && { network }),
  });
}

/** Resolves `name` as the table says; any other name is unknown. */
function resolver(table: Record<string, string>, calls: string[] = []): NetworkPolicy["resolve"] {
  return async (name) => {
    calls.push(name);
    const address = table[name];
    if (address === undefined) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
    return [{ address, family: address.includes(":") ? 6 : 4 } satisfies LookupAddress];
  };
}

describe("the http step under the default network policy", () => {
  // Each form reaches the loopback server when private networks are allowed (so the form is a
  // real way there), and is refused, before any request, by default.
  const loopbackName = { "internal.test": "127.0.0.1", localhost: "127.0.0.1" };
  it.each([
    ["127.0.0.1", "127.0.0.1 is a loopback address"],
    ["localhost", "localhost is a loopback address"],
    ["LOCALHOST.", "localhost is a loopback address"],
    ["2130706433", "127.0.0.1 is a loopback address"],
    ["0x7f000001", "127.0.0.1 is a loopback address"],
    ["0177.0.0.1", "127.0.0.1 is a loopback address"],
    ["127.1", "127.0.0.1 is a loopback address"],
    ["0.0.0.0", "0.0.0.0 is an unspecified address"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address"],
    ["[::ffff:7f00:1]", "::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address"],
    ["internal.test", "internal.test resolves to 127.0.0.1, a loopback address"],
  ])("refuses http://%s:<port>/secret", async (host, reason) => {
    const url = `http://${host}:${secretPort}/secret`;
    const resolve = resolver(loopbackName);

    const allowed = await fetchWith(url, { allowPrivate: true, resolve });
    expect(allowed).toMatchObject({ outcome: "finished", data: { response: { status: 200 } } });
    const before = secretHits;

    const refused = await fetchWith(url, { hint: HINT, resolve });
    expect(refused).toMatchObject({ outcome: "failed", error: { step: "step 1 (http)" } });
    expect(refused.outcome === "failed" && refused.error.message).toBe(
      `GET ${url} refused: ${reason} (${HINT})`,
    );
    expect(secretHits).toBe(before);
  });

  it("refuses [::1] and cloud metadata addresses without a policy at all", async () => {
    for (const [url, reason] of [
      ["http://[::1]:9/", "::1 is a loopback address"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"],
      ["http://metadata.google.internal/", "metadata.google.internal is a cloud metadata address"],
    ] as const) {
      const result = await fetchWith(url);
      expect(result.outcome === "failed" && result.error.message).toBe(
        `GET ${url} refused: ${reason}`,
      );
    }
  });

  it("checks every redirect hop: an allowed host's 302 to a forbidden one is refused", async () => {
    const network: NetworkPolicy = { allowedHosts: [`127.0.0.1:${redirectorPort}`], hint: HINT };
    const origin = `http://127.0.0.1:${redirectorPort}`;
    // Redirects are followed where the policy allows…
    const within = await fetchWith(`${origin}/go?to=${encodeURIComponent(`${origin}/`)}`, network);
    expect(within).toMatchObject({ outcome: "finished", data: { response: { body: "landed" } } });
    // …and not to the secret server on another loopback port.
    const before = secretHits;
    const target = `http://127.0.0.1:${secretPort}/secret`;
    const url = `${origin}/go?to=${encodeURIComponent(target)}`;
    const result = await fetchWith(url, network);
    expect(result.outcome === "failed" && result.error.message).toBe(
      `GET ${url} refused: 127.0.0.1 is a loopback address; the allowed hosts let it through on port ${redirectorPort} only, not ${secretPort} (${HINT})`,
    );
    expect(secretHits).toBe(before);
  });

  it("checks the address it connects to: a DNS answer that turns private after the check is refused", async () => {
    const calls: string[] = [];
    let answers = 0;
    // Public when first asked (the step's own check), loopback when the connection resolves.
    const rebinding: NetworkPolicy["resolve"] = async (name) => {
      calls.push(name);
      answers += 1;
      const address = answers === 1 ? "93.184.216.34" : "127.0.0.1";
      return [{ address, family: 4 }];
    };
    const before = secretHits;
    const url = `http://rebind.test:${secretPort}/secret`;
    const result = await fetchWith(url, { resolve: rebinding });
    expect(result.outcome === "failed" && result.error.message).toBe(
      `GET ${url} refused: rebind.test resolves to 127.0.0.1, a loopback address`,
    );
    expect(calls).toEqual(["rebind.test", "rebind.test"]);
    expect(secretHits).toBe(before);
  });
});

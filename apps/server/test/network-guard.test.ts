import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { networkPolicyOf, ownAddresses } from "../src/network-policy.js";
import { paths } from "../src/paths.js";
import { importSkills } from "../src/skills/import-skills.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { RunClient } from "./support/runs.js";

const HINT =
  "set ALLOW_PRIVATE_NETWORKS=true to allow private networks, or list the host in ALLOWED_PRIVATE_HOSTS";

describe("the configuration of the network guard", () => {
  it("refuses private networks unless told otherwise", () => {
    const config = loadConfig({});
    expect(config.ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(config.ALLOWED_PRIVATE_HOSTS).toEqual([]);
    expect(networkPolicyOf(config)).toEqual({ allowPrivate: false, allowedHosts: [], hint: HINT });
  });

  it("reads the allow-list, and refuses an entry that is not a host or range at start-up", () => {
    const config = loadConfig({
      ALLOW_PRIVATE_NETWORKS: "true",
      ALLOWED_PRIVATE_HOSTS: " intranet.example, 10.8.0.0/16 ,127.0.0.1:9000,,",
    });
    expect(config.ALLOW_PRIVATE_NETWORKS).toBe(true);
    expect(config.ALLOWED_PRIVATE_HOSTS).toEqual([
      "intranet.example",
      "10.8.0.0/16",
      "127.0.0.1:9000",
    ]);
    expect(() => loadConfig({ ALLOWED_PRIVATE_HOSTS: "10.0.0.0/33" })).toThrow(
      /ALLOWED_PRIVATE_HOSTS: allowed host "10.0.0.0\/33": not a CIDR range/,
    );
  });

  it("the demo allows the server's own port only, the one bound", () => {
    expect(ownAddresses(loadConfig({ HOST: "127.0.0.1", PORT: "0" }), 8080)).toEqual([
      "127.0.0.1:8080",
      "localhost:8080",
    ]);
    expect(ownAddresses(loadConfig({ HOST: "0.0.0.0", PORT: "9000" }), 9000)).toEqual([
      "127.0.0.1:9000",
      "[::1]:9000",
      "localhost:9000",
    ]);
    expect(ownAddresses(loadConfig({ HOST: "10.1.2.3", PORT: "80" }), 80)).toEqual(["10.1.2.3:80"]);
  });
});

describe("a server with the default network policy", () => {
  let server: TestServer;
  let alice: RunClient;

  beforeAll(async () => {
    server = await startTestServer({ worker: { concurrency: 4 }, allowPrivateNetworks: false });
    await importSkills(server.repos.skills, "alice", paths.skills);
    alice = new RunClient(server.origin, await server.keyFor("alice"));
  });

  afterAll(async () => {
    await server?.close();
  });

  it("ends a run that fetches the server's own API in reset, naming the rule, in every form", async () => {
    const port = new URL(server.origin).port;
    const forms = [
      [`http://127.0.0.1:${port}/v1/skill/list`, "127.0.0.1 is a loopback address"],
      [`http://localhost:${port}/v1/skill/list`, "localhost is a loopback address"],
      [`http://2130706433:${port}/v1/skill/list`, "127.0.0.1 is a loopback address"],
      [`http://0x7f000001:${port}/v1/skill/list`, "127.0.0.1 is a loopback address"],
      [`http://0.0.0.0:${port}/v1/skill/list`, "0.0.0.0 is an unspecified address"],
      [
        `http://[::ffff:127.0.0.1]:${port}/v1/skill/list`,
        "::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address",
      ],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"],
    ];
    const runs = await Promise.all(
      forms.map(async ([url, reason]) => {
        const { id } = await alice.start("skill_http_get_json", { url });
        return { url, reason, run: await alice.ended(id) };
      }),
    );
    for (const { url, reason, run } of runs) {
      expect(run.state).toBe("reset");
      expect(run.data).toEqual({
        error: { step: "fetch", message: `GET ${url} refused: ${reason} (${HINT})` },
      });
    }
  });
});

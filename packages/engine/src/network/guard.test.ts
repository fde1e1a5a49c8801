import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { forbiddenAddress } from "./address-rules.js";
import { createNetworkGuard, NetworkRefused } from "./guard.js";
import { normaliseHost } from "./host.js";
import type { NetworkPolicy } from "./policy.js";

/** A resolver that answers from a table, as DNS would, and refuses names it does not know. */
function fakeDns(table: Record<string, string[]>): NetworkPolicy["resolve"] {
  return async (name) => {
    const addresses = table[name];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return addresses.map(
      (address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 }),
    );
  };
}

describe("forbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["2001:db8::1", "reserved"],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::127.0.0.1", "loopback"],
    ["::a9fe:a9fe", "metadata"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b:1::c0a8:1", "private"],
    ["2002:7f00:1::1", "loopback"],
  ])("%s is refused as %s", (address, rule) => {
    expect(forbiddenAddress(address)?.rule.name).toBe(rule);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("%s is public", (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });

  it("names the embedded address and the form in its reason", () => {
    expect(forbiddenAddress("::ffff:7f00:1")?.reason).toBe(
      "::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address",
    );
  });
});

describe("normaliseHost", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["0", "0.0.0.0"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["[::ffff:7f00:1]", "::ffff:7f00:1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
  ])("%s is the address %s", (host, address) => {
    expect(normaliseHost(host)).toEqual({ kind: "ip", address });
  });

  it.each([
    ["LOCALHOST.", "localhost"],
    ["Example.COM..", "example.com"],
  ])("%s is the name %s", (host, name) => {
    expect(normaliseHost(host)).toEqual({ kind: "name", name });
  });

  it.each(["", "a b", "host:99", "user@host", "[::1"])("%j is no host", (host) => {
    expect(normaliseHost(host)).toBeUndefined();
  });
});

describe("the guard's default policy", () => {
  const dns = fakeDns({
    "public.example": ["93.184.216.34"],
    "loopback.example": ["127.0.0.1"],
    "mixed.example": ["93.184.216.34", "10.0.0.7"],
    "v6.example": ["::ffff:192.168.0.1"],
  });
  const guard = createNetworkGuard({ resolve: dns, hint: "set ALLOW_PRIVATE_NETWORKS=true" });

  it.each([
    ["http://127.0.0.1:8080/secret", "loopback", "127.0.0.1 is a loopback address"],
    ["http://2130706433/", "loopback", "127.0.0.1 is a loopback address"],
    ["http://0x7f000001/", "loopback", "127.0.0.1 is a loopback address"],
    ["http://0177.0.0.1/", "loopback", "127.0.0.1 is a loopback address"],
    ["http://127.1/", "loopback", "127.0.0.1 is a loopback address"],
    ["http://0.0.0.0/", "unspecified", "0.0.0.0 is an unspecified address"],
    ["http://[::1]/", "loopback", "::1 is a loopback address"],
    ["http://[::ffff:127.0.0.1]/", "loopback", "IPv4-mapped form of 127.0.0.1"],
    ["http://[::ffff:7f00:1]/", "loopback", "IPv4-mapped form of 127.0.0.1"],
    ["http://localhost/", "loopback", "localhost is a loopback address"],
    ["http://LOCALHOST./", "loopback", "localhost is a loopback address"],
    ["http://app.localhost/", "loopback", "app.localhost is a loopback address"],
    ["http://169.254.169.254/latest/meta-data/", "metadata", "a cloud metadata address"],
    ["http://metadata.google.internal/", "metadata", "a cloud metadata address"],
    ["http://[fd00:ec2::254]/", "metadata", "a cloud metadata address"],
    ["http://100.100.100.200/", "metadata", "a cloud metadata address"],
    ["http://100.64.1.1/", "cgnat", "carrier-grade NAT"],
    ["https://loopback.example/", "loopback", "loopback.example resolves to 127.0.0.1"],
    ["https://mixed.example/", "private", "mixed.example resolves to 10.0.0.7"],
    ["https://v6.example/", "private", "IPv4-mapped form of 192.168.0.1"],
  ])("refuses %s (%s)", async (url, rule, words) => {
    const refused = await guard.checkUrl(url).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NetworkRefused);
    expect((refused as NetworkRefused).rule.name).toBe(rule);
    expect((refused as NetworkRefused).message).toContain(words);
    expect((refused as NetworkRefused).message).toMatch(/\(set ALLOW_PRIVATE_NETWORKS=true\)$/);
  });

  it("lets public addresses and names through", async () => {
    await expect(guard.checkUrl("https://public.example/x")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://93.184.216.34/")).resolves.toBeUndefined();
    await expect(guard.resolve("public.example", 443)).resolves.toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
  });
});

describe("allowances", () => {
  const dns = fakeDns({
    localhost: ["127.0.0.1"],
    "internal.example": ["10.0.0.5"],
    "other.example": ["10.0.0.6"],
  });

  it("ALLOW_PRIVATE_NETWORKS lets private addresses through, never cloud metadata", async () => {
    const guard = createNetworkGuard({ allowPrivate: true, resolve: dns });
    await expect(guard.checkUrl("http://127.0.0.1:9/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://localhost/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://internal.example/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://169.254.169.254/")).rejects.toThrow(/cloud metadata/);
    await expect(guard.checkUrl("http://metadata.google.internal/")).rejects.toThrow(/metadata/);
  });

  it("the allow-list lets through exactly its names, addresses, ports and ranges", async () => {
    const guard = createNetworkGuard({
      resolve: dns,
      allowedHosts: ["internal.example", "127.0.0.1:8080", "192.168.0.0/16", "[::1]:81"],
    });
    await expect(guard.checkUrl("http://internal.example/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://other.example/")).rejects.toThrow(/private/);
    await expect(guard.checkUrl("http://127.0.0.1:8080/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://127.1:8080/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://127.0.0.1:8081/")).rejects.toThrow(/loopback/);
    await expect(guard.checkUrl("http://192.168.44.1/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://[::ffff:192.168.44.1]/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://[::1]:81/")).resolves.toBeUndefined();
    await expect(guard.checkUrl("http://[::1]:82/")).rejects.toThrow(/loopback/);
  });

  it("a host the allow-list lets through on other ports is refused for its port, saying so", async () => {
    const guard = createNetworkGuard({
      resolve: dns,
      allowedHosts: ["127.0.0.1:8080", "127.0.0.1:8443", "localhost:9000", "10.0.0.0/8"],
    });
    await expect(guard.checkUrl("http://127.0.0.1:8081/")).rejects.toThrow(
      "127.0.0.1 is a loopback address; the allowed hosts let it through on port 8080, 8443 only, not 8081",
    );
    await expect(guard.checkUrl("http://localhost:9001/")).rejects.toThrow(
      /let it through on port 9000 only, not 9001/,
    );
    // Not allowed on any port: the refusal names the address's kind alone.
    const refused = guard.checkUrl("http://127.0.0.2:8080/");
    await expect(refused).rejects.toThrow(/loopback/);
    await expect(refused).rejects.not.toThrow(/let it through/);
  });

  it("an allow-list entry that is not one is refused when the guard is built", () => {
    expect(() => createNetworkGuard({ allowedHosts: ["10.0.0.0/99"] })).toThrow(/not a CIDR/);
    expect(() => createNetworkGuard({ allowedHosts: ["a b"] })).toThrow(/not a host/);
    expect(() => createNetworkGuard({ allowedHosts: ["host:0"] })).toThrow(/bad port/);
  });
});

import { networkInterfaces } from "node:os";

/** This machine's first IPv4 address that is not loopback: how a test is a client elsewhere. */
export function outsideAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;
  if (address === undefined) throw new Error("this machine has no address besides loopback");
  return address;
}

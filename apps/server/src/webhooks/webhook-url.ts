import { createNetworkGuard, type NetworkPolicy, NetworkRefused } from "@skillrun/engine";

/**
 * Why `url` cannot be a webhook endpoint, or undefined when it can: http or https, and not an
 * address the network rules of `http` steps refuse (private, loopback, metadata, … unless the
 * operator allowed it). A name that does not resolve now is accepted: it may later, and every
 * attempt is checked again as it connects.
 */
export async function webhookUrlProblem(
  url: string,
  policy: NetworkPolicy,
): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not an absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `${parsed.protocol} is not http or https`;
  }
  try {
    await createNetworkGuard(policy).checkUrl(parsed.href);
  } catch (error) {
    if (error instanceof NetworkRefused) return error.message;
  }
  return undefined;
}

import type { Request } from "express";

/** The address clients reach the server at: PUBLIC_URL when set, else what the request used. */
export function publicBaseUrl(
  req: Pick<Request, "protocol" | "get">,
  configured: string | undefined,
): string {
  return (configured ?? `${req.protocol}://${req.get("host")}`).replace(/\/+$/, "");
}

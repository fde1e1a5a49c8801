import type { components } from "@skillrun/client";

/** A browser profile of the caller's, described (the API never gives a cookie's value). */
export type Profile = components["schemas"]["Profile"];

/** The cached list of profiles, read again after one is deleted. */
export const PROFILES_KEY = ["profiles"] as const;

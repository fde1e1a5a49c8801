import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { PROFILES_KEY } from "./profile-types.js";

/** The caller's browser profiles, ordered by name. */
export function useProfiles() {
  const { client } = useApi();
  return useQuery({
    queryKey: PROFILES_KEY,
    queryFn: async ({ signal }) => dataOf(await client.GET("/profile/list", { signal })),
  });
}

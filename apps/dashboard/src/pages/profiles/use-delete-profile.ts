import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { PROFILES_KEY } from "./profile-types.js";

/** Deletes a profile (its saved sessions with it), then reads the list again. */
export function useDeleteProfile(name: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/profile/{name}", { params: { path: { name } } });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: PROFILES_KEY }),
  });
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";

export const SECRETS_KEY = ["secrets"] as const;

/** The caller's secrets: names and dates, never values (`GET /v1/secret/list`). */
export function useSecrets() {
  const { client } = useApi();
  return useQuery({
    queryKey: SECRETS_KEY,
    queryFn: async ({ signal }) => dataOf(await client.GET("/secret/list", { signal })),
  });
}

/** Sets a secret's value (`PUT /v1/secret/{name}`), new or not, then reads the list again. */
export function useSetSecret(onSet: (name: string) => void) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (secret: { name: string; value: string }) =>
      dataOf(
        await client.PUT("/secret/{name}", {
          params: { path: { name: secret.name.trim() } },
          body: { value: secret.value },
        }),
      ),
    onSuccess: async (set) => {
      onSet(set.name);
      await queryClient.invalidateQueries({ queryKey: SECRETS_KEY });
    },
  });
}

/** Deletes a secret (`DELETE /v1/secret/{name}`), then reads the list again. */
export function useDeleteSecret(name: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/secret/{name}", { params: { path: { name } } });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SECRETS_KEY }),
  });
}

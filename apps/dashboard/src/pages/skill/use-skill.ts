import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";

/** The skill as the API has it. */
export function useSkill(id: string) {
  const { client } = useApi();
  return useQuery({
    queryKey: ["skill", id],
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/skill/{id}", { params: { path: { id } }, signal })),
  });
}

import type { SkillrunClient } from "@skillrun/client";
import { useQuery } from "@tanstack/react-query";
import { useApi } from "../api/api-context.js";
import { dataOf } from "../api/errors.js";
import { ErrorNote } from "./error-note.js";
import { Section } from "./section.js";

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The query of a run's files with their signed addresses: one cache entry per run, which the
 * files panel and the step log (a failed step's screenshot) share.
 */
export function runFilesQuery(client: SkillrunClient, runId: string) {
  return {
    queryKey: ["files", runId],
    queryFn: async ({ signal }: { signal: AbortSignal }) =>
      dataOf(await client.GET("/run/{id}/files", { params: { path: { id: runId } }, signal })),
  };
}

/** The run's files with download links (signed addresses); images shown inline. */
export function RunFiles(props: { runId: string }) {
  const { client } = useApi();
  const files = useQuery(runFilesQuery(client, props.runId));
  return (
    <Section name="files" title="Files">
      <ErrorNote error={files.error} prefix="The files could not be listed" />
      {files.data?.length === 0 && <p className="muted">This run has no files.</p>}
      {files.data && files.data.length > 0 && (
        <ul className="files">
          {files.data.map((file) => (
            <li key={file.name}>
              {file.content_type.startsWith("image/") && (
                <img
                  src={file.url}
                  alt={`${file.name}, a screenshot the run took`}
                  loading="lazy"
                />
              )}
              <a href={file.url} download={file.name}>
                Download {file.name}
              </a>{" "}
              <span className="muted">
                {file.content_type}, {formatBytes(file.bytes)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

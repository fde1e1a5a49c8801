import { createSkillrunClient } from "@skillrun/client";
import { describe, expect, it } from "vitest";
import { json } from "../../test-support/api.js";
import { input } from "../../test-support/fixtures.js";
import { uploadFiles } from "./upload-files.js";

const inputs = [
  input({ json_key: "report", data_type: "file" }),
  input({ json_key: "photo", data_type: "file", required: false }),
  input({ json_key: "name", data_type: "string" }),
];

/** A client whose `POST /v1/file` answers `answer`, keeping the names of the files sent. */
function clientAnswering(answer: (name: string) => Response) {
  const sent: string[] = [];
  const client = createSkillrunClient({
    baseUrl: "http://dashboard.test/v1",
    apiKey: "sk_test",
    fetch: async (request: Request) => {
      const file = (await request.formData()).get("file") as File;
      sent.push(file.name);
      return answer(file.name);
    },
  });
  return { client, sent };
}

describe("uploading the run form's files", () => {
  it("uploads each chosen file as multipart and keeps its id; inputs without a file are skipped", async () => {
    const { client, sent } = clientAnswering((name) => json({ id: `file_${name}` }, 201));
    const draft = { report: new File(["a,b\n"], "report.csv"), photo: null, name: "x" };
    expect(await uploadFiles(client, inputs, draft)).toEqual({
      ids: { report: "file_report.csv" },
      issues: {},
    });
    expect(sent).toEqual(["report.csv"]);
  });

  it("names the input whose upload was refused, with the server's reason", async () => {
    const { client } = clientAnswering(() => json({ detail: "The file is too large" }, 413));
    const draft = { report: new File(["x"], "big.bin"), photo: null, name: "" };
    expect(await uploadFiles(client, inputs, draft)).toEqual({
      ids: {},
      issues: { report: "The upload failed: The file is too large" },
    });
  });
});

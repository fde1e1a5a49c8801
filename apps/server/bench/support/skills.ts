/** The skill of the API and pipeline benchmarks: one `set` step, nothing else. */
export const ONE_SET_SKILL = `
id: skill_one_set
name: One set step
inputs:
  - { json_key: n, data_type: number, default: 1 }
steps:
  - set: { doubled: "{{ inputs.n * 2 }}" }
`;

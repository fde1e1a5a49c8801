/** Skills several worker tests run, as YAML for `importSkillYaml`. */

/** Doubles `n` and logs it: a run that ends in a moment. */
export const QUICK_SKILL = `
id: skill_quick
name: Quick
inputs:
  - { json_key: n, data_type: number }
steps:
  - set: { double: "{{ inputs.n * 2 }}" }
  - log: "{{ inputs.n }} doubled is {{ data.double }}"
`;

/** Logs, then waits 30 s in step `nap`: a run to cancel, or to lose a worker under. */
export const SLEEPY_SKILL = `
id: skill_sleepy
name: Sleepy
steps:
  - log: going to sleep
  - id: nap
    wait: 30s
`;

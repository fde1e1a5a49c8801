import { describe, expect, it } from "vitest";
import { SkillDefinitionError, type SkillDefinitionIssue } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

function issuesOf(text: string): SkillDefinitionIssue[] {
  try {
    parseSkillDefinition(text, "skill.yaml");
  } catch (error) {
    if (error instanceof SkillDefinitionError) return [...error.issues];
    throw error;
  }
  throw new Error("expected a SkillDefinitionError");
}

function issue(line: number, column: number, path: string, message: string): SkillDefinitionIssue {
  return { file: "skill.yaml", line, column, path, message };
}

const ROOTS = "expressions read inputs, data, vars, steps, secrets and run";

describe("an import refuses an input no declaration has", () => {
  it("suggesting the input meant, at the misspelt name inside the string", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: username, data_type: string }
  - { json_key: password, data_type: string }
steps:
  - log: "Hi {{ inputs.usernme }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(7, 24, "steps/0/log", 'unknown input "usernme" (did you mean "username"?)'),
    ]);
  });

  it("listing the declared inputs when none is close", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: username, data_type: string }
  - { json_key: password, data_type: string }
steps:
  - fill: { selector: "#otp", value: "{{ inputs.otp }}" }
`;
    expect(issuesOf(text)).toEqual([
      issue(
        7,
        49,
        "steps/0/fill/value",
        'unknown input "otp" (the skill\'s inputs: username, password)',
      ),
    ]);
  });

  it("saying the skill declares none", () => {
    const text = `id: s
name: S
steps:
  - goto: "{{ inputs.url }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(4, 22, "steps/0/goto", 'unknown input "url" (the skill declares no inputs)'),
    ]);
  });

  it("wherever a template is: a bare if, call inputs, for_each items and output", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: user, data_type: string }
steps:
  - if: inputs.usr != ""
    call: { skill: skill_login, inputs: { user: "{{ inputs.uesr }}" } }
  - for_each:
      items: "{{ inputs.rows }}"
      steps:
        - log: "{{ vars.item }}"
output:
  who: "{{ inputs.users }}"
`;
    const meant = 'unknown input "%s" (did you mean "user"?)';
    expect(issuesOf(text)).toEqual([
      issue(6, 16, "steps/0/if", meant.replace("%s", "usr")),
      issue(7, 60, "steps/0/call/inputs/user", meant.replace("%s", "uesr")),
      issue(9, 25, "steps/1/for_each/items", 'unknown input "rows" (the skill\'s inputs: user)'),
      issue(13, 19, "output/who", meant.replace("%s", "users")),
    ]);
  });
});

describe("an import refuses a step id", () => {
  it("that no step has, suggesting the one meant or listing them", () => {
    const text = `id: s
name: S
steps:
  - id: fetch_order
    http: { url: "https://shop.test/order" }
  - set: { status: "{{ steps.fetch_ordr.status }}" }
  - set: { total: "{{ steps.order.body.total }}" }
`;
    expect(issuesOf(text)).toEqual([
      issue(6, 30, "steps/1/set/status", 'unknown step "fetch_ordr" (did you mean "fetch_order"?)'),
      issue(7, 29, "steps/2/set/total", 'unknown step "order" (step ids: fetch_order)'),
    ]);
  });

  it("when no step has an id at all", () => {
    const text = `id: s
name: S
steps:
  - http: { url: "https://shop.test/order" }
  - log: "{{ steps.http.status }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(5, 20, "steps/1/log", 'unknown step "http" (no step has an id)'),
    ]);
  });

  it("defined later in the file, naming where", () => {
    const text = `id: s
name: S
steps:
  - log: "{{ steps.fetch.status }}"
  - repeat:
      max: 2
      steps:
        - id: fetch
          http: { url: "https://shop.test/" }
`;
    expect(issuesOf(text)).toEqual([
      issue(
        4,
        20,
        "steps/0/log",
        'step "fetch" is defined later, at steps/1/repeat/steps/0; a step can only read steps before it',
      ),
    ]);
  });

  it("later in its own loop's body, and in a for_each's items reading its body", () => {
    const text = `id: s
name: S
steps:
  - for_each:
      items: "{{ steps.page.rows }}"
      steps:
        - log: "{{ steps.page.rows }}"
        - id: page
          http: { url: "https://shop.test/" }
`;
    const later =
      'step "page" is defined later, at steps/0/for_each/steps/1; a step can only read steps before it';
    expect(issuesOf(text)).toEqual([
      issue(5, 24, "steps/0/for_each/items", later),
      issue(7, 26, "steps/0/for_each/steps/0/log", later),
    ]);
  });

  it("that is the step itself, in its if or its action", () => {
    const text = `id: s
name: S
steps:
  - id: poll
    if: steps.poll.status != 200
    http: { url: "https://shop.test/{{ steps.poll.next }}" }
`;
    const itself = 'step "poll" is this step; a step cannot read its own result';
    expect(issuesOf(text)).toEqual([
      issue(5, 15, "steps/0/if", itself),
      issue(6, 46, "steps/0/http/url", itself),
    ]);
  });

  it("of a block around the step reading it", () => {
    const text = `id: s
name: S
steps:
  - id: pages
    repeat:
      max: 3
      steps:
        - log: "round {{ steps.pages.iterations }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(
        8,
        32,
        "steps/0/repeat/steps/0/log",
        'step "pages" is a block around this step; its result is set only when the block ends',
      ),
    ]);
  });
});

describe("an import refuses a variable", () => {
  it("that nothing writes, suggesting one that something does", () => {
    const text = `id: s
name: S
steps:
  - let: { rows: [] }
  - exists: { selector: "a[rel=next]", save_as: vars.has_next }
  - log: "{{ $count(vars.row) }} {{ vars.has_nxt }}"
  - set: { total: "{{ vars.total ?: 0 }}" }
`;
    expect(issuesOf(text)).toEqual([
      issue(
        6,
        26,
        "steps/2/log",
        'variable "row" is never written (did you mean "rows"?); write it with let',
      ),
      issue(
        6,
        42,
        "steps/2/log",
        'variable "has_nxt" is never written (did you mean "has_next"?); write it with let',
      ),
      issue(7, 28, "steps/3/set/total", 'variable "total" is never written; write it with let'),
    ]);
  });
});

describe("an import refuses a name at the start of an expression", () => {
  it("that is none of what expressions read, suggesting the one meant", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: price, data_type: number }
steps:
  - let: { rows: [] }
  - log: "{{ input.price }} {{ price }} {{ rows }} {{ total }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(
        7,
        14,
        "steps/1/log",
        `unknown name "input" at the start of an expression (${ROOTS}; did you mean "inputs"?)`,
      ),
      issue(
        7,
        32,
        "steps/1/log",
        `unknown name "price" at the start of an expression (${ROOTS}; did you mean "inputs.price"?)`,
      ),
      issue(
        7,
        44,
        "steps/1/log",
        `unknown name "rows" at the start of an expression (${ROOTS}; did you mean "vars.rows"?)`,
      ),
      issue(7, 55, "steps/1/log", `unknown name "total" at the start of an expression (${ROOTS})`),
    ]);
  });

  it("inside functions, conditions, arrays, object constructors and lambdas, and after $$", () => {
    // A lambda's body is evaluated in the context it is written in: here, the root.
    const text = `id: s
name: S
steps:
  - set:
      a: "{{ $count(dat.rows) }}"
      b: "{{ true ? [varz.x] : {'k': stps.y} }}"
      c: "{{ $$.inptus.x }}"
      d: "{{ $map([1], function($v) { $v + inptus.x }) }}"
`;
    const unknown = (name: string, meant: string) =>
      `unknown name "${name}" at the start of an expression (${ROOTS}; did you mean "${meant}"?)`;
    expect(issuesOf(text)).toEqual([
      issue(5, 21, "steps/0/set/a", unknown("dat", "data")),
      issue(6, 22, "steps/0/set/b", unknown("varz", "vars")),
      issue(6, 38, "steps/0/set/b", unknown("stps", "steps")),
      issue(7, 17, "steps/0/set/c", unknown("inptus", "inputs")),
      issue(8, 44, "steps/0/set/d", unknown("inptus", "inputs")),
    ]);
  });
});

describe("an import points at the string when the name cannot be placed inside it", () => {
  it("an escape in a double-quoted string, or a block scalar", () => {
    const text = `id: s
name: S
steps:
  - log: "a\\tb {{ vars.nope }}"
  - log: |
      {{ vars.nope }}
`;
    const never = 'variable "nope" is never written; write it with let';
    expect(issuesOf(text)).toEqual([
      issue(4, 10, "steps/0/log", never),
      issue(5, 10, "steps/1/log", never),
    ]);
  });

  it("but reads single-quoted and plain strings exactly", () => {
    const text = `id: s
name: S
steps:
  - log: '{{ vars.a }}'
  - log: x {{ vars.b }}
`;
    expect(issuesOf(text).map(({ line, column }) => [line, column])).toEqual([
      [4, 19],
      [5, 20],
    ]);
  });
});

describe("an import refuses a loop without max", () => {
  it("saying a loop always has a bound", () => {
    const text = `id: s
name: S
steps:
  - repeat:
      until: "{{ true }}"
      steps: [{ log: again }]
`;
    expect(issuesOf(text)).toEqual([
      issue(
        5,
        7,
        "steps/0/repeat",
        'missing required key "max" (a loop always has a bound: at most this many rounds; with until, the step fails past them)',
      ),
    ]);
  });
});

describe("an import accepts", () => {
  function parses(text: string) {
    expect(() => parseSkillDefinition(text, "skill.yaml")).not.toThrow();
  }

  it("names relative to an item: predicates, maps, group-by, sort and transforms", () => {
    parses(`id: s
name: S
steps:
  - let: { rows: [] }
  - set:
      big: "{{ vars.rows[$number(amount) > 100].number }}"
      amounts: "{{ $sum(vars.rows.($number(amount))) }}"
      by_kind: "{{ vars.rows{kind: $sum(amount)} }}"
      sorted: "{{ vars.rows^(>amount).number }}"
      mapped: "{{ vars.rows.{'n': number, 'at': %.updated} }}"
      cleared: "{{ vars.rows ~> |$|{'amount': 0}, ['secret']| }}"
      first: "{{ vars.rows[0].$.number }}"
      joined: "{{ $append(vars.rows, [])[$number(amount) > 100] }}"
      grouped: "{{ (vars.rows)[kind = 'a']{kind: amount} }}"
      open: "{{ data[status = 'open'].id }}"
`);
  });

  it("variables, lambdas, $$ and $ at the root, and whatever data, run and secrets hold", () => {
    parses(`id: s
name: S
inputs:
  - { json_key: min, data_type: number }
steps:
  - let: { rows: [] }
  - set:
      a: "{{ $map(vars.rows, function($row, $i) { $row.amount * $i }) }}"
      b: "{{ ($limit := $$.inputs.min; vars.rows[amount > $limit]) }}"
      c: "{{ vars.rows[amount > $$.inputs.min] }}"
      d: "{{ $.inputs.min + $count($.vars.rows) }}"
      e: "{{ data.anything.at.all & run.id & secrets.api_token }}"
      f: "{{ $lookup(inputs, 'min') }}"
      g: "{{ inputs.\`min\` }}"
`);
  });

  it("until reading its body's ids, nested blocks reading outer ids, and output reading any", () => {
    parses(`id: s
name: S
steps:
  - id: login
    http: { url: "https://shop.test/login" }
  - id: pages
    repeat:
      max: 50
      until: "{{ steps.next = false or steps.deep.status = 404 }}"
      steps:
        - id: next
          exists: { selector: "a[rel=next]" }
        - for_each:
            items: "{{ [1, 2] }}"
            steps:
              - id: deep
                http: { url: "https://shop.test/{{ steps.login.status }}/{{ vars.item }}" }
                if: steps.next
output:
  pages: "{{ steps.pages.iterations }}"
  deep: "{{ steps.deep.status }}"
  login: "{{ steps.login.status }}"
`);
  });

  it("a variable read above the let that writes it, as a loop's next round does", () => {
    parses(`id: s
name: S
steps:
  - repeat:
      max: 5
      until: "{{ vars.done }}"
      steps:
        - log: "{{ vars.total }} so far, row {{ vars.row_index }} of {{ vars.item_index }}"
        - let: { total: "{{ vars.total + 1 }}", done: "{{ vars.total > 3 }}" }
  - for_each: { items: [1], as: row, steps: [{ log: "{{ vars.row }}" }] }
  - for_each: { items: [1], steps: [{ log: "{{ vars.item }}" }] }
  - http: { url: "https://shop.test/", save_as: vars.response }
  - extract: { selector: h1, save_as: vars.title }
  - log: "{{ vars.response.status }} {{ vars.title }}"
`);
  });
});

describe("the browser's newer fields are checked like any other string", () => {
  it("evaluate's expression, a frame and switch_tab; evaluate's save_as writes a variable", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: frame, data_type: string }
steps:
  - evaluate: { expression: "document.title", save_as: vars.title }
  - evaluate: "'{{ vars.title }}' + '{{ inputs.suffx }}'"
  - click: { selector: "#pay", frame: "{{ inputs.frme }}" }
  - switch_tab: "{{ vars.tab }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(7, 48, "steps/1/evaluate", 'unknown input "suffx" (the skill\'s inputs: frame)'),
      issue(8, 50, "steps/2/click/frame", 'unknown input "frme" (did you mean "frame"?)'),
      issue(9, 26, "steps/3/switch_tab", 'variable "tab" is never written; write it with let'),
    ]);
  });
});

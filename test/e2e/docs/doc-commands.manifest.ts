/**
 * How each command written in README.md, examples/README.md and docs/*.md is shown to run. doc-commands.test.ts fails
 * on a documented command with no entry here, on an entry whose command is no longer documented,
 * and on an entry whose check fails:
 * - `run`: doc-commands.test.ts runs it as written (the CLI from source; cwd a scratch folder with
 *   the repository's examples/ and node_modules/, `files` written there first) and it must exit 0
 *   (and match `expect`, when given);
 * - `test`: the named test runs it; that file must contain `as`, the command as the test spells it
 *   (compared without whitespace);
 * - `help`: it needs what no test has here (network, a model server, half an hour): `--help` of
 *   its subcommand must list every `--option` it uses; `why` says what stops it running;
 * - `script`: an npm script that takes minutes of CPU: package.json must define it and the file
 *   it starts must exist; `why` says what it costs.
 */
export type DocCommandEntry =
  | { kind: "run"; expect?: RegExp; files?: Record<string, string> }
  | { kind: "test"; test: string; as: string }
  | { kind: "help"; subcommand: string[]; why: string }
  | { kind: "script"; script: string; why: string };

export const DOC_COMMANDS: Record<string, DocCommandEntry> = {
  // README.md
  "npm ci && npm run demo": {
    kind: "test",
    test: "test/e2e/demo/demo-quick.test.ts",
    as: '"src/cli/main.ts", "demo", "--quick"',
  },
  "npm ci && npm test": {
    kind: "script",
    script: "test",
    why: "the whole suite, this test included: what CI runs",
  },
  "envace demo [--quick] [--seed S] [--seeds N] [--jobs J] [--out DIR] [--arms sft,envace,...] [--no-testtime] [--sft-only] [--rehearsal-prompt P] [--rl-steps N] [--json]":
    { kind: "help", subcommand: ["demo"], why: "a synopsis; demo-quick.test.ts runs the demo" },
  "envace report DIR": {
    kind: "test",
    test: "test/e2e/report/render-train.test.ts",
    as: '"report", dir',
  },
  "node dist/cli/main.js eval --bench tau2:retail --policy gold --limit 5 --json": {
    kind: "run",
    expect: /"bench":"tau2:retail"/,
  },
  "node dist/cli/main.js eval --bench tau2:telecom --policy gold --limit 5 --json": {
    kind: "run",
    expect: /"bench":"tau2:telecom"/,
  },
  "node dist/cli/main.js eval --bench vita:delivery --policy noop --limit 2 --json": {
    kind: "run",
    expect: /"not_judged"/,
  },
  "node dist/cli/main.js tasks check examples/tasks/memory.jsonl examples/tasks/helpdesk.jsonl": {
    kind: "run",
    expect: /ok {4}memory-0001: .*real env mcp[\s\S]*ok {4}helpdesk-0002: .*no real env/,
  },
  "node dist/cli/main.js eval --bench tasks:examples/tasks/memory.jsonl --policy gold": {
    kind: "run",
    expect: /reward mean: 1\.0000\nenvironment: real \(mcp\)/,
  },
  "node dist/cli/main.js eval --bench tasks:examples/tasks/helpdesk.jsonl --policy gold --env none": {
    kind: "run",
    expect: /environment: rehearsed/,
  },
  "envace data fetch bfcl": {
    kind: "help",
    subcommand: ["data", "fetch"],
    why: "downloads from GitHub; test/e2e/data/cli-fetch.test.ts fetches from a local server",
  },
  "envace eval --bench bfcl:all --policy gold": { kind: "run", expect: /bfcl:all/ },
  "envace eval --bench bfcl:simple_python --policy replay:calls.jsonl --json": {
    kind: "run",
    files: { "calls.jsonl": '{"id": "simple_python_0", "calls": []}\n' },
    expect: /"bench":"bfcl:simple_python","tasks":1/,
  },
  "envace eval --bench bfcl:multi_turn_base --endpoint http://127.0.0.1:8000/v1 --model M --bfcl-mode fc": {
    kind: "help",
    subcommand: ["eval"],
    why: "needs a model server at 127.0.0.1:8000",
  },
  "npm run -s bench:worker -- --json": {
    kind: "script",
    script: "bench:worker",
    why: "trains and samples the tiny model (~1 min of both cores)",
  },
  "npm run -s bench:rollout -- --json": { kind: "run", expect: /"identical_trajectories":true/ },
  "npm run -s bench:parallel -- --json": {
    kind: "script",
    script: "bench:parallel",
    why: "two training processes under torchrun (minutes)",
  },
  "npm run -s bench:bfcl": { kind: "run", expect: /"entries_per_s"/ },
  "npm run -s bench:tokenize -- --json": {
    kind: "script",
    script: "bench:tokenize",
    why: "times a quadratic tokenizer path on purpose (~80 s)",
  },
  "npm run -s bench:blas-threading -- --json": {
    kind: "script",
    script: "bench:blas-threading",
    why: "trains the tiny model in six fresh processes (~1 min of both cores); worker/tests/test_blas_threading.py checks the setting it times",
  },
  "npm run -s fuzz -- --json": {
    kind: "script",
    script: "fuzz",
    why: "100k inputs per parser (~70 s); its slow-input threshold is wall-clock",
  },
  "npm run -s bench:testtime-headroom -- --model DIR --seed S --json": {
    kind: "script",
    script: "bench:testtime-headroom",
    why: "needs a trained demo model (a demo run's checkpoint) and ~5 min of both cores; test/e2e/bench/diagnostics-cli.test.ts runs it on a saved tiny model",
  },
  "npm run -s bench:rehearser-misses -- --model DIR --seed S --json": {
    kind: "script",
    script: "bench:rehearser-misses",
    why: "needs a trained demo model (a demo run's checkpoint); test/e2e/bench/diagnostics-cli.test.ts runs it on a saved tiny model",
  },
  "npm run -s bench:refusal-recall -- --model DIR --seed S --json": {
    kind: "script",
    script: "bench:refusal-recall",
    why: "needs a trained demo model (a demo run's checkpoint); test/e2e/bench/diagnostics-cli.test.ts runs it on a saved tiny model",
  },
  "npm run -s bench:rehearser-agreement -- --model DIR --against DIR --seed S --json": {
    kind: "script",
    script: "bench:rehearser-agreement",
    why: "needs two trained demo models (a demo run's checkpoints); test/e2e/bench/diagnostics-cli.test.ts runs it on a saved tiny model against itself",
  },
  "npm run -s bench:rehearser-agreement -- --model DIR --against DIR --seed S --calls training --json": {
    kind: "script",
    script: "bench:rehearser-agreement",
    why: "needs two trained demo models (a demo run's checkpoints); test/e2e/bench/diagnostics-cli.test.ts runs --calls training on a saved tiny model against itself",
  },
  "npm run -s bench:sft-micro-batch -- --json": {
    kind: "test",
    test: "test/e2e/bench/sft-micro-batch-cli.test.ts",
    as: '"--tokens", "worker,512", "--json"',
  },
  // examples/README.md: the test runs the example through the CLI shortened to 2 steps, then
  // --resume's it to a third
  "npm run build && node dist/cli/main.js train --config examples/rehearsal.yaml --out runs/rehearsal": {
    kind: "test",
    test: "test/e2e/train/rehearsal-example.test.ts",
    as: 'join(root, "examples", "rehearsal.yaml")',
  },
  "node dist/cli/main.js train --config examples/rehearsal.yaml --out runs/rehearsal --resume": {
    kind: "test",
    test: "test/e2e/train/rehearsal-example.test.ts",
    as: '...(resume ? ["--resume"] : [])',
  },
  // docs/tasks.md
  "npx envace tasks schema --out task.schema.json": { kind: "run" },
  'npx envace tasks import examples/tasks/memory-transcripts.jsonl --format openai --domain memory --tools examples/tasks/memory-tools.json --checklists examples/tasks/memory-checklists.jsonl --env \'{"kind":"mcp","command":"node","args":["node_modules/@modelcontextprotocol/server-memory/dist/index.js"],"env":{"MEMORY_FILE_PATH":"${EPISODE_DIR}/memory.jsonl"}}\' --out runs/memory.jsonl':
    { kind: "test", test: "test/e2e/tasks/docs-commands.test.ts", as: "## Three commands" },
  "npx envace tasks check runs/memory.jsonl examples/tasks/helpdesk.jsonl": {
    kind: "test",
    test: "test/e2e/tasks/docs-commands.test.ts",
    as: "## Three commands",
  },
  "npx envace eval --bench tasks:runs/memory.jsonl --policy gold": {
    kind: "test",
    test: "test/e2e/tasks/docs-commands.test.ts",
    as: "## Three commands",
  },
  "npx envace eval --bench tasks:examples/tasks/helpdesk.jsonl --policy gold --env none": {
    kind: "test",
    test: "test/e2e/tasks/docs-commands.test.ts",
    as: "## Three commands",
  },
  "npx envace eval --bench tasks:examples/tasks/memory.jsonl --policy gold --rehearsal parallel:2 --json": {
    kind: "test",
    test: "test/e2e/tasks/rehearsal.test.ts",
    as: "rehearses privately, then commits once in the real MCP world",
  },
};

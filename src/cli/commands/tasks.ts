import { readFileSync, writeFileSync } from "node:fs";
import { basename, extname } from "node:path";
import type { Command } from "commander";
import { EnvaceError } from "../../core/errors.js";
import { TaskEnvZ, type Task } from "../../core/task.js";
import type { ToolSchema } from "../../core/tools.js";
import { loadTasks } from "../../rollout/load-tasks.js";
import { checkEnvTools } from "../../tasks/check-env-tools.js";
import {
  attachChecklists,
  checkTask,
  importMcpRecording,
  importOpenAITranscripts,
  taskJsonSchema,
  type ImportResult,
  type TaskCheck,
} from "../../tasks/index.js";

/** `envace tasks …`: the task format's JSON Schema, checking task files, importing logs as tasks. */
export function register(program: Command): void {
  const tasks = program
    .command("tasks")
    .description(
      "Task files: their JSON Schema, checking them, and importing logs as tasks (docs/tasks.md).",
    );

  tasks
    .command("schema")
    .description("Print the JSON Schema of one task (one line of a JSONL task file).")
    .option("--out <file>", "write it to a file instead of stdout")
    .action((o: { out?: string }) => {
      const text = JSON.stringify(taskJsonSchema(), null, 2) + "\n";
      if (o.out) writeFileSync(o.out, text);
      else process.stdout.write(text);
    });

  tasks
    .command("check")
    .description("Validate task files and say what each task can be used for.")
    .addHelpText(
      "after",
      [
        "",
        "Checks the schema (unknown fields are errors), every rule, example and traced call",
        "against the task's tools, and checklists against the user turns; reports per task",
        "the SFT examples per role, whether rehearsal RL gets a reward, the real environment",
        "and whether a judge is needed. Exits 1 when a file has errors.",
      ].join("\n"),
    )
    .argument("<files...>", "JSONL task files")
    .option("--json", "print one JSON object: {files: [{file, error?, tasks: [...]}], ok}")
    .option(
      "--connect",
      "also start each task's real environment (an MCP server's command runs) and compare its tools",
    )
    .action(async (files: string[], o: { json?: boolean; connect?: boolean }) => {
      const reports = await Promise.all(files.map((f) => checkFile(f, o.connect === true)));
      const ok = reports.every((r) => !r.error && r.tasks.every((t) => t.errors.length === 0));
      if (o.json) process.stdout.write(JSON.stringify({ ok, files: reports }) + "\n");
      else process.stdout.write(reports.map(formatReport).join(""));
      process.exitCode = ok ? 0 : 1;
    });

  tasks
    .command("import")
    .description("Turn logs into tasks: OpenAI chat-completion transcripts or MCP recordings.")
    .addHelpText(
      "after",
      [
        "",
        "Formats:",
        "  openai          JSONL, one session a line: {messages, tools?} (or a logged",
        "                  {request, response} pair) with assistant tool_calls and tool",
        "                  results. One task per line: its calls become examples, the",
        "                  conversation a trace (SFT for both roles).",
        "  mcp-recording   JSONL of recorded calls {name, arguments, result} (what",
        "                  recordingEnvironment writes). One task; give --user-turn.",
        "",
        "Checklists come from --checklists FILE or are left for you to write; the",
        "command says which, and what else it had to guess (tool schemas, user turns).",
      ].join("\n"),
    )
    .argument("<file>", "the log")
    .requiredOption("--format <format>", "openai | mcp-recording")
    .option("--domain <name>", "domain of the tasks (default: the file's name)")
    .option("--id-prefix <prefix>", "task ids are PREFIX-0001, … (default: the domain)")
    .option("--tools <file>", "tool schemas (JSON array, e.g. from envace mcp tools --json)")
    .option("--checklists <file>", 'JSONL of {"id", "checklists"}; a line without id applies to all tasks')
    .option(
      "--env <json>",
      'the real environment, e.g. \'{"kind":"mcp","command":"node","args":["server.js"]}\'',
    )
    .option("--user-turn <text>", "user turn for an mcp-recording task (repeatable)", collect, [])
    .option("--out <file>", "write the tasks here (default: stdout)")
    .option("--json", "print a JSON summary on stdout (needs --out)")
    .action((file: string, o: ImportCliOptions) => {
      const { result, notes } = runImport(file, o);
      const jsonl = result.tasks.map((t) => JSON.stringify(t)).join("\n") + "\n";
      if (o.out) writeFileSync(o.out, jsonl);
      else if (o.json)
        throw new EnvaceError("INVALID_CONFIG", "--json needs --out (the tasks go to stdout otherwise)");
      else process.stdout.write(jsonl);
      const summary = {
        tasks: result.tasks.length,
        examples: result.tasks.reduce((a, t) => a + t.examples.length, 0),
        traces: result.tasks.reduce((a, t) => a + t.traces.length, 0),
        with_checklists: result.tasks.filter((t) => t.checklists.length > 0).length,
        ...(o.out ? { out: o.out } : {}),
        notes,
      };
      if (o.json) process.stdout.write(JSON.stringify(summary) + "\n");
      else {
        const line = `imported ${summary.tasks} tasks (${summary.examples} recorded calls, ${summary.traces} traces, ${summary.with_checklists} with checklists)${o.out ? ` into ${o.out}` : ""}\n`;
        // With the tasks on stdout, everything else goes to stderr.
        (o.out ? process.stdout : process.stderr).write(line + notes.map((n) => `  ${n}\n`).join(""));
      }
    });
}

interface ImportCliOptions {
  format: string;
  domain?: string;
  idPrefix?: string;
  tools?: string;
  checklists?: string;
  env?: string;
  userTurn: string[];
  out?: string;
  json?: boolean;
}

function runImport(file: string, o: ImportCliOptions): { result: ImportResult; notes: string[] } {
  const text = readText(file);
  const domain = o.domain ?? basename(file, extname(file));
  const opts = {
    domain,
    idPrefix: o.idPrefix ?? domain,
    ...(o.tools ? { tools: readTools(o.tools) } : {}),
    ...(o.env ? { env: parseEnv(o.env) } : {}),
  };
  let result: ImportResult;
  if (o.format === "openai") result = importOpenAITranscripts(text, file, opts);
  else if (o.format === "mcp-recording")
    result = importMcpRecording(text, file, { ...opts, userTurns: o.userTurn });
  else throw new EnvaceError("INVALID_CONFIG", `unknown --format "${o.format}"; use openai or mcp-recording`);
  if (result.tasks.length === 0) throw new EnvaceError("INVALID_TASK_FILE", `${file}: no sessions to import`);
  const notes: string[] = [];
  if (o.checklists) {
    const { missing } = attachChecklists(result.tasks, readText(o.checklists), o.checklists);
    notes.push(
      missing.length === 0
        ? `checklists attached from ${o.checklists}`
        : `checklists attached from ${o.checklists}; none for: ${missing.join(", ")}`,
    );
  } else {
    notes.push(
      "no checklists: rewards are 0 until you add them (--checklists FILE, or edit the tasks; docs/tasks.md)",
    );
  }
  if (result.inferredTools.length > 0) {
    notes.push(
      `tool schemas inferred from the recorded calls for ${result.inferredTools.length} task(s): pass --tools FILE for real ones`,
    );
  }
  if (result.placeholderTurns.length > 0) {
    notes.push(
      `placeholder user turn in ${result.placeholderTurns.join(", ")}: replace it (or pass --user-turn)`,
    );
  }
  if (!o.env)
    notes.push("no env: the tasks can be trained in rehearsal mode but not evaluated for real (--env)");
  return { result, notes };
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `cannot read ${path}: ${(e as Error).message}`);
  }
}

function readTools(path: string): ToolSchema[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readText(path));
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `${path}: not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new EnvaceError("INVALID_CONFIG", `${path}: expected a JSON array of tools`);
  return raw as ToolSchema[];
}

function parseEnv(text: string): Task["env"] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `--env: not valid JSON: ${(e as Error).message}`);
  }
  const env = TaskEnvZ.safeParse(raw);
  if (!env.success) {
    const issue = env.error.issues[0]!;
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
    throw new EnvaceError("INVALID_CONFIG", `--env: field ${["env", ...path].join(".")}: ${issue.message}`);
  }
  return env.data;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface FileReport {
  file: string;
  error?: string;
  tasks: TaskCheck[];
}

async function checkFile(file: string, connect: boolean): Promise<FileReport> {
  let tasks: Task[];
  try {
    tasks = await loadTasks(file);
  } catch (e) {
    return { file, error: (e as Error).message, tasks: [] };
  }
  const checks = tasks.map(checkTask);
  if (connect) {
    const env = await checkEnvTools(tasks);
    for (const c of checks) {
      c.errors.push(...(env.get(c.id)?.errors ?? []));
      c.warnings.push(...(env.get(c.id)?.warnings ?? []));
    }
  }
  return { file, tasks: checks };
}

function formatReport(r: FileReport): string {
  if (r.error) return `${r.file}: ERROR ${r.error}\n`;
  const lines = [`${r.file}: ${r.tasks.length} tasks`];
  for (const t of r.tasks) {
    const u = t.uses;
    const uses = [
      `sft act ${u.sft_act}, rehearse ${u.sft_rehearse}`,
      u.rehearsal_rl ? "rehearsal RL" : "no RL (no checklists)",
      u.real_env ? `real env ${u.real_env}` : "no real env",
      u.judge_needed ? "judge needed" : "rules only",
    ].join(" · ");
    lines.push(`  ${t.errors.length ? "ERROR" : "ok   "} ${t.id}: ${uses}`);
    for (const e of t.errors) lines.push(`        error: ${e}`);
    for (const w of t.warnings) lines.push(`        warning: ${w}`);
  }
  const bad = r.tasks.filter((t) => t.errors.length > 0).length;
  lines.push(bad ? `  ${bad} task(s) with errors` : "  no errors");
  return lines.join("\n") + "\n";
}

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { armResultKey } from "../../../src/demo/arm-result-file.js";
import { armSpecs } from "../../../src/demo/arms.js";
import { codeFingerprint, codeVersion } from "../../../src/demo/code-version.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";

// A kept arm result is reused only by the code that made it: its key carries this fingerprint.
describe("codeFingerprint", () => {
  const tree = () => {
    const root = mkdtempSync(join(tmpdir(), "envace-code-"));
    mkdirSync(join(root, "src", "demo"), { recursive: true });
    mkdirSync(join(root, "worker", "envace_worker", "__pycache__"), { recursive: true });
    writeFileSync(join(root, "src", "demo", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(root, "worker", "envace_worker", "cli.py"), "x = 1\n");
    return root;
  };
  const dirs = ["src", "worker/envace_worker"];

  it("is the same for the same code, and changes with any code file's bytes or name", () => {
    const root = tree();
    const before = codeFingerprint(root, dirs);
    expect(before).toMatch(/^[0-9a-f]{16}$/);
    expect(codeFingerprint(tree(), dirs)).toBe(before);

    writeFileSync(join(root, "worker", "envace_worker", "cli.py"), "x = 2\n");
    const pyChanged = codeFingerprint(root, dirs);
    expect(pyChanged).not.toBe(before);

    writeFileSync(join(root, "src", "demo", "b.ts"), "export const b = 1;\n");
    expect(codeFingerprint(root, dirs)).not.toBe(pyChanged);
  });

  it("ignores what does not run: source maps, declarations, bytecode", () => {
    const root = tree();
    const before = codeFingerprint(root, dirs);
    writeFileSync(join(root, "src", "demo", "a.js.map"), "{}\n");
    writeFileSync(join(root, "src", "demo", "a.d.ts"), "export declare const a: number;\n");
    writeFileSync(join(root, "worker", "envace_worker", "__pycache__", "cli.cpython-312.py"), "junk\n");
    expect(codeFingerprint(root, dirs)).toBe(before);
  });

  it("is part of the arm-result key of this package's code", () => {
    const version = codeVersion();
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(codeVersion()).toBe(version); // computed once a process
    const spec = armSpecs(QUICK_PLAN.rl.klAnchor)[0]!;
    const key = (plan = QUICK_PLAN, code = version) =>
      armResultKey({ plan, seed: 0, spec, sftDir: "/c/sft-k", testTime: false, code });
    expect(key()).toBe(key());
    expect(key({ ...QUICK_PLAN, curveTasks: QUICK_PLAN.curveTasks + 1 })).not.toBe(key());
    // another version of the code redoes the arm
    expect(key(QUICK_PLAN, "0123456789abcdef")).not.toBe(key(QUICK_PLAN, "fedcba9876543210"));
    expect(key(QUICK_PLAN, "0123456789abcdef")).not.toBe(key());
  });
});

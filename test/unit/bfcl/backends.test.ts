import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCategory } from "../../../src/bench/bfcl/load.js";
import { bindArguments, m } from "../../../src/envs/bfcl/backend.js";
import { BackendSession } from "../../../src/envs/bfcl/executor.js";
import { lnCorrect } from "../../../src/envs/bfcl/py-math.js";
import { PyRandom } from "../../../src/envs/bfcl/py-random.js";
import { newDict, PyFloat } from "../../../src/envs/bfcl/py-value.js";
import { BFCL_DIR } from "./data.js";

describe("CPython random.Random port", () => {
  // Values printed by CPython 3.11 for the same seeds and calls.
  it("draws CPython's numbers", () => {
    const r = new PyRandom(141053);
    expect(r.randint(100000, 999999)).toBe(251675);
    expect(r.randint(100000000000, 999999999999)).toBe(391310425148);
    expect(r.randint(10000, 99999)).toBe(58617);
    expect(r.random()).toBe(0.1902534093233219);
    expect(r.uniform(-10.0, 40.0)).toBe(22.114445962457907);
    const s = new PyRandom(200191);
    expect([s.randint(10000, 99999), s.randint(10000, 99999), s.randint(10000, 99999)]).toEqual([
      67410, 41772, 24547,
    ]);
    const z = new PyRandom(0);
    expect(z.getrandbits(70)).toBe(892550237140533643213n);
    expect(z.choice([1, 2, 3, 4, 5])).toBe(4);
  });
});

describe("backends: seeded ids equal upstream's", () => {
  it("TravelAPI's first access token from its default seed is 251675", () => {
    const s = new BackendSession(newDict(), ["TravelAPI"], false);
    const out = s.executeOne(
      "authenticate_travel(client_id='c', client_secret='s', refresh_token='r', grant_type='read_write', user_first_name='A', user_last_name='B')",
    );
    expect(out).toBe(
      '{"expires_in": 2, "access_token": "251675", "token_type": "Bearer", "scope": "read_write"}',
    );
  });
  it("MessageAPI's first message id from its default seed is 67410", () => {
    const s = new BackendSession(newDict(), ["MessageAPI"], false);
    s.executeOne("message_login(user_id='USR001')");
    expect(s.executeOne("send_message(receiver_id='USR002', message='hi')")).toBe(
      '{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to \'USR002\' successfully."}',
    );
  });
});

describe("executor: Python's call semantics without eval", () => {
  const s = () => new BackendSession(newDict(), ["GorillaFileSystem", "MathAPI"], false);
  it("binds arguments and fails as CPython does", () => {
    expect(s().executeOne("cd()")).toBe(
      "Error during execution: GorillaFileSystem.cd() missing 1 required positional argument: 'folder'",
    );
    expect(s().executeOne("cd(folder='a', x=1)")).toBe(
      "Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument 'x'",
    );
    expect(s().executeOne("cd('a', 'b')")).toBe(
      "Error during execution: GorillaFileSystem.cd() takes 2 positional arguments but 3 were given",
    );
    expect(s().executeOne("tail('f', 1, 2)")).toBe(
      "Error during execution: GorillaFileSystem.tail() takes from 2 to 3 positional arguments but 4 were given",
    );
    const spec = m([["a"], ["b"], ["c"]], () => null);
    expect(() => bindArguments("X.f", spec, [], newDict())).toThrow(
      "missing 3 required positional arguments: 'a', 'b', and 'c'",
    );
  });
  it("refuses unknown and blocked names and never evaluates", () => {
    expect(s().executeOne("foo(a=1)")).toBe("Error during execution: name 'foo' is not defined");
    expect(s().executeOne("os.remove(path='x')")).toBe(
      "Error during execution: Function call remove is not allowed.",
    );
    expect(s().executeOne("__import__('os').system('touch /tmp/pwned')")).toBe(
      "Error during execution: invalid syntax (<string>, line 1)",
    );
  });
  it("prints results as upstream: dicts as json.dumps, None and lists as str()", () => {
    const x = s();
    expect(x.executeOne("mkdir(dir_name='d')")).toBe("None");
    expect(x.executeOne("add(a=2, b=3)")).toBe('{"result": 5}');
    expect(x.executeOne("add(a=2.0, b=3)")).toBe('{"result": 5.0}');
    expect(x.executeOne("logarithm(value=20, base=10, precision=2)")).toBe("{'result': mpf('1.3027')}");
    expect(x.executeOne("logarithm(value=980.0, base=20, precision=10)")).toBe(
      "{'result': mpf('2.299121531134')}",
    );
    expect(x.executeOne("mean(numbers=[1, 2, 4])")).toBe('{"result": 2.3333333333333335}');
    expect(x.executeOne("ls()")).toBe('{"current_directory_content": ["d"]}');
  });
});

interface RecordedExecution {
  id: string;
  turns: string[][];
  upstream_results: string[][];
}

describe("backends: results recorded from upstream's Python backends", () => {
  // Ground-truth calls of 30 multi_turn_base entries covering all eight classes, each followed by
  // a perturbed copy (argument dropped, bogus keyword, wrong value or type, extra positional,
  // unknown function), run through upstream's execute_multi_turn_func_call (commit 6ea5797).
  const cases = JSON.parse(
    readFileSync(new URL("./upstream-executions.json", import.meta.url), "utf8"),
  ) as RecordedExecution[];
  const { entries } = loadCategory(BFCL_DIR, "multi_turn_base");
  for (const c of cases) {
    it(`${c.id}: every result string equals upstream's`, () => {
      const e = entries.find((x) => x.id === c.id)!;
      const session = new BackendSession(e.initial_config!, e.involved_classes!, false);
      c.turns.forEach((calls, t) => expect(session.execute(calls)).toEqual(c.upstream_results[t]));
    });
  }
});

describe("Python number semantics in backends", () => {
  it("keeps int and float apart and multiplies sequences as Python", () => {
    const x = new BackendSession(newDict(), ["MathAPI"], false);
    expect(x.executeOne("multiply(a=2, b=3)")).toBe('{"result": 6}');
    expect(x.executeOne("divide(a=6, b=3)")).toBe('{"result": 2.0}');
    expect(x.executeOne("divide(a=6, b=0)")).toBe('{"error": "Cannot divide by zero"}');
    expect(new PyFloat(2).value).toBe(2);
  });
});

describe("MemoryAPI_kv: results recorded from upstream's backend", () => {
  // 12 random sequences of memory calls (adds, replaces, removals, BM25 key searches, limits and
  // key-format errors) run through upstream's MemoryAPI_kv with rank_bm25 0.2.2.
  const cases = JSON.parse(
    readFileSync(new URL("./upstream-memory-kv.json", import.meta.url), "utf8"),
  ) as Array<{
    calls: string[];
    upstream_results: string[];
  }>;
  cases.forEach((c, i) => {
    it(`sequence ${i}: every result string equals upstream's`, () => {
      const s = new BackendSession(newDict(), ["MemoryAPI_kv"], false);
      expect(s.execute(c.calls)).toEqual(c.upstream_results);
    });
  });
  it("ln is correctly rounded where V8's Math.log is not (ln 3)", () => {
    expect(lnCorrect(3)).toBe(1.0986122886681098);
    expect(lnCorrect(51 / 2)).toBe(3.2386784521643803);
  });
});

describe("MemoryAPI_rec_sum: results recorded from upstream's backend", () => {
  // Random sequences of appends, updates, replaces (including the empty text, which Python's
  // str.replace inserts between every character), retrievals and clears, run through upstream's class.
  const cases = JSON.parse(
    readFileSync(new URL("./upstream-memory-rec-sum.json", import.meta.url), "utf8"),
  ) as Array<{
    calls: string[];
    upstream_results: string[];
  }>;
  cases.forEach((c, i) => {
    it(`sequence ${i}: every result string equals upstream's`, () => {
      const s = new BackendSession(newDict(), ["MemoryAPI_rec_sum"], false);
      expect(s.execute(c.calls)).toEqual(c.upstream_results);
    });
  });
});

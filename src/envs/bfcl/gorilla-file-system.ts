import { Backend, m, type MethodSpec } from "./backend.js";
import { longContextValue, type LongContextData } from "./long-context.js";
import { compare, dict, formatFixed, PyError, sliceFrom, splitlines, text, truthy } from "./py-ops.js";
import { newDict, type PyDict, type PyValue } from "./py-value.js";

/**
 * Port of upstream's `GorillaFileSystem` (`gorilla_file_system.py`): an in-memory tree with
 * unix-like commands, their result dicts and error strings. Quirks kept: `mv`/`cp` of a
 * directory share (`mv`) or shallow-copy (`cp`) the contents mapping, so children keep their old
 * parent; `pwd` walks to the top including the root's name.
 */
export class PyFile {
  constructor(
    public name: string,
    public content = "",
  ) {}
}

export class PyDirectory {
  contents = new Map<string, PyFile | PyDirectory>();
  constructor(
    public name: string,
    public parent: PyDirectory | null,
  ) {}
  addFile(name: string, content = ""): void {
    if (this.contents.has(name))
      throw new PyError("ValueError", `File '${name}' already exists in directory '${this.name}'.`);
    this.contents.set(name, new PyFile(name, content));
  }
  addDirectory(name: string): void {
    if (this.contents.has(name)) {
      throw new PyError("ValueError", `Directory '${name}' already exists in directory '${this.name}'.`);
    }
    this.contents.set(name, new PyDirectory(name, this));
  }
  get(name: string): PyFile | PyDirectory | undefined {
    return name === "." ? this : this.contents.get(name);
  }
}

/** The tree as plain values, so Python's `Directory.__eq__` (name + contents) is `pyEqual`. */
function treeValue(item: PyFile | PyDirectory): PyValue {
  if (item instanceof PyFile)
    return dict([
      ["file", item.name],
      ["content", item.content],
    ]);
  const contents = newDict();
  for (const [k, v] of item.contents) contents[k] = treeValue(v);
  return dict([
    ["directory", item.name],
    ["contents", contents],
  ]);
}

const INVALID_CHARS = '|/\\?%*:"><';
const err = (msg: string): PyDict => dict([["error", msg]]);

export class GorillaFileSystem extends Backend {
  readonly className = "GorillaFileSystem";
  root = new PyDirectory("/", null);
  longContext = false;
  private currentDir = this.root;
  private cached?: Record<string, MethodSpec>;

  constructor(private readonly longContextData?: LongContextData) {
    super();
  }

  loadScenario(config: PyDict, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new PyDirectory("/", null);
    const root = config.root as PyDict | undefined;
    if (root) {
      const name = Object.keys(root)[0]!;
      this.root = this.loadDirectory((root[name] as PyDict).contents as PyDict, new PyDirectory(name, null));
    }
    this.currentDir = this.root;
  }

  private loadDirectory(current: PyDict, parent: PyDirectory): PyDirectory {
    let bottommost = true;
    for (const [name, raw] of Object.entries(current)) {
      const data = raw as PyDict;
      if (data.type === "directory") {
        bottommost = false;
        parent.contents.set(name, this.loadDirectory(data.contents as PyDict, new PyDirectory(name, parent)));
      } else if (data.type === "file") {
        let content = data.content as string;
        if (
          this.longContext &&
          !(longContextValue(this.longContextData, "FILES_TAIL_USED") as string[]).includes(name)
        ) {
          content += longContextValue(this.longContextData, "FILE_CONTENT_EXTENSION") as string;
        }
        parent.contents.set(name, new PyFile(name, content));
      }
    }
    if (bottommost && this.longContext) {
      for (const f of longContextValue(this.longContextData, "POPULATE_FILE_EXTENSION") as string[])
        parent.addFile(f);
    }
    return parent;
  }

  publicState(): Record<string, PyValue> {
    return { root: treeValue(this.root), long_context: this.longContext };
  }

  private navigate(path: string | null): PyDirectory | PyDict {
    if (path === null || path === ".") return this.currentDir;
    if (path === "/") return this.root;
    let dir = path.startsWith("/") ? this.root : this.currentDir;
    for (const name of path.replace(/^\/+|\/+$/g, "").split("/")) {
      const next = dir.get(name);
      if (!(next instanceof PyDirectory)) return err(`cd: '${path}': No such file or directory`);
      dir = next;
    }
    return dir;
  }

  private validName(name: string): boolean {
    return ![...INVALID_CHARS].some((c) => name.includes(c));
  }

  private file(name: PyValue): PyFile | undefined {
    const item = typeof name === "string" ? this.currentDir.contents.get(name) : undefined;
    return item instanceof PyFile ? item : undefined;
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.buildMethods());
  }

  private buildMethods(): Record<string, MethodSpec> {
    const here = () => this.currentDir;
    return {
      pwd: m([], () => {
        const path: string[] = [];
        for (let d: PyDirectory | null = this.currentDir; d !== null; d = d.parent) path.push(d.name);
        return dict([["current_working_directory", "/" + path.reverse().join("/")]]);
      }),
      ls: m([["a", false]], ({ a }) => {
        let items = [...here().contents.keys()];
        if (!truthy(a!)) items = items.filter((i) => !i.startsWith("."));
        return dict([["current_directory_content", items]]);
      }),
      cd: m([["folder"]], ({ folder }) => {
        let f = text(folder!).replace(/\/+$/, "");
        if (f === "") f = "/";
        if (![".", "..", "/"].includes(f) && f.includes("/")) {
          return err(`cd: ${f}: Unsupported path. Only one folder level at a time is supported.`);
        }
        if (f === "..") {
          if (this.currentDir.parent) this.currentDir = this.currentDir.parent;
          else if (this.root === this.currentDir)
            return err("Current directory is already the root. Cannot go back.");
          else return err("cd: ..: No such directory");
          return newDict();
        }
        const target = this.navigate(f);
        if (!(target instanceof PyDirectory)) return target;
        this.currentDir = target;
        return dict([["current_working_directory", target.name]]);
      }),
      mkdir: m([["dir_name"]], ({ dir_name }) => {
        const name = text(dir_name!);
        if (!this.validName(name)) return err(`mkdir: cannot create directory '${name}': Invalid character`);
        if (here().contents.has(name)) return err(`mkdir: cannot create directory '${name}': File exists`);
        here().addDirectory(name);
        return null;
      }),
      touch: m([["file_name"]], ({ file_name }) => {
        const name = text(file_name!);
        if (!this.validName(name)) return err(`touch: cannot touch '${name}': Invalid character`);
        if (here().contents.has(name)) return err(`touch: cannot touch '${name}': File exists`);
        here().addFile(name);
        return null;
      }),
      echo: m([["content"], ["file_name", null]], ({ content, file_name }) => {
        if (file_name === null) return dict([["terminal_output", content!]]);
        const name = text(file_name!);
        if (!this.validName(name)) return err(`echo: cannot write to '${name}': Invalid character`);
        if (name === "") return dict([["terminal_output", content!]]);
        const item = here().get(name);
        if (!here().contents.has(name) || item === undefined)
          return err(`echo: cannot write to '${name}': No such file`);
        if (!(item instanceof PyFile))
          throw new PyError("AttributeError", "'Directory' object has no attribute '_write'");
        item.content = text(content!);
        return null;
      }),
      cat: m([["file_name"]], ({ file_name }) => {
        const name = text(file_name!);
        if (!this.validName(name)) return err(`cat: '${name}': Invalid character`);
        if (!here().contents.has(name)) return err(`cat: '${name}': No such file or directory`);
        const item = here().get(name);
        return item instanceof PyFile
          ? dict([["file_content", item.content]])
          : err(`cat: '${name}': Is a directory`);
      }),
      find: m(
        [
          ["path", "."],
          ["name", null],
        ],
        ({ path, name }) => {
          const p = text(path!);
          const target = this.navigate(p);
          if (!(target instanceof PyDirectory)) {
            const msg = (target.error as string | undefined) ?? "";
            return msg.startsWith("cd:") ? err(msg.replace("cd:", "find:")) : target;
          }
          const matches: string[] = [];
          const walk = (d: PyDirectory, base: string) => {
            for (const [itemName, item] of d.contents) {
              const itemPath = `${base}/${itemName}`;
              if (name === null || itemName.includes(text(name!))) matches.push(itemPath);
              if (item instanceof PyDirectory) walk(item, itemPath);
            }
          };
          walk(target, p.replace(/\/+$/, ""));
          return dict([["matches", matches]]);
        },
      ),
      wc: m([["file_name"], ["mode", "l"]], ({ file_name, mode }) => {
        if (!["l", "w", "c"].includes(mode as string)) return err(`wc: invalid mode '${text(mode!)}'`);
        const f = this.file(file_name!);
        if (f) {
          if (mode === "l")
            return dict([
              ["count", splitlines(f.content).length],
              ["type", "lines"],
            ]);
          if (mode === "w")
            return dict([
              ["count", f.content.split(/\s+/).filter((w) => w !== "").length],
              ["type", "words"],
            ]);
          return dict([
            ["count", [...f.content].length],
            ["type", "characters"],
          ]);
        }
        return err(`wc: ${text(file_name!)}: No such file or directory`);
      }),
      sort: m([["file_name"]], ({ file_name }) => {
        const f = this.file(file_name!);
        if (f)
          return dict([["sorted_content", [...splitlines(f.content)].sort(codePointCompare).join("\n")]]);
        return err(`sort: ${String(file_name)}: No such file or directory`);
      }),
      grep: m([["file_name"], ["pattern"]], ({ file_name, pattern }) => {
        const f = this.file(file_name!);
        if (f)
          return dict([["matching_lines", splitlines(f.content).filter((l) => l.includes(text(pattern!)))]]);
        return err(`grep: ${String(file_name)}: No such file or directory`);
      }),
      du: m([["human_readable", false]], ({ human_readable }) => {
        const size = (item: PyFile | PyDirectory): number =>
          item instanceof PyFile
            ? Buffer.byteLength(item.content, "utf8")
            : [...item.contents.values()].reduce((a, c) => a + size(c), 0);
        let total = size(this.currentDir);
        let out: string;
        if (truthy(human_readable!)) {
          out = "";
          for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
            if (total < 1024) {
              out = `${formatFixed(total, 2)} ${unit}`;
              break;
            }
            total /= 1024;
          }
          if (out === "") out = `${formatFixed(total, 2)} PB`;
        } else out = `${total} bytes`;
        return dict([["disk_usage", out]]);
      }),
      tail: m([["file_name"], ["lines", 10]], ({ file_name, lines }) => {
        const f = this.file(file_name!);
        if (f) {
          const content = splitlines(f.content);
          let n: PyValue = lines!;
          if (compare(n, content.length, ">")) n = content.length;
          const neg: PyValue = typeof n === "number" || typeof n === "boolean" ? -Number(n) : n;
          return dict([["last_lines", sliceFrom(content, neg).join("\n")]]);
        }
        return err(`tail: ${String(file_name)}: No such file or directory`);
      }),
      diff: m([["file_name1"], ["file_name2"]], ({ file_name1, file_name2 }) => {
        const a = this.file(file_name1!);
        const b = this.file(file_name2!);
        if (a && b) {
          const la = splitlines(a.content);
          const lb = splitlines(b.content);
          const lines: string[] = [];
          for (let i = 0; i < Math.min(la.length, lb.length); i++) {
            if (la[i] !== lb[i]) lines.push(`- ${la[i]}\n+ ${lb[i]}`);
          }
          return dict([["diff_lines", lines.join("\n")]]);
        }
        return err(`diff: ${String(file_name1)} or ${String(file_name2)}: No such file or directory`);
      }),
      mv: m([["source"], ["destination"]], ({ source, destination }) =>
        this.move(source!, destination!, false),
      ),
      cp: m([["source"], ["destination"]], ({ source, destination }) =>
        this.move(source!, destination!, true),
      ),
      rm: m([["file_name"]], ({ file_name }) => {
        const name = text(file_name!);
        if (!here().contents.has(name)) return err(`rm: cannot remove '${name}': No such file or directory`);
        here().contents.delete(name);
        return dict([["result", `'${name}' removed`]]);
      }),
      rmdir: m([["dir_name"]], ({ dir_name }) => {
        const name = text(dir_name!);
        const item = here().contents.get(name);
        if (!item) return err(`rmdir: cannot remove '${name}': No such file or directory`);
        if (!(item instanceof PyDirectory)) return err(`rmdir: cannot remove '${name}': Not a directory`);
        if (item.contents.size > 0) return err(`rmdir: cannot remove '${name}': Directory not empty`);
        here().contents.delete(name);
        return dict([["result", `'${name}' removed`]]);
      }),
    };
  }

  private move(sourceArg: PyValue, destArg: PyValue, copy: boolean): PyValue {
    const verb = copy ? "cp" : "mv";
    const verbing = copy ? "copy" : "move";
    const done = copy ? "copied" : "moved";
    const source = text(sourceArg);
    const destination = text(destArg);
    const here = this.currentDir;
    const item = here.contents.get(source);
    if (!item) return err(`${verb}: cannot ${verbing} '${source}': No such file or directory`);
    if (destination.includes("/")) {
      return err(`${verb}: path not allowed in destination. Provide only a file or directory name.`);
    }
    const place = (into: PyDirectory, name: string) => {
      if (item instanceof PyFile) into.addFile(name, item.content);
      else {
        into.addDirectory(name);
        (into.contents.get(name) as PyDirectory).contents = copy ? new Map(item.contents) : item.contents;
      }
    };
    const dest = here.contents.get(destination);
    if (dest !== undefined) {
      if (!(dest instanceof PyDirectory)) {
        return err(`${verb}: cannot ${verbing} '${source}' to '${destination}': Not a directory`);
      }
      // Upstream's cp checks for `destination/source` as a key, which never exists, so it only
      // fails later inside `_add_file` when the name is taken.
      const exists = copy ? dest.contents.has(`${destination}/${source}`) : dest.contents.has(source);
      if (exists)
        return err(`${verb}: cannot ${verbing} '${source}' to '${destination}/${source}': File exists`);
      if (!copy) here.contents.delete(source);
      place(dest, source);
      return dict([["result", `'${source}' ${done} to '${destination}/${source}'`]]);
    }
    if (!copy) here.contents.delete(source);
    place(here, destination);
    return dict([["result", `'${source}' ${done} to '${destination}'`]]);
  }
}

function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

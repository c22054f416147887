/** User turns are templates with `{slot}` holes; the scripted solver reads them back by regex. */
export function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = slots[k];
    if (v === undefined) throw new Error(`template slot {${k}} has no value`);
    return v;
  });
}

const SLOT_VALUE = "[A-Za-z0-9@_]+";

export function compileTemplate(template: string): RegExp {
  const parts = template.split(/(\{\w+\})/);
  const body = parts
    .map((p) => {
      const m = /^\{(\w+)\}$/.exec(p);
      return m ? `(?<${m[1]}>${SLOT_VALUE})` : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${body}$`);
}

export function matchTemplate(re: RegExp, text: string): Record<string, string> | undefined {
  const m = re.exec(text);
  return m ? { ...(m.groups ?? {}) } : undefined;
}

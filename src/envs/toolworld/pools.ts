/**
 * The closed entity pools every domain draws from. A tiny word-level model learns to copy an entity
 * only if it is one token, so every string here goes into the tokenizer's extra vocabulary
 * (`toolworldVocabulary`). Pool sizes follow the feasibility probe (≈40 keys, 40 owner ids, 80 item ids).
 */
export const NAMES = [
  "ana",
  "ben",
  "cara",
  "dan",
  "eva",
  "finn",
  "gus",
  "hana",
  "ivan",
  "jade",
  "kim",
  "leo",
  "mia",
  "nora",
  "omar",
  "pia",
  "quinn",
  "rosa",
  "sam",
  "tara",
  "uma",
  "vic",
  "wes",
  "xena",
  "yuri",
  "zoe",
  "abby",
  "bo",
  "cleo",
  "dora",
  "eli",
  "fay",
  "gil",
  "hugo",
  "iris",
  "jon",
  "kai",
  "lena",
  "max",
  "nina",
] as const;

export const OWNER_COUNT = 40;
export const ITEM_COUNT = 80;

export const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;

/** Every amount, total and balance is a multiple of ten in [0, 300]: one token each. */
export const NUMBERS: readonly number[] = Array.from({ length: 31 }, (_, i) => i * 10);

export function emailOf(name: string): string {
  return `${name}@mail`;
}

export function capitalised(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function ids(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
}

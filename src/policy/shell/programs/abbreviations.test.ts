/**
 * Option abbreviations, generated from the data: getopt_long accepts any unambiguous prefix of a long option
 * (`--compress-prog=sh` is `--compress-program=sh`), and awk's `-W` names a long option the same way
 * (`-We FILE` is `--exec FILE`). For every program and sub-command in the data, every prefix of every long
 * option with an effect, in every form its value takes, must be read as that option.
 */
import { describe, expect, it } from "vitest";
import { programFindings, programs } from "./index.js";
import type { CommandSpec, OptionSpec } from "./spec.js";

interface Abbreviation {
  words: string[];
  /** Index of the word that carries the option. */
  word: number;
  option: string;
  effects: ReadonlySet<string>;
}

/** The long options with an effect whose name starts with `prefix`. */
function effectsFor(spec: CommandSpec, prefix: string): Set<string> {
  return new Set(
    spec.longEffects.filter(([name]) => name.startsWith(prefix)).map(([, o]) => o.effect!.effect),
  );
}

/** The forms an option with this value kind is written in, the value `x.out` (not a sink). */
function forms(name: string, opt: OptionSpec): string[][] {
  if (opt.value === "none") return [[name]];
  if (opt.value === "optional") return [[`${name}=x.out`]];
  return [[`${name}=x.out`], [name, "x.out"]];
}

/** Every abbreviation of every long option with an effect, at every level of every program. */
function abbreviations(): Abbreviation[] {
  const out: Abbreviation[] = [];
  const walk = (spec: CommandSpec, path: string[]) => {
    for (const [full, opt] of spec.longEffects) {
      for (let end = 3; end <= full.length; end++) {
        const prefix = full.slice(0, end);
        // An exact name of another option wins over the abbreviation, as getopt does.
        if (prefix !== full && spec.options.has(prefix)) continue;
        for (const form of forms(prefix, opt))
          out.push({
            words: [...path, ...form],
            word: path.length,
            option: full,
            effects: effectsFor(spec, prefix),
          });
      }
    }
    const seen = new Set<CommandSpec>();
    for (const [name, sub] of spec.subcommands) {
      if (seen.has(sub)) continue;
      seen.add(sub);
      walk(sub, [...path, name]);
    }
  };
  for (const spec of new Set(programs().values())) walk(spec, [spec.names[0]!]);
  return out;
}

/** `-W NAME` forms for the options whose value names a long option (awk's `-W`). */
function subOptionAbbreviations(): Abbreviation[] {
  const out: Abbreviation[] = [];
  for (const spec of new Set(programs().values())) {
    for (const [flag, opt] of spec.options) {
      if (!opt.longOption) continue;
      for (const [full, target] of spec.longEffects) {
        const bare = full.slice(2);
        for (let end = 1; end <= bare.length; end++) {
          const prefix = bare.slice(0, end);
          const effects = effectsFor(spec, `--${prefix}`);
          const value = target.value === "none" || target.value === "optional" ? [] : ["x.out"];
          for (const words of [
            [flag, prefix, ...value],
            [`${flag}${prefix}`, ...value],
            ...(value.length > 0 ? [[flag, `${prefix}=x.out`], [`${flag}version,${prefix}=x.out`]] : []),
          ])
            out.push({ words: [spec.names[0]!, ...words], word: 1, option: full, effects });
        }
      }
    }
  }
  return out;
}

describe("option abbreviations, generated from the data", () => {
  const long = abbreviations();
  const sub = subOptionAbbreviations();

  it("covers every program with long options, and awk's -W", () => {
    const covered = new Set(long.map((a) => a.words[0]));
    for (const name of ["sort", "rg", "tar", "git", "sed", "awk", "npm", "make", "node", "less"])
      expect(covered, name).toContain(name);
    expect(sub.length).toBeGreaterThan(100);
  });

  it.each([
    ["long options", long],
    ["-W sub-options", sub],
  ] as const)("each abbreviation of a dangerous option is read as the option (%s)", (_what, list) => {
    const missed = list.filter(({ words, word, effects }) => {
      const found = programFindings(words).filter((f) => f.word === word);
      return !found.some((f) => effects.has(f.effect));
    });
    expect(missed.map((m) => `${m.words.join(" ")} (${m.option})`)).toEqual([]);
  });

  it("names the option in full in the reason", () => {
    expect(programFindings(["sort", "--compress-p=sh"])[0]?.reason).toBe(
      "sort --compress-program runs a program to compress temporary files (sh)",
    );
    expect(programFindings(["mawk", "-We", "x.awk"])[0]?.reason).toBe(
      "mawk -W exec runs a program file the analysis does not read (x.awk)",
    );
    expect(programFindings(["tar", "-tf", "a.tar", "--vol=n"])[0]?.reason).toBe(
      "tar --volno-file writes the volume number to a file (n)",
    );
  });
});

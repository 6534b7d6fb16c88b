import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(directory, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(directory, entry.name)]
        : [],
  );
}

/** `lodash/fp` → `lodash`, `@scope/name/sub` → `@scope/name`. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** The packages a file imports, statically or with `import()`; relative paths and Node's own modules left out. */
function importedPackages(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g)].map(
    (match) => match[1]!,
  );
  return specifiers
    .filter((specifier) => !specifier.startsWith("node:") && !builtinModules.includes(packageOf(specifier)))
    .map(packageOf);
}

describe("an install without development packages (npm ci --omit=dev)", () => {
  it("has every package that src/ imports", () => {
    const missing = sourceFiles(join(ROOT, "src")).flatMap((file) =>
      importedPackages(readFileSync(file, "utf8"))
        .filter((name) => !(name in pkg.dependencies))
        .map((name) => `${file.slice(ROOT.length + 1)}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("has what `prepare` compiles dist/ with: TypeScript and the type packages of the imported libraries", () => {
    expect(Object.keys(pkg.dependencies)).toEqual(
      expect.arrayContaining(["typescript", "@types/node", "@types/better-sqlite3", "@types/pg"]),
    );
    expect(pkg.scripts.prepare).toBe("npm run build");
    expect(pkg.scripts.build).toBe("tsc -p tsconfig.build.json");
  });

  it("reads the imports it checks", () => {
    expect(
      importedPackages(
        `import { a } from "zod";\nimport type { B } from "@langchain/core/messages";\nconst p = await import("prettier");\nimport "./local.js";\nimport { x } from "node:fs";\nimport y from "fs";`,
      ),
    ).toEqual(["zod", "@langchain/core", "prettier"]);
  });
});

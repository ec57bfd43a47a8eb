// The import-cycle check of the test command (scripts/test.sh, npm run check:imports): lib/'s modules
// and folders depend on each other one way only. docs/architecture.md draws the layers.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-file-cycles",
      comment: "A module never imports, through others, one that imports it back.",
      severity: "error",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    {
      name: "no-folder-cycles",
      comment: "A folder of lib/ never depends, through others, on one that depends on it back.",
      severity: "error",
      scope: "folder",
      from: { path: "^lib/[^/]+$" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)lib/generated/|\\.test\\.ts$|__golden__" },
    // Type-only imports count: a layer that reads another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs"] },
  },
};

// Built by scripts/build-cli.mjs from cli/main.ts; do not edit. Rebuilt by bin/bootdeck when a source is newer.
const __bootdeckRoot = require("node:path").resolve(__dirname, "..", "..");
const __bootdeckSource = (rel) => require("node:path").join(__bootdeckRoot, rel);
const __bootdeckImportMetaUrl = require("node:url").pathToFileURL(__filename).href;
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// lib/generated/prisma/internal/class.ts
async function decodeBase64AsWasm(wasmBase64) {
  const { Buffer: Buffer2 } = await import("node:buffer");
  const wasmArray = Buffer2.from(wasmBase64, "base64");
  return new WebAssembly.Module(wasmArray);
}
function getPrismaClientClass(dirname2) {
  config.dirname = dirname2;
  return runtime.getPrismaClient(config);
}
var runtime, config;
var init_class = __esm({
  "lib/generated/prisma/internal/class.ts"() {
    "use strict";
    runtime = __toESM(require("@prisma/client/runtime/client"));
    config = {
      "generator": {
        "name": "client",
        "provider": {
          "fromEnvVar": null,
          "value": "prisma-client"
        },
        "output": {
          "value": "/work/wt/dr/lib/generated/prisma",
          "fromEnvVar": null
        },
        "config": {
          "engineType": "client",
          "moduleFormat": "esm"
        },
        "binaryTargets": [
          {
            "fromEnvVar": null,
            "value": "debian-openssl-3.0.x",
            "native": true
          }
        ],
        "previewFeatures": [],
        "sourceFilePath": "/work/wt/dr/prisma/schema.prisma",
        "isCustomOutput": true
      },
      "relativePath": "../../../prisma",
      "clientVersion": "6.19.3",
      "engineVersion": "c2990dca591cba766e3b7ef5d9e8a84796e47ab7",
      "datasourceNames": [
        "db"
      ],
      "activeProvider": "sqlite",
      "postinstall": false,
      "inlineDatasources": {
        "db": {
          "url": {
            "fromEnvVar": "DATABASE_URL",
            "value": null
          }
        }
      },
      "inlineSchema": `// Bootdeck's data model. SQLite by default (one file under data/); every table is plain enough for
// PostgreSQL, so a multi-worker deployment changes the provider and URL, not the code in lib/.
// Enumerations are strings checked by zod in lib/ (SQLite has no enums).

generator client {
  provider     = "prisma-client"
  output       = "../lib/generated/prisma"
  engineType   = "client"
  moduleFormat = "esm"
}

datasource db {
  provider = "sqlite"
  url      = env("DATABASE_URL")
}

model User {
  id           String    @id // usr_\u2026
  username     String    @unique
  displayName  String
  passwordHash String // scrypt, "scrypt$N$r$p$salt$hash"
  role         String    @default("admin") // admin | lead | support
  disabled     Boolean   @default(false)
  createdAt    DateTime  @default(now())
  updatedAt    DateTime  @updatedAt
  sessions     Session[]
  runs         Run[]
}

model Session {
  id         String   @id // sha-256 of the cookie token; the token itself is never stored
  userId     String
  user       User     @relation(fields: [userId], references: [id], onDelete: Cascade)
  csrfToken  String
  createdAt  DateTime @default(now())
  expiresAt  DateTime
  lastSeenAt DateTime @default(now())
  ip         String?
  userAgent  String?

  @@index([userId])
}

// An SSH credential. The secret parts are AES-256-GCM ciphertexts (lib/secrets); only the
// fingerprint ever leaves the server. Hosts refer to credentials by name in the definition.
model Credential {
  id               String   @id // cred_\u2026
  clusterId        String
  cluster          Cluster  @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  name             String
  kind             String // privateKey | password | agent
  secretCipher     String? // private key or password, encrypted
  passphraseCipher String? // private key passphrase, encrypted
  fingerprint      String? // SHA256:\u2026 of the public key
  createdAt        DateTime @default(now())
  updatedAt        DateTime @updatedAt

  @@unique([clusterId, name])
}

// The definition document (validated by lib/cluster/definition.ts) is the source of truth for what
// the cluster should be; Host rows carry per-host state the engine learns (pinned key, facts).
model Cluster {
  id                String        @id // cl_\u2026
  name              String        @unique
  kubernetesVersion String
  definition        String // JSON ClusterDefinition, without secrets
  createdAt         DateTime      @default(now())
  updatedAt         DateTime      @updatedAt
  activeRunId       String? // the one run allowed at a time; set and cleared by guarded updates
  revision          Int           @default(0) // counts edits of the definition; a run planned at another revision is stale
  hosts             Host[]
  credentials       Credential[]
  assetSets         AssetSet[]
  runs              Run[]
  backups           Backup[]
  backupPolicy      BackupPolicy?
  nodesSeen         NodesSeen?
}

// Nodes Ready as the live view last saw them (lib/clusters/live.ts), for the fleet list: the list
// cannot open an SSH tunnel to every cluster, so it says what was seen and when. A table of its own
// so that recording it does not touch the cluster's updatedAt (the definition's last change).
model NodesSeen {
  clusterId String   @id
  cluster   Cluster  @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  ready     Int
  total     Int
  seenAt    DateTime
}

model Host {
  id                 String    @id // host_\u2026
  clusterId          String
  cluster            Cluster   @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  position           Int // order in the definition; the first master runs the temporary control plane
  name               String
  address            String
  sshPort            Int
  role               String // master | worker
  hostKeyFingerprint String? // pinned on first contact (SHA256:\u2026); a different key is refused
  hostKeyConfirmedAt DateTime? // when an admin re-pinned the key after a probe showed it
  hostKeyConfirmedBy String? // who did
  facts              String? // JSON gathered by the engine
  createdAt          DateTime  @default(now())
  updatedAt          DateTime  @updatedAt
  steps              Step[]

  @@unique([clusterId, name])
  @@index([clusterId, position])
}

// One render of a cluster's assets; versions count up per cluster.
model AssetSet {
  id        String    @id // as_\u2026
  clusterId String
  cluster   Cluster   @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  version   Int
  options   String    @default("{}") // JSON: key type, validity, imported CA
  notAfter  DateTime? // the earliest expiry among its certificates (set when saved; filled in on first read for older sets)
  createdAt DateTime  @default(now())
  assets    Asset[]
  runs      Run[]

  @@unique([clusterId, version])
}

model Asset {
  id         String   @id // ast_\u2026
  assetSetId String
  assetSet   AssetSet @relation(fields: [assetSetId], references: [id], onDelete: Cascade)
  path       String // relative, e.g. tls/ca.crt
  mode       Int      @default(384) // 0600
  sensitive  Boolean  @default(false) // private keys and tokens: content is encrypted
  content    String // plain text, or ciphertext when sensitive
  sha256     String // of the plain content
  size       Int
  purpose    String   @default("")

  @@unique([assetSetId, path])
}

model Run {
  id                 String     @id // run_\u2026
  clusterId          String
  cluster            Cluster    @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  assetSetId         String?
  assetSet           AssetSet?  @relation(fields: [assetSetId], references: [id], onDelete: SetNull)
  type               String // bootstrap | join | retry | reset
  status             String     @default("planned") // planned | running | succeeded | failed | cancelled
  plan               String     @default("{}") // JSON: phases \xD7 hosts with files and commands
  definition         String? // JSON ClusterDefinition the plan was made from; the runner uses this, never the cluster's current one
  definitionRevision Int? // Cluster.revision when planned
  createdById        String?
  createdBy          User?      @relation(fields: [createdById], references: [id], onDelete: SetNull)
  cancelRequested    Boolean    @default(false)
  workerId           String? // the engine worker holding the run
  heartbeatAt        DateTime? // the worker's lease; a stale lease lets another worker resume
  lastSeq            Int        @default(0)
  summary            String? // JSON result: failures per host
  createdAt          DateTime   @default(now())
  startedAt          DateTime?
  finishedAt         DateTime?
  steps              Step[]
  events             RunEvent[]

  @@index([clusterId, createdAt])
  @@index([status])
}

model Step {
  id         String    @id // step_\u2026
  runId      String
  run        Run       @relation(fields: [runId], references: [id], onDelete: Cascade)
  hostId     String?
  host       Host?     @relation(fields: [hostId], references: [id], onDelete: SetNull)
  phase      String
  key        String // stable within the run: phase/host/action
  ordinal    Int
  title      String
  status     String    @default("pending") // pending | running | waiting | done | skipped | failed | cancelled
  attempts   Int       @default(0)
  command    String?
  exitCode   Int?
  output     String? // redacted tail
  error      String?
  hint       String?
  startedAt  DateTime?
  finishedAt DateTime?

  @@unique([runId, key])
  @@index([runId, ordinal])
}

// Append-only progress log; seq is monotonic per run and is the SSE event id.
model RunEvent {
  id        Int      @id @default(autoincrement())
  runId     String
  run       Run      @relation(fields: [runId], references: [id], onDelete: Cascade)
  seq       Int
  type      String
  hostId    String?
  stepId    String?
  data      String   @default("{}")
  createdAt DateTime @default(now())

  @@unique([runId, seq])
}

// Append-only audit trail of mutations, run control, secret use and downloads.
model AuditEvent {
  id       Int      @id @default(autoincrement())
  at       DateTime @default(now())
  userId   String?
  username String?
  action   String
  target   String?
  ip       String?
  details  String   @default("{}")

  @@index([at])
  @@index([action])
}

// An etcd snapshot of a cluster. The snapshot itself is a file in the data directory
// (backups/<clusterId>/<id>.snapshot), encrypted with its own data key; the row holds that key sealed
// with the master key, the GCM nonce and tag, and what the snapshot says about itself.
model Backup {
  id          String   @id // bk_\u2026
  clusterId   String
  cluster     Cluster  @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  runId       String?  @unique // the backup run that took it
  trigger     String // manual | schedule
  member      String // the etcd member (master) it was taken from
  file        String // relative to the data directory
  keyCipher   String // the file's AES-256-GCM data key, sealed with the master key
  nonce       String // base64
  tag         String // base64 GCM tag of the whole file
  sha256      String // of the plain snapshot
  size        Int // plain bytes
  storedSize  Int // bytes on disk
  revision    String // etcd revision of the snapshot (a uint64, as text)
  totalKeys   Int
  etcdVersion String
  createdById String?
  createdAt   DateTime @default(now())

  @@index([clusterId, createdAt])
}

// A cluster's backup schedule and retention, and how its last scheduled attempt went.
model BackupPolicy {
  clusterId       String    @id
  cluster         Cluster   @relation(fields: [clusterId], references: [id], onDelete: Cascade)
  enabled         Boolean   @default(false)
  intervalMinutes Int       @default(360)
  keepLast        Int       @default(14) // the newest N backups are kept
  keepDays        Int       @default(30) // older ones are deleted after N days (the newest is never deleted)
  nextDueAt       DateTime?
  lastAttemptAt   DateTime?
  lastRunId       String?
  lastStatus      String? // succeeded | failed | skipped
  lastError       String?
  lastSuccessAt   DateTime?
  failures        Int       @default(0) // scheduled attempts that failed (or were skipped) since the last success
  updatedAt       DateTime  @updatedAt
  updatedBy       String?
}
`,
      "inlineSchemaHash": "20d2a725525905e95e9476848e95202d9cc4ba02bbba33b6b50780c198281559",
      "copyEngine": true,
      "runtimeDataModel": {
        "models": {},
        "enums": {},
        "types": {}
      },
      "dirname": ""
    };
    config.runtimeDataModel = JSON.parse('{"models":{"User":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"username","kind":"scalar","type":"String"},{"name":"displayName","kind":"scalar","type":"String"},{"name":"passwordHash","kind":"scalar","type":"String"},{"name":"role","kind":"scalar","type":"String"},{"name":"disabled","kind":"scalar","type":"Boolean"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"updatedAt","kind":"scalar","type":"DateTime"},{"name":"sessions","kind":"object","type":"Session","relationName":"SessionToUser"},{"name":"runs","kind":"object","type":"Run","relationName":"RunToUser"}],"dbName":null},"Session":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"userId","kind":"scalar","type":"String"},{"name":"user","kind":"object","type":"User","relationName":"SessionToUser"},{"name":"csrfToken","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"expiresAt","kind":"scalar","type":"DateTime"},{"name":"lastSeenAt","kind":"scalar","type":"DateTime"},{"name":"ip","kind":"scalar","type":"String"},{"name":"userAgent","kind":"scalar","type":"String"}],"dbName":null},"Credential":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"ClusterToCredential"},{"name":"name","kind":"scalar","type":"String"},{"name":"kind","kind":"scalar","type":"String"},{"name":"secretCipher","kind":"scalar","type":"String"},{"name":"passphraseCipher","kind":"scalar","type":"String"},{"name":"fingerprint","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"updatedAt","kind":"scalar","type":"DateTime"}],"dbName":null},"Cluster":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"name","kind":"scalar","type":"String"},{"name":"kubernetesVersion","kind":"scalar","type":"String"},{"name":"definition","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"updatedAt","kind":"scalar","type":"DateTime"},{"name":"activeRunId","kind":"scalar","type":"String"},{"name":"revision","kind":"scalar","type":"Int"},{"name":"hosts","kind":"object","type":"Host","relationName":"ClusterToHost"},{"name":"credentials","kind":"object","type":"Credential","relationName":"ClusterToCredential"},{"name":"assetSets","kind":"object","type":"AssetSet","relationName":"AssetSetToCluster"},{"name":"runs","kind":"object","type":"Run","relationName":"ClusterToRun"},{"name":"backups","kind":"object","type":"Backup","relationName":"BackupToCluster"},{"name":"backupPolicy","kind":"object","type":"BackupPolicy","relationName":"BackupPolicyToCluster"},{"name":"nodesSeen","kind":"object","type":"NodesSeen","relationName":"ClusterToNodesSeen"}],"dbName":null},"NodesSeen":{"fields":[{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"ClusterToNodesSeen"},{"name":"ready","kind":"scalar","type":"Int"},{"name":"total","kind":"scalar","type":"Int"},{"name":"seenAt","kind":"scalar","type":"DateTime"}],"dbName":null},"Host":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"ClusterToHost"},{"name":"position","kind":"scalar","type":"Int"},{"name":"name","kind":"scalar","type":"String"},{"name":"address","kind":"scalar","type":"String"},{"name":"sshPort","kind":"scalar","type":"Int"},{"name":"role","kind":"scalar","type":"String"},{"name":"hostKeyFingerprint","kind":"scalar","type":"String"},{"name":"hostKeyConfirmedAt","kind":"scalar","type":"DateTime"},{"name":"hostKeyConfirmedBy","kind":"scalar","type":"String"},{"name":"facts","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"updatedAt","kind":"scalar","type":"DateTime"},{"name":"steps","kind":"object","type":"Step","relationName":"HostToStep"}],"dbName":null},"AssetSet":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"AssetSetToCluster"},{"name":"version","kind":"scalar","type":"Int"},{"name":"options","kind":"scalar","type":"String"},{"name":"notAfter","kind":"scalar","type":"DateTime"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"assets","kind":"object","type":"Asset","relationName":"AssetToAssetSet"},{"name":"runs","kind":"object","type":"Run","relationName":"AssetSetToRun"}],"dbName":null},"Asset":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"assetSetId","kind":"scalar","type":"String"},{"name":"assetSet","kind":"object","type":"AssetSet","relationName":"AssetToAssetSet"},{"name":"path","kind":"scalar","type":"String"},{"name":"mode","kind":"scalar","type":"Int"},{"name":"sensitive","kind":"scalar","type":"Boolean"},{"name":"content","kind":"scalar","type":"String"},{"name":"sha256","kind":"scalar","type":"String"},{"name":"size","kind":"scalar","type":"Int"},{"name":"purpose","kind":"scalar","type":"String"}],"dbName":null},"Run":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"ClusterToRun"},{"name":"assetSetId","kind":"scalar","type":"String"},{"name":"assetSet","kind":"object","type":"AssetSet","relationName":"AssetSetToRun"},{"name":"type","kind":"scalar","type":"String"},{"name":"status","kind":"scalar","type":"String"},{"name":"plan","kind":"scalar","type":"String"},{"name":"definition","kind":"scalar","type":"String"},{"name":"definitionRevision","kind":"scalar","type":"Int"},{"name":"createdById","kind":"scalar","type":"String"},{"name":"createdBy","kind":"object","type":"User","relationName":"RunToUser"},{"name":"cancelRequested","kind":"scalar","type":"Boolean"},{"name":"workerId","kind":"scalar","type":"String"},{"name":"heartbeatAt","kind":"scalar","type":"DateTime"},{"name":"lastSeq","kind":"scalar","type":"Int"},{"name":"summary","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"},{"name":"startedAt","kind":"scalar","type":"DateTime"},{"name":"finishedAt","kind":"scalar","type":"DateTime"},{"name":"steps","kind":"object","type":"Step","relationName":"RunToStep"},{"name":"events","kind":"object","type":"RunEvent","relationName":"RunToRunEvent"}],"dbName":null},"Step":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"runId","kind":"scalar","type":"String"},{"name":"run","kind":"object","type":"Run","relationName":"RunToStep"},{"name":"hostId","kind":"scalar","type":"String"},{"name":"host","kind":"object","type":"Host","relationName":"HostToStep"},{"name":"phase","kind":"scalar","type":"String"},{"name":"key","kind":"scalar","type":"String"},{"name":"ordinal","kind":"scalar","type":"Int"},{"name":"title","kind":"scalar","type":"String"},{"name":"status","kind":"scalar","type":"String"},{"name":"attempts","kind":"scalar","type":"Int"},{"name":"command","kind":"scalar","type":"String"},{"name":"exitCode","kind":"scalar","type":"Int"},{"name":"output","kind":"scalar","type":"String"},{"name":"error","kind":"scalar","type":"String"},{"name":"hint","kind":"scalar","type":"String"},{"name":"startedAt","kind":"scalar","type":"DateTime"},{"name":"finishedAt","kind":"scalar","type":"DateTime"}],"dbName":null},"RunEvent":{"fields":[{"name":"id","kind":"scalar","type":"Int"},{"name":"runId","kind":"scalar","type":"String"},{"name":"run","kind":"object","type":"Run","relationName":"RunToRunEvent"},{"name":"seq","kind":"scalar","type":"Int"},{"name":"type","kind":"scalar","type":"String"},{"name":"hostId","kind":"scalar","type":"String"},{"name":"stepId","kind":"scalar","type":"String"},{"name":"data","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"}],"dbName":null},"AuditEvent":{"fields":[{"name":"id","kind":"scalar","type":"Int"},{"name":"at","kind":"scalar","type":"DateTime"},{"name":"userId","kind":"scalar","type":"String"},{"name":"username","kind":"scalar","type":"String"},{"name":"action","kind":"scalar","type":"String"},{"name":"target","kind":"scalar","type":"String"},{"name":"ip","kind":"scalar","type":"String"},{"name":"details","kind":"scalar","type":"String"}],"dbName":null},"Backup":{"fields":[{"name":"id","kind":"scalar","type":"String"},{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"BackupToCluster"},{"name":"runId","kind":"scalar","type":"String"},{"name":"trigger","kind":"scalar","type":"String"},{"name":"member","kind":"scalar","type":"String"},{"name":"file","kind":"scalar","type":"String"},{"name":"keyCipher","kind":"scalar","type":"String"},{"name":"nonce","kind":"scalar","type":"String"},{"name":"tag","kind":"scalar","type":"String"},{"name":"sha256","kind":"scalar","type":"String"},{"name":"size","kind":"scalar","type":"Int"},{"name":"storedSize","kind":"scalar","type":"Int"},{"name":"revision","kind":"scalar","type":"String"},{"name":"totalKeys","kind":"scalar","type":"Int"},{"name":"etcdVersion","kind":"scalar","type":"String"},{"name":"createdById","kind":"scalar","type":"String"},{"name":"createdAt","kind":"scalar","type":"DateTime"}],"dbName":null},"BackupPolicy":{"fields":[{"name":"clusterId","kind":"scalar","type":"String"},{"name":"cluster","kind":"object","type":"Cluster","relationName":"BackupPolicyToCluster"},{"name":"enabled","kind":"scalar","type":"Boolean"},{"name":"intervalMinutes","kind":"scalar","type":"Int"},{"name":"keepLast","kind":"scalar","type":"Int"},{"name":"keepDays","kind":"scalar","type":"Int"},{"name":"nextDueAt","kind":"scalar","type":"DateTime"},{"name":"lastAttemptAt","kind":"scalar","type":"DateTime"},{"name":"lastRunId","kind":"scalar","type":"String"},{"name":"lastStatus","kind":"scalar","type":"String"},{"name":"lastError","kind":"scalar","type":"String"},{"name":"lastSuccessAt","kind":"scalar","type":"DateTime"},{"name":"failures","kind":"scalar","type":"Int"},{"name":"updatedAt","kind":"scalar","type":"DateTime"},{"name":"updatedBy","kind":"scalar","type":"String"}],"dbName":null}},"enums":{},"types":{}}');
    config.engineWasm = void 0;
    config.compilerWasm = {
      getRuntime: async () => await import("@prisma/client/runtime/query_compiler_bg.sqlite.mjs"),
      getQueryCompilerWasmModule: async () => {
        const { wasm } = await import("@prisma/client/runtime/query_compiler_bg.sqlite.wasm-base64.mjs");
        return await decodeBase64AsWasm(wasm);
      }
    };
  }
});

// lib/generated/prisma/internal/prismaNamespace.ts
var runtime2, getExtensionContext, NullTypes, DbNull, JsonNull, AnyNull, TransactionIsolationLevel, defineExtension;
var init_prismaNamespace = __esm({
  "lib/generated/prisma/internal/prismaNamespace.ts"() {
    "use strict";
    runtime2 = __toESM(require("@prisma/client/runtime/client"));
    getExtensionContext = runtime2.Extensions.getExtensionContext;
    NullTypes = {
      DbNull: runtime2.objectEnumValues.classes.DbNull,
      JsonNull: runtime2.objectEnumValues.classes.JsonNull,
      AnyNull: runtime2.objectEnumValues.classes.AnyNull
    };
    DbNull = runtime2.objectEnumValues.instances.DbNull;
    JsonNull = runtime2.objectEnumValues.instances.JsonNull;
    AnyNull = runtime2.objectEnumValues.instances.AnyNull;
    TransactionIsolationLevel = runtime2.makeStrictEnum({
      Serializable: "Serializable"
    });
    defineExtension = runtime2.Extensions.defineExtension;
  }
});

// lib/generated/prisma/enums.ts
var init_enums = __esm({
  "lib/generated/prisma/enums.ts"() {
    "use strict";
  }
});

// lib/generated/prisma/client.ts
var path, import_node_url, PrismaClient;
var init_client = __esm({
  "lib/generated/prisma/client.ts"() {
    "use strict";
    path = __toESM(require("node:path"));
    import_node_url = require("node:url");
    init_class();
    init_prismaNamespace();
    init_enums();
    init_enums();
    globalThis["__dirname"] = path.dirname((0, import_node_url.fileURLToPath)(__bootdeckImportMetaUrl));
    PrismaClient = getPrismaClientClass(__bootdeckSource("lib/generated/prisma"));
  }
});

// lib/env.ts
function parseProxyList(s2) {
  return s2.split(",").map((p2) => p2.trim()).filter(Boolean).map((p2) => {
    const [address2 = "", bits] = p2.split("/");
    const v = (0, import_node_net.isIP)(address2);
    const max = v === 4 ? 32 : 128;
    const prefix = bits === void 0 ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!v || !(prefix >= 0 && prefix <= max)) return { ok: false };
    return { ok: true, entry: { address: address2, prefix, family: v === 4 ? "ipv4" : "ipv6" } };
  });
}
function getEnv() {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Bootdeck's environment is invalid:
${lines}`);
  }
  const e = parsed.data;
  cached = {
    ...e,
    databaseUrl: e.DATABASE_URL ?? `file:${import_node_path.default.join(e.BOOTDECK_DATA_DIR, "bootdeck.db")}`,
    masterKeyFile: e.BOOTDECK_MASTER_KEY_FILE ?? import_node_path.default.join(e.BOOTDECK_DATA_DIR, "master.key"),
    trustedProxies: parseProxyList(e.BOOTDECK_TRUSTED_PROXIES).flatMap((p2) => p2.ok ? [p2.entry] : [])
  };
  return cached;
}
var import_node_net, import_node_path, import_zod, schema, cached;
var init_env = __esm({
  "lib/env.ts"() {
    "use strict";
    import_node_net = require("node:net");
    import_node_path = __toESM(require("node:path"));
    import_zod = require("zod");
    schema = import_zod.z.object({
      /** Where the Bootdeck checkout lives (prisma/, node_modules/); bin/bootdeck sets it. */
      BOOTDECK_HOME: import_zod.z.string().min(1).default(process.cwd()),
      BOOTDECK_DATA_DIR: import_zod.z.string().min(1).default(import_node_path.default.join(process.cwd(), "data")),
      DATABASE_URL: import_zod.z.string().regex(/^file:/, "must be a file: URL for SQLite, e.g. file:./data/bootdeck.db").optional(),
      BOOTDECK_MASTER_KEY: import_zod.z.string().refine((s2) => Buffer.from(s2, "base64").length === 32, "must be 32 bytes, base64-encoded (openssl rand -base64 32)").optional(),
      BOOTDECK_MASTER_KEY_FILE: import_zod.z.string().optional(),
      BOOTDECK_SESSION_HOURS: import_zod.z.coerce.number().int().min(1).max(24 * 30).default(12),
      /** The first admin's password for `bootdeck setup`; generated and printed once when unset. */
      BOOTDECK_ADMIN_PASSWORD: import_zod.z.string().min(10, "must be at least 10 characters").max(256).optional(),
      BOOTDECK_SECURE_COOKIES: import_zod.z.enum(["auto", "always", "never"]).default("auto"),
      /**
       * Reverse proxies whose X-Forwarded-For / X-Real-IP are believed: comma-separated addresses or CIDRs
       * ("127.0.0.1, 10.0.0.0/8, ::1"). Empty: the client's address is the TCP peer's, whatever it sends.
       */
      BOOTDECK_TRUSTED_PROXIES: import_zod.z.string().default("").refine((s2) => parseProxyList(s2).every((p2) => p2.ok), "must be comma-separated IP addresses or CIDRs, e.g. 127.0.0.1, 10.0.0.0/8"),
      /** "off" when separate `bootdeck worker` processes run the engine instead of the dashboard. */
      BOOTDECK_ENGINE: import_zod.z.enum(["on", "off"]).default("on"),
      /** Fault injection for the crash-point test only (lib/engine/crash-points.ts); never set it in a deployment. */
      BOOTDECK_CRASH_AFTER: import_zod.z.string().optional(),
      NODE_ENV: import_zod.z.string().default("development")
    });
  }
});

// lib/db/sqlite-adapter.ts
function serialize(inner) {
  const mutex = new Mutex();
  const exclusive = async (fn) => {
    const release = await mutex.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  };
  const rollbackQuietly = () => inner.executeRaw(q("ROLLBACK")).catch(() => void 0);
  const adapter = Object.create(inner);
  adapter.queryRaw = (query) => exclusive(() => inner.queryRaw(query));
  adapter.executeRaw = (query) => exclusive(() => inner.executeRaw(query));
  adapter.executeScript = (script) => exclusive(() => inner.executeScript(script));
  adapter.dispose = () => inner.dispose();
  adapter.startTransaction = async (isolationLevel) => {
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") return inner.startTransaction(isolationLevel);
    const release = await mutex.acquire();
    try {
      await inner.executeRaw(q("BEGIN")).catch(async (err) => {
        await rollbackQuietly();
        await inner.executeRaw(q("BEGIN")).catch(() => {
          throw err;
        });
      });
    } catch (err) {
      release();
      throw err;
    }
    const tx = {
      provider: inner.provider,
      adapterName: inner.adapterName,
      options: { usePhantomQuery: false },
      queryRaw: (query) => inner.queryRaw(query),
      executeRaw: async (query) => {
        try {
          return await inner.executeRaw(query);
        } catch (err) {
          if (/^\s*(COMMIT|ROLLBACK)\b/i.test(query.sql)) {
            await rollbackQuietly();
            release();
          }
          throw err;
        }
      },
      commit: async () => release(),
      rollback: async () => release()
    };
    return tx;
  };
  return adapter;
}
function sqliteAdapter(config2) {
  const factory2 = new import_adapter_better_sqlite3.PrismaBetterSQLite3(config2);
  const connect = factory2.connect.bind(factory2);
  factory2.connect = async () => serialize(await connect());
  return factory2;
}
var import_adapter_better_sqlite3, Mutex, q;
var init_sqlite_adapter = __esm({
  "lib/db/sqlite-adapter.ts"() {
    "use strict";
    import_adapter_better_sqlite3 = require("@prisma/adapter-better-sqlite3");
    Mutex = class {
      tail = Promise.resolve();
      async acquire() {
        let release;
        const held = new Promise((r2) => release = r2);
        const before = this.tail;
        this.tail = before.then(() => held);
        await before;
        let done = false;
        return () => {
          if (done) return;
          done = true;
          release();
        };
      }
    };
    q = (sql) => ({ sql, args: [], argTypes: [] });
  }
});

// lib/db/client.ts
function createClient() {
  const adapter = sqliteAdapter({ url: getEnv().databaseUrl, timeout: 1e4 });
  return new PrismaClient({ adapter });
}
function getDb() {
  return holder.bootdeckPrisma ??= createClient();
}
async function configureDb() {
  const db = getDb();
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$queryRawUnsafe("PRAGMA busy_timeout = 10000");
  await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
}
async function disconnectDb() {
  await holder.bootdeckPrisma?.$disconnect();
  holder.bootdeckPrisma = void 0;
}
var holder;
var init_client2 = __esm({
  "lib/db/client.ts"() {
    "use strict";
    init_client();
    init_env();
    init_sqlite_adapter();
    holder = globalThis;
  }
});

// lib/audit/record.ts
async function recordAudit(input) {
  await getDb().auditEvent.create({
    data: {
      action: input.action,
      userId: input.userId,
      username: input.username,
      target: input.target,
      ip: input.ip?.slice(0, 64),
      details: JSON.stringify(input.details ?? {})
    }
  });
}
async function recordSecretUse(input) {
  await recordAudit({
    action: "secret.use",
    userId: input.userId,
    username: input.username,
    target: input.credentialId,
    details: { credential: input.credentialName, clusterId: input.clusterId, runId: input.runId, purpose: input.purpose }
  });
}
var init_record = __esm({
  "lib/audit/record.ts"() {
    "use strict";
    init_client2();
  }
});

// lib/engine/crash-points.ts
function parseCrashPoint(spec) {
  const m = /^([a-z.-]+)(?::([^#]+))?(?:#(\d+))?$/.exec(spec.trim());
  if (!m) throw new Error(`BOOTDECK_CRASH_AFTER must look like step.finished:kubelet/master-1#1, got "${spec}"`);
  return { type: m[1], key: m[2], nth: Number(m[3] ?? 1) };
}
function eventKey(e) {
  const d = e.data;
  return typeof d.key === "string" ? d.key : typeof d.step === "string" ? d.step : typeof d.phase === "string" ? d.phase : void 0;
}
function crashAfter(e) {
  if (point === void 0) {
    const spec = getEnv().BOOTDECK_CRASH_AFTER;
    point = spec ? parseCrashPoint(spec) : null;
  }
  if (!point || e.type !== point.type || point.key !== void 0 && eventKey(e) !== point.key) return;
  if (++seen < point.nth) return;
  process.stderr.write(`[bootdeck engine] crash point ${e.type}${point.key ? `:${point.key}` : ""}#${point.nth} reached at seq ${e.seq}: SIGKILL
`);
  process.kill(process.pid, "SIGKILL");
}
var point, seen;
var init_crash_points = __esm({
  "lib/engine/crash-points.ts"() {
    "use strict";
    init_env();
    seen = 0;
  }
});

// lib/engine/events.ts
async function appendRunEvent(input) {
  const event = await getDb().$transaction((tx) => appendRunEventIn(tx, input));
  publishRunEvent(event);
  return event;
}
async function appendRunEventIn(tx, input) {
  const run4 = await tx.run.update({ where: { id: input.runId }, data: { lastSeq: { increment: 1 } }, select: { lastSeq: true } });
  const row = await tx.runEvent.create({
    data: { runId: input.runId, seq: run4.lastSeq, type: input.type, hostId: input.hostId ?? null, stepId: input.stepId ?? null, data: JSON.stringify(input.data ?? {}) }
  });
  return toStored(row);
}
function publishRunEvent(event) {
  bus.emit(event.runId, event);
  crashAfter(event);
}
async function listRunEvents({ runId, afterSeq = 0, limit = 1e3 }) {
  const rows = await getDb().runEvent.findMany({ where: { runId, seq: { gt: afterSeq } }, orderBy: { seq: "asc" }, take: limit });
  return rows.map(toStored);
}
function toStored(row) {
  return { runId: row.runId, seq: row.seq, type: row.type, hostId: row.hostId, stepId: row.stepId, data: JSON.parse(row.data), at: row.createdAt.toISOString() };
}
var import_node_events, bus;
var init_events = __esm({
  "lib/engine/events.ts"() {
    "use strict";
    import_node_events = require("node:events");
    init_client2();
    init_crash_points();
    bus = new import_node_events.EventEmitter();
    bus.setMaxListeners(0);
  }
});

// lib/http/errors.ts
var AppError, notFound, conflict, unprocessable, ValidationError;
var init_errors = __esm({
  "lib/http/errors.ts"() {
    "use strict";
    AppError = class extends Error {
      constructor(status, code, message, details) {
        super(message);
        this.status = status;
        this.code = code;
        this.details = details;
        this.name = "AppError";
      }
      status;
      code;
      details;
    };
    notFound = (what) => new AppError(404, "not_found", `${what} was not found`);
    conflict = (message) => new AppError(409, "conflict", message);
    unprocessable = (message) => new AppError(422, "unprocessable", message);
    ValidationError = class extends AppError {
      constructor(errors, warnings = []) {
        super(422, "invalid", `${errors.length} problem${errors.length === 1 ? "" : "s"} to fix`, { errors, warnings });
        this.errors = errors;
        this.warnings = warnings;
        this.name = "ValidationError";
      }
      errors;
      warnings;
    };
  }
});

// lib/cluster/versions.ts
function findVersionProfile(version) {
  const m = versionPattern.exec(version);
  if (!m) return void 0;
  return versionProfiles.find((p2) => p2.minor === `${m[1]}.${m[2]}`);
}
function versionProblem(version) {
  const m = versionPattern.exec(version);
  if (!m) return "must look like v1.36.3";
  const minor = `${m[1]}.${m[2]}`;
  if (versionProfiles.some((p2) => p2.minor === minor)) return void 0;
  const supported = versionProfiles.map((p2) => `v${p2.minor}.x`).join(", ");
  const dropped = droppedProfiles[minor];
  return dropped ? `v${minor} is no longer supported (${dropped}); supported: ${supported}` : `is not a supported Kubernetes version; supported: ${supported}`;
}
function minorOf(version) {
  const m = versionPattern.exec(version);
  return m ? Number(m[2]) : Number.NaN;
}
function profileOf(version) {
  const p2 = findVersionProfile(version);
  if (!p2) throw new Error(`not a supported Kubernetes version: ${version}`);
  return p2;
}
var versionProfiles, defaultKubernetesVersion, droppedProfiles, versionPattern;
var init_versions = __esm({
  "lib/cluster/versions.ts"() {
    "use strict";
    versionProfiles = [
      {
        minor: "1.5",
        defaultVersion: "v1.5.3",
        label: "1.5",
        note: "legacy: hyperkube, as in the Topsail guide",
        hyperkube: true,
        upstreamSupported: false,
        pins: { etcd: "v3.1.8", coredns: "1.0.6", pause: "3.0" }
      },
      { minor: "1.34", defaultVersion: "v1.34.4", label: "1.34", hyperkube: false, upstreamSupported: true, pins: { etcd: "3.6.5-0", coredns: "v1.12.1", pause: "3.10.1" } },
      { minor: "1.35", defaultVersion: "v1.35.4", label: "1.35", hyperkube: false, upstreamSupported: true, pins: { etcd: "3.6.6-0", coredns: "v1.13.1", pause: "3.10.1" } },
      { minor: "1.36", defaultVersion: "v1.36.3", label: "1.36", note: "recommended", hyperkube: false, upstreamSupported: true, pins: { etcd: "3.6.8-0", coredns: "v1.14.2", pause: "3.10.2" } },
      { minor: "1.37", defaultVersion: "v1.37.2", label: "1.37", hyperkube: false, upstreamSupported: true, pins: { etcd: "3.7.0-0", coredns: "v1.14.6", pause: "3.10.2" } }
    ];
    defaultKubernetesVersion = "v1.36.3";
    droppedProfiles = {
      "1.29": "out of upstream support",
      "1.30": "out of upstream support",
      "1.31": "out of upstream support",
      "1.32": "out of upstream support",
      "1.33": "not offered: upgrade paths start at 1.34"
    };
    versionPattern = /^v(\d+)\.(\d+)\.(\d+)$/;
  }
});

// lib/cluster/net-syntax.ts
function isIPv4(s2) {
  return ipv4Pattern.test(s2);
}
function isIPv6(s2) {
  if (s2.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s2) || !s2.includes(":")) return false;
  const double = s2.split("::");
  if (double.length > 2) return false;
  const groups = (part) => part === "" ? [] : part.split(":");
  let parts = [...groups(double[0] ?? ""), ...groups(double[1] ?? "")];
  let width = 8;
  const last = parts[parts.length - 1];
  if (last !== void 0 && last.includes(".")) {
    if (!isIPv4(last)) return false;
    parts = parts.slice(0, -1);
    width = 6;
  }
  if (!parts.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return double.length === 2 ? parts.length < width : parts.length === width;
}
function isIP2(s2) {
  return isIPv4(s2) || isIPv6(s2);
}
function isDnsName(s2) {
  return s2.length <= 253 && dnsNamePattern.test(s2) && !isIPv4(s2) && !/(^|\.)\d+$/.test(s2);
}
function looksLikeIPv4(s2) {
  return /^[\d.]+$/.test(s2) && s2.includes(".");
}
function isDns1123Label(s2) {
  return s2.length <= 63 && new RegExp(`^${label}$`).test(s2);
}
var octet, ipv4Pattern, label, dnsNamePattern;
var init_net_syntax = __esm({
  "lib/cluster/net-syntax.ts"() {
    "use strict";
    octet = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
    ipv4Pattern = new RegExp(`^${octet}(\\.${octet}){3}$`);
    label = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
    dnsNamePattern = new RegExp(`^${label}(\\.${label})*$`);
  }
});

// lib/cluster/ip.ts
function ipv4ToInt(ip) {
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}
function intToIpv4(n) {
  return [24, 16, 8, 0].map((s2) => Math.floor(n / 2 ** s2) % 256).join(".");
}
function parseCidr(text) {
  const [ip, prefixText, extra] = text.split("/");
  if (extra !== void 0 || !ip || prefixText === void 0) return "must look like 10.2.0.0/16";
  if (!isIPv4(ip)) return "must be an IPv4 network such as 10.2.0.0/16";
  if (!/^\d{1,2}$/.test(prefixText)) return "prefix length must be a number from 1 to 30";
  const prefix = Number(prefixText);
  if (prefix < 1 || prefix > 30) return "prefix length must be from 1 to 30";
  const addr = ipv4ToInt(ip);
  const size2 = 2 ** (32 - prefix);
  const base = addr - addr % size2;
  if (base !== addr) return `has host bits set; did you mean ${intToIpv4(base)}/${prefix}?`;
  return { base, prefix, text };
}
function cidrSize(c) {
  return 2 ** (32 - c.prefix);
}
function cidrContains(c, ip) {
  if (!isIPv4(ip)) return false;
  const n = ipv4ToInt(ip);
  return n >= c.base && n < c.base + cidrSize(c);
}
function cidrsOverlap(a, b) {
  return a.base < b.base + cidrSize(b) && b.base < a.base + cidrSize(a);
}
function nthAddress(c, n) {
  return intToIpv4(c.base + n);
}
var init_ip = __esm({
  "lib/cluster/ip.ts"() {
    "use strict";
    init_net_syntax();
  }
});

// lib/cluster/definition.ts
function formatPath(path22) {
  if (path22.length === 0) return "(document)";
  return path22.map((p2, i) => typeof p2 === "number" ? `[${p2}]` : i === 0 ? clip(String(p2)) : `.${clip(String(p2))}`).join("");
}
function clip(s2) {
  return s2.length > 40 ? `${s2.slice(0, 40)}\u2026` : s2;
}
function isMirrorUrl(s2) {
  if (/[\s\u0000-\u001f]/.test(s2)) return false;
  try {
    const u = new URL(s2);
    return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password && u.hostname !== "";
  } catch {
    return false;
  }
}
function validateClusterDefinition(input) {
  const parsed = clusterDefinitionSchema.safeParse(input, { reportInput: true });
  const errors = parsed.success ? [] : parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: issueMessage(i) }));
  const cross = crossCheck(input);
  for (const e of cross.errors) if (!errors.some((x) => x.path === e.path && x.message === e.message)) errors.push(e);
  if (!parsed.success || errors.length > 0) return { ok: false, errors, warnings: cross.warnings };
  return { ok: true, definition: parsed.data, warnings: cross.warnings };
}
function issueMessage(issue) {
  if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map(clip).join(", ")}`;
  if (issue.code === "invalid_type" && issue.input === void 0) return "is required";
  if (issue.code === "too_big" && issue.origin === "string") return `must be at most ${String(issue.maximum)} characters`;
  if (issue.code === "invalid_type" && /^Invalid input/.test(issue.message)) return `must be ${article(issue.expected)}`;
  return issue.message;
}
function crossCheck(input) {
  const errors = [];
  const warnings = [];
  const spec = obj(obj(input)?.spec);
  if (!spec) return { errors, warnings };
  const network = obj(spec.network);
  const hosts = Array.isArray(spec.hosts) ? spec.hosts.map(obj) : [];
  const pod = cidrAt(network?.podCidr, "spec.network.podCidr", errors);
  const svc = cidrAt(network?.serviceCidr, "spec.network.serviceCidr", errors);
  if (pod && svc && cidrsOverlap(pod, svc))
    errors.push({ path: "spec.network.serviceCidr", message: `overlaps the pod CIDR ${pod.text}; pod and service networks must not overlap` });
  const dnsIp = str(network?.dnsServiceIp);
  if (dnsIp !== void 0 && svc) {
    if (!isIPv4(dnsIp)) errors.push({ path: "spec.network.dnsServiceIp", message: "must be an IPv4 address" });
    else if (!cidrContains(svc, dnsIp))
      errors.push({ path: "spec.network.dnsServiceIp", message: `must be inside the service CIDR ${svc.text}` });
    else if (dnsIp === nthAddress(svc, 1))
      errors.push({ path: "spec.network.dnsServiceIp", message: `must not be ${dnsIp}: that is the API service IP (first address of the service CIDR)` });
    else if (dnsIp === nthAddress(svc, 0) || dnsIp === nthAddress(svc, 2 ** (32 - svc.prefix) - 1))
      errors.push({ path: "spec.network.dnsServiceIp", message: "must not be the network or broadcast address of the service CIDR" });
  }
  if (svc && 2 ** (32 - svc.prefix) < 16 && dnsIp === void 0)
    errors.push({ path: "spec.network.serviceCidr", message: "is too small: it needs at least 16 addresses (the DNS service IP is its 10th)" });
  const kube = obj(spec.kubernetes);
  const profile = str(kube?.version) ? findVersionProfile(str(kube?.version)) : void 0;
  if (str(kube?.controlPlane) === "static" && profile?.hyperkube)
    errors.push({ path: "spec.kubernetes.controlPlane", message: `static needs Kubernetes 1.24 or later; ${str(kube?.version)} runs the legacy self-hosted control plane only` });
  const images2 = obj(spec.images);
  if (images2 && (images2.ca !== void 0 || images2.auth !== void 0) && !str(images2.registry))
    errors.push({ path: "spec.images.registry", message: "is required when a registry CA or credentials are given" });
  const registryCredential = str(obj(images2?.auth)?.credential);
  if (registryCredential) {
    const c = (Array.isArray(spec.credentials) ? spec.credentials : []).map(obj).find((x) => str(x?.name) === registryCredential);
    if (!c) errors.push({ path: "spec.images.auth.credential", message: `refers to credential "${clip(registryCredential)}", which is not defined under spec.credentials` });
    else if (str(c.type) !== "password") errors.push({ path: "spec.images.auth.credential", message: `must name a password credential; "${clip(registryCredential)}" is ${str(c.type) ?? "untyped"}` });
  }
  const api = obj(spec.apiEndpoint);
  const apiType = str(api?.type);
  const apiHost = str(api?.host);
  if (apiType === "first-master" && apiHost)
    errors.push({ path: "spec.apiEndpoint.host", message: "must be empty when the endpoint is the first master" });
  if (apiType === "dns" && !(apiHost && isDnsName(apiHost)))
    errors.push({ path: "spec.apiEndpoint.host", message: "must be a DNS name (e.g. api.example.com) for a DNS endpoint" });
  if (api?.keepalived !== void 0 && apiType !== "vip")
    errors.push({ path: "spec.apiEndpoint.keepalived", message: "is only for a VIP endpoint (type: vip): keepalived holds that address on the masters" });
  if (apiType === "vip") {
    if (!(apiHost && isIP2(apiHost))) errors.push({ path: "spec.apiEndpoint.host", message: "must be an IP address for a VIP or load balancer endpoint" });
    else for (const [c, what] of [[pod, "pod"], [svc, "service"]])
      if (c && cidrContains(c, apiHost)) errors.push({ path: "spec.apiEndpoint.host", message: `is inside the ${what} CIDR ${c.text}` });
  }
  const credentialNames = new Set(
    (Array.isArray(spec.credentials) ? spec.credentials : []).map((c) => str(obj(c)?.name)).filter((n) => !!n)
  );
  const defaultCredential = str(obj(spec.ssh)?.credential);
  if (defaultCredential && !credentialNames.has(defaultCredential))
    errors.push({ path: "spec.ssh.credential", message: `refers to credential "${clip(defaultCredential)}", which is not defined under spec.credentials` });
  if (Array.isArray(spec.hosts)) {
    const masters = hosts.filter((h) => h?.role === "master").length;
    if (masters === 0) errors.push({ path: "spec.hosts", message: "needs at least one master" });
    else if (masters > 7)
      errors.push({ path: "spec.hosts", message: `has ${masters} masters; etcd runs on every master and more than 7 members slows every write \u2014 use 3, 5 or 7` });
    else if (masters % 2 === 0)
      warnings.push({ path: "spec.hosts", message: `has ${masters} masters, an even number of etcd members: it tolerates no more failures than ${masters - 1} would` });
    if (masters > 1 && apiType === "first-master")
      warnings.push({ path: "spec.apiEndpoint.type", message: "with several masters, clients lose the API when the first master is down; prefer a DNS name or a VIP" });
  }
  const seenNames = /* @__PURE__ */ new Map();
  const seenAddresses = /* @__PURE__ */ new Map();
  hosts.forEach((h, i) => {
    if (!h) return;
    const name = str(h.name);
    const addr = str(h.address)?.toLowerCase();
    if (name !== void 0) {
      const first = seenNames.get(name);
      if (first !== void 0) errors.push({ path: `spec.hosts[${i}].name`, message: `duplicates the name of hosts[${first}]` });
      else seenNames.set(name, i);
    }
    if (addr !== void 0) {
      const first = seenAddresses.get(addr);
      if (first !== void 0) errors.push({ path: `spec.hosts[${i}].address`, message: `duplicates the address of hosts[${first}]` });
      else seenAddresses.set(addr, i);
      for (const [c, what] of [[pod, "pod"], [svc, "service"]])
        if (c && cidrContains(c, addr))
          errors.push({ path: `spec.hosts[${i}].address`, message: `is inside the ${what} CIDR ${c.text}; host addresses must be outside the cluster networks` });
    }
    const cred = str(h.credential);
    if (cred && !credentialNames.has(cred))
      errors.push({ path: `spec.hosts[${i}].credential`, message: `refers to credential "${clip(cred)}", which is not defined under spec.credentials` });
    if (!cred && !defaultCredential && Array.isArray(spec.credentials) && credentialNames.size !== 1)
      errors.push({ path: `spec.hosts[${i}].credential`, message: "is required: set it here or as spec.ssh.credential" });
    const bastionCred = str(obj(h.bastion)?.credential);
    if (bastionCred && !credentialNames.has(bastionCred))
      errors.push({ path: `spec.hosts[${i}].bastion.credential`, message: `refers to credential "${clip(bastionCred)}", which is not defined under spec.credentials` });
  });
  return { errors, warnings };
}
function cidrAt(value, path22, errors) {
  if (typeof value !== "string") return void 0;
  const parsed = parseCidr(value);
  if (typeof parsed === "string") {
    errors.push({ path: path22, message: parsed });
    return void 0;
  }
  return parsed;
}
var import_zod2, API_VERSION, limits, dnsLabel, port, address, sshUser, sha256, cidr, labelName, labels, bastion, hostRoles, host, credentialTypes, credential, apiEndpointTypes, networkProviders, controlPlaneModes, isStaticControlPlane, runtimeSources, cgroupDrivers, httpUrl, registryPrefix, pemCertificate, clusterDefinitionSchema, article, obj, str;
var init_definition = __esm({
  "lib/cluster/definition.ts"() {
    "use strict";
    import_zod2 = require("zod");
    init_versions();
    init_net_syntax();
    init_ip();
    API_VERSION = "bootdeck.io/v1alpha1";
    limits = {
      name: 63,
      address: 253,
      user: 32,
      url: 2048,
      hosts: 2e3,
      credentials: 64,
      labels: 32,
      labelKey: 317,
      labelValue: 63
    };
    dnsLabel = import_zod2.z.string().max(limits.name, `must be at most ${limits.name} characters`).refine(isDns1123Label, "must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit");
    port = import_zod2.z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be from 1 to 65535").max(65535, "must be from 1 to 65535");
    address = import_zod2.z.string().min(1, "is required").max(limits.address, `must be at most ${limits.address} characters`).superRefine((s2, ctx) => {
      if (isIP2(s2) || isDnsName(s2)) return;
      ctx.addIssue({ code: "custom", message: looksLikeIPv4(s2) ? "is not a valid IPv4 address: four numbers from 0 to 255, separated by dots" : "must be an IP address or a DNS name" });
    });
    sshUser = import_zod2.z.string().max(limits.user, `must be at most ${limits.user} characters`).regex(/^[a-z_][a-z0-9_-]*\$?$/, "must be a Unix user name (lower-case letters, digits, '_' and '-')");
    sha256 = import_zod2.z.string().transform((s2) => /^[A-Fa-f0-9]{64}$/.test(s2.trim()) ? s2.trim().toLowerCase() : s2).pipe(import_zod2.z.string().regex(/^[a-f0-9]{64}$/, "must be a SHA-256 checksum: 64 hexadecimal characters"));
    cidr = import_zod2.z.string().max(18, "must look like 10.2.0.0/16");
    labelName = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
    labels = import_zod2.z.record(import_zod2.z.string(), import_zod2.z.string()).superRefine((rec, ctx) => {
      const entries = Object.entries(rec);
      if (entries.length > limits.labels) ctx.addIssue({ code: "custom", message: `at most ${limits.labels} labels` });
      for (const [key, value] of entries) {
        const slash = key.lastIndexOf("/");
        const prefix = slash >= 0 ? key.slice(0, slash) : void 0;
        const name = slash >= 0 ? key.slice(slash + 1) : key;
        const keyOk = key.length <= limits.labelKey && labelName.test(name) && (prefix === void 0 || isDnsName(prefix));
        if (!keyOk) ctx.addIssue({ code: "custom", path: [key], message: `label key "${clip(key)}" is not a valid Kubernetes label key` });
        if (value !== "" && !(value.length <= limits.labelValue && labelName.test(value)))
          ctx.addIssue({ code: "custom", path: [key], message: `label value "${clip(value)}" is not a valid Kubernetes label value` });
      }
    });
    bastion = import_zod2.z.strictObject({
      address,
      port: port.default(22),
      user: sshUser.optional(),
      credential: dnsLabel.optional()
    });
    hostRoles = ["master", "worker"];
    host = import_zod2.z.strictObject({
      name: dnsLabel,
      address,
      port: port.optional(),
      role: import_zod2.z.enum(hostRoles, { error: "must be master or worker" }),
      user: sshUser.optional(),
      credential: dnsLabel.optional(),
      labels: labels.optional(),
      bastion: bastion.optional()
    });
    credentialTypes = ["privateKey", "password", "agent"];
    credential = import_zod2.z.strictObject({
      name: dnsLabel,
      type: import_zod2.z.enum(credentialTypes, { error: "must be privateKey, password or agent" }),
      privateKeyFile: import_zod2.z.string().max(4096).optional(),
      passphraseEnv: import_zod2.z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name").max(128).optional(),
      passwordEnv: import_zod2.z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name").max(128).optional(),
      /** CLI only: a file holding the password (a secrets manager's agent often writes one). */
      passwordFile: import_zod2.z.string().max(4096).optional(),
      fingerprint: import_zod2.z.string().max(128).optional()
    });
    apiEndpointTypes = ["first-master", "dns", "vip"];
    networkProviders = ["flannel"];
    controlPlaneModes = ["self-hosted", "static"];
    isStaticControlPlane = (def) => def.spec.kubernetes.controlPlane === "static";
    runtimeSources = ["mirror", "packages"];
    cgroupDrivers = ["systemd", "cgroupfs"];
    httpUrl = import_zod2.z.string().max(limits.url).refine(isMirrorUrl, "must be an http:// or https:// URL without credentials, e.g. https://mirror.example.com/dl.k8s.io/release");
    registryPrefix = import_zod2.z.string().max(limits.address).refine((s2) => /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9._-]+)*$/.test(s2) || /^\[[0-9a-f:]+\](:\d{1,5})?(\/[a-z0-9._-]+)*$/.test(s2), {
      message: "must be a registry host with an optional port and path, without a scheme, e.g. registry.example.com:5000/k8s"
    });
    pemCertificate = import_zod2.z.string().max(64 * 1024, "must be at most 64 KiB").refine((s2) => /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(s2), "must be a PEM certificate (-----BEGIN CERTIFICATE-----)");
    clusterDefinitionSchema = import_zod2.z.strictObject({
      apiVersion: import_zod2.z.literal(API_VERSION, { error: `must be ${API_VERSION}` }),
      kind: import_zod2.z.literal("Cluster", { error: "must be Cluster" }),
      metadata: import_zod2.z.strictObject({ name: dnsLabel }),
      spec: import_zod2.z.strictObject({
        kubernetes: import_zod2.z.strictObject({
          version: import_zod2.z.string().max(32).superRefine((v, ctx) => {
            const problem = findVersionProfile(v) ? void 0 : versionProblem(v);
            if (problem) ctx.addIssue({ code: "custom", message: problem });
          }),
          controlPlane: import_zod2.z.enum(controlPlaneModes, { error: "must be self-hosted or static" }).default("self-hosted"),
          /**
           * From 1.35 the kubelet refuses cgroup v1 hosts unless told otherwise. true: run on v1 anyway
           * (preflight warns); false: preflight refuses v1 hosts.
           */
          allowCgroupV1: import_zod2.z.boolean({ error: "must be true or false" }).default(false)
        }),
        apiEndpoint: import_zod2.z.strictObject({
          type: import_zod2.z.enum(apiEndpointTypes, { error: "must be first-master, dns or vip" }),
          host: import_zod2.z.string().max(limits.address).optional(),
          port: port.default(6443),
          /**
           * Bootdeck provisions the VIP (type vip only): keepalived from the hosts' packages on every master
           * holds it on `interface`, where the API server answers (docs/engine.md, "A stable API address").
           */
          keepalived: import_zod2.z.strictObject({
            interface: import_zod2.z.string().max(15).regex(/^[A-Za-z0-9_.:-]+$/, "must be a network interface name such as eth0"),
            /** VRRP's virtual router id: unique among the VRRP routers on that network (1–255). */
            virtualRouterId: import_zod2.z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be from 1 to 255").max(255, "must be from 1 to 255").default(51)
          }).optional()
        }),
        network: import_zod2.z.strictObject({
          podCidr: cidr,
          serviceCidr: cidr,
          clusterDomain: import_zod2.z.string().max(limits.address).refine(isDnsName, "must be a DNS name such as cluster.local").default("cluster.local"),
          dnsServiceIp: import_zod2.z.string().max(15).optional(),
          provider: import_zod2.z.enum(networkProviders, { error: "must be flannel" }).default("flannel"),
          flannel: import_zod2.z.strictObject({
            /** The host interface flannel's VXLAN runs over (default: the one with the default route). */
            iface: import_zod2.z.string().max(15).regex(/^[A-Za-z0-9_.:-]+$/, "must be a network interface name such as eth1").optional(),
            /** VXLAN UDP port (flannel's default: 8472, the Linux kernel's). */
            vxlanPort: port.optional()
          }).optional()
        }),
        binaries: import_zod2.z.strictObject({
          /** Kubernetes' release layout: BASE/<version>/bin/linux/<arch>/<name>, `.sha256` beside each. */
          baseUrl: httpUrl,
          /** Pinned checksums of this version's files; without one, a file's published `.sha256` is used. */
          kubelet: import_zod2.z.strictObject({ sha256 }).optional(),
          kubectl: import_zod2.z.strictObject({ sha256 }).optional()
        }),
        runtime: import_zod2.z.strictObject({
          /** mirror: containerd, runc, crictl and the CNI plugins from `mirrorUrl`; packages: from the host's package manager. */
          source: import_zod2.z.enum(runtimeSources, { error: "must be mirror or packages" }).default("mirror"),
          /** Where GitHub release files are mirrored: URL/<owner>/<repo>/releases/download/<tag>/<file>. */
          mirrorUrl: httpUrl.default("https://github.com"),
          /** Must match how the hosts run: systemd as init, or not (preflight checks). */
          cgroupDriver: import_zod2.z.enum(cgroupDrivers, { error: "must be systemd or cgroupfs" }).default("systemd")
        }).default({ source: "mirror", mirrorUrl: "https://github.com", cgroupDriver: "systemd" }),
        images: import_zod2.z.strictObject({
          /** A mirror prefix that replaces the registry of every image Bootdeck renders. */
          registry: registryPrefix.optional(),
          /** The mirror's CA certificate (PEM), when a private CA signed it. */
          ca: pemCertificate.optional(),
          /** Pull credentials: a user and a `password` credential holding the password. */
          auth: import_zod2.z.strictObject({ username: import_zod2.z.string().min(1, "is required").max(256), credential: dnsLabel }).optional()
        }).default({}),
        ssh: import_zod2.z.strictObject({
          user: sshUser.default("root"),
          port: port.default(22),
          credential: dnsLabel.optional()
        }).default({ user: "root", port: 22 }),
        credentials: import_zod2.z.array(credential).max(limits.credentials, `at most ${limits.credentials} credentials`).default([]),
        hosts: import_zod2.z.array(host).max(limits.hosts, `at most ${limits.hosts} hosts`)
      })
    });
    article = (t) => /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
    obj = (v) => v && typeof v === "object" && !Array.isArray(v) ? v : void 0;
    str = (v) => typeof v === "string" ? v : void 0;
  }
});

// lib/cluster/derive.ts
function hostUrlPart(address2) {
  return isIPv6(address2) ? `[${address2}]` : address2;
}
function effectiveHost(def, host3) {
  const single = def.spec.credentials.length === 1 ? def.spec.credentials[0]?.name : void 0;
  return {
    ...host3,
    port: host3.port ?? def.spec.ssh.port,
    user: host3.user ?? def.spec.ssh.user,
    credential: host3.credential ?? def.spec.ssh.credential ?? single
  };
}
function deriveCluster(def) {
  const svc = parseCidr(def.spec.network.serviceCidr);
  const profile = findVersionProfile(def.spec.kubernetes.version);
  if (typeof svc === "string" || !profile) throw new Error("deriveCluster needs a validated definition");
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = hosts.filter((h) => h.role === "master");
  const workers = hosts.filter((h) => h.role === "worker");
  const firstMaster = masters[0];
  if (!firstMaster) throw new Error("deriveCluster needs at least one master");
  const apiEndpointHost = def.spec.apiEndpoint.type === "first-master" ? firstMaster.address : def.spec.apiEndpoint.host ?? "";
  return {
    profile,
    apiServiceIp: nthAddress(svc, 1),
    dnsServiceIp: def.spec.network.dnsServiceIp ?? nthAddress(svc, 10),
    apiServerUrl: `https://${hostUrlPart(apiEndpointHost)}:${def.spec.apiEndpoint.port}`,
    apiEndpointHost,
    masters,
    workers,
    etcdMembers: masters.map((m) => ({
      name: m.name,
      address: m.address,
      peerUrl: `https://${hostUrlPart(m.address)}:2380`,
      clientUrl: `https://${hostUrlPart(m.address)}:2379`
    }))
  };
}
var init_derive = __esm({
  "lib/cluster/derive.ts"() {
    "use strict";
    init_ip();
    init_net_syntax();
    init_versions();
  }
});

// lib/ids.ts
function newId(prefix) {
  return `${prefix}_${(0, import_node_crypto.randomBytes)(12).toString("base64url")}`;
}
var import_node_crypto;
var init_ids = __esm({
  "lib/ids.ts"() {
    "use strict";
    import_node_crypto = require("node:crypto");
  }
});

// lib/secrets/master-key.ts
function keyId(key) {
  return (0, import_node_crypto2.createHash)("sha256").update(key).digest("hex").slice(0, 8);
}
function masterKeyFromBase64(text) {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new Error("a master key must be 32 bytes, base64-encoded");
  return { id: keyId(key), key };
}
function generateMasterKey() {
  const key = (0, import_node_crypto2.randomBytes)(32);
  return { id: keyId(key), key };
}
function masterKeyText(key) {
  return `${key.key.toString("base64")}
`;
}
function readKeyFile(file) {
  const mode = (0, import_node_fs.statSync)(file).mode & 511;
  if (mode & 63) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
  return masterKeyFromBase64((0, import_node_fs.readFileSync)(file, "utf8"));
}
function pendingKeyFile() {
  return `${getEnv().masterKeyFile}.new`;
}
function retiredKeyFiles() {
  const file = getEnv().masterKeyFile;
  const dir = import_node_path2.default.dirname(file);
  const prefix = `${import_node_path2.default.basename(file)}.old-`;
  if (!(0, import_node_fs.existsSync)(dir)) return [];
  return (0, import_node_fs.readdirSync)(dir).filter((n) => n.startsWith(prefix)).sort().map((n) => import_node_path2.default.join(dir, n));
}
function getMasterKey() {
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY) {
    if (cached2?.stamp !== "env") cached2 = { key: masterKeyFromBase64(env.BOOTDECK_MASTER_KEY), stamp: "env" };
    return cached2.key;
  }
  if (!(0, import_node_fs.existsSync)(env.masterKeyFile))
    throw new Error(`No master key: set BOOTDECK_MASTER_KEY or run "bootdeck setup" to create ${env.masterKeyFile}`);
  const st = (0, import_node_fs.statSync)(env.masterKeyFile);
  const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  if (cached2?.stamp !== stamp) cached2 = { key: readKeyFile(env.masterKeyFile), stamp };
  return cached2.key;
}
function masterKeySource() {
  return getEnv().BOOTDECK_MASTER_KEY ? "env" : "file";
}
function findMasterKey(id) {
  const current = getMasterKey();
  if (current.id === id) return current;
  for (const file of [pendingKeyFile(), ...retiredKeyFiles()]) {
    if (!(0, import_node_fs.existsSync)(file)) continue;
    const k = readKeyFile(file);
    if (k.id === id) return k;
  }
  return void 0;
}
function ensureMasterKeyFile() {
  const env = getEnv();
  if (env.BOOTDECK_MASTER_KEY || (0, import_node_fs.existsSync)(env.masterKeyFile)) return false;
  (0, import_node_fs.mkdirSync)(import_node_path2.default.dirname(env.masterKeyFile), { recursive: true, mode: 448 });
  (0, import_node_fs.writeFileSync)(env.masterKeyFile, masterKeyText(generateMasterKey()), { mode: 384, flag: "wx" });
  return true;
}
function resetMasterKeyCache() {
  cached2 = void 0;
}
var import_node_crypto2, import_node_fs, import_node_path2, cached2;
var init_master_key = __esm({
  "lib/secrets/master-key.ts"() {
    "use strict";
    import_node_crypto2 = require("node:crypto");
    import_node_fs = require("node:fs");
    import_node_path2 = __toESM(require("node:path"));
    init_env();
  }
});

// lib/secrets/cipher.ts
function encryptSecret(plain, key = getMasterKey()) {
  const nonce = (0, import_node_crypto3.randomBytes)(12);
  const cipher = (0, import_node_crypto3.createCipheriv)("aes-256-gcm", key.key, nonce);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", key.id, nonce.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}
function decryptSecret(sealed, key) {
  const [version, id, nonce, tag, body] = sealed.split(":");
  if (version !== "v1" || !id || nonce === void 0 || tag === void 0 || body === void 0)
    throw new Error("not a Bootdeck secret (expected v1:\u2026)");
  const k = key ?? findMasterKey(id);
  if (!k || id !== k.id)
    throw new Error(`secret was sealed with master key ${id}, but ${k ? `the key given is ${k.id}` : "no key with that id is available (current, master.key.new or master.key.old-*)"}`);
  const decipher = (0, import_node_crypto3.createDecipheriv)("aes-256-gcm", k.key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}
function sealedKeyId(sealed) {
  return sealed.startsWith("v1:") ? sealed.split(":")[1] : void 0;
}
var import_node_crypto3;
var init_cipher = __esm({
  "lib/secrets/cipher.ts"() {
    "use strict";
    import_node_crypto3 = require("node:crypto");
    init_master_key();
  }
});

// lib/ssh/private-key.ts
function fingerprintOfPublicBlob(blob) {
  return `SHA256:${(0, import_node_crypto4.createHash)("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}
function checkPrivateKey(pem, passphrase) {
  const parsed = import_ssh2.utils.parseKey(pem, passphrase || void 0);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) {
    const message = key instanceof Error ? key.message : "no key found";
    if (/passphrase|decrypt|bad decrypt|integrity/i.test(message))
      return { ok: false, reason: passphrase ? "the passphrase does not open this key" : "this key is encrypted: give its passphrase" };
    return { ok: false, reason: "is not a private key SSH can use (OpenSSH, PEM/PKCS#1 or PKCS#8; RSA, ECDSA or Ed25519)" };
  }
  if (!key.isPrivateKey()) return { ok: false, reason: "is a public key; paste the private key" };
  return { ok: true, fingerprint: fingerprintOfPublicBlob(key.getPublicSSH()), type: key.type };
}
var import_node_crypto4, import_ssh2;
var init_private_key = __esm({
  "lib/ssh/private-key.ts"() {
    "use strict";
    import_node_crypto4 = require("node:crypto");
    import_ssh2 = require("ssh2");
  }
});

// lib/clusters/repository.ts
async function getClusterOrThrow({ id }) {
  const c = await getDb().cluster.findUnique({
    where: { id },
    include: { hosts: { orderBy: { position: "asc" } }, credentials: { orderBy: { name: "asc" } } }
  });
  if (!c) throw notFound("Cluster");
  const definition = JSON.parse(c.definition);
  const hosts = c.hosts.filter((h) => definition.spec.hosts.some((d) => d.name === h.name));
  return {
    ...summarize(c, hosts),
    definition,
    credentials: c.credentials.map((cr) => ({
      name: cr.name,
      type: cr.kind,
      fingerprint: cr.fingerprint,
      hasSecret: cr.kind === "agent" || cr.secretCipher !== null
    })),
    hosts: hosts.map((h) => ({ id: h.id, name: h.name, address: h.address, sshPort: h.sshPort, role: h.role, hostKeyFingerprint: h.hostKeyFingerprint }))
  };
}
async function findClusterIdByName({ name }) {
  return (await getDb().cluster.findUnique({ where: { name }, select: { id: true } }))?.id;
}
async function getExportableDefinition({ id }) {
  const view2 = await getClusterOrThrow({ id });
  const byName = new Map(view2.credentials.map((c) => [c.name, c]));
  return {
    ...view2.definition,
    spec: {
      ...view2.definition.spec,
      credentials: view2.definition.spec.credentials.map((c) => {
        const stored = byName.get(c.name);
        return stored?.fingerprint ? { ...c, fingerprint: stored.fingerprint } : c;
      })
    }
  };
}
async function createCluster(input) {
  const { definition, warnings } = validateOrThrow(input.definition);
  const sealed = sealSecrets(definition, input.secrets, /* @__PURE__ */ new Map());
  const id = newId("cl");
  try {
    await getDb().$transaction(async (tx) => {
      await tx.cluster.create({
        data: { id, name: definition.metadata.name, kubernetesVersion: definition.spec.kubernetes.version, definition: JSON.stringify(definition) }
      });
      for (const c of sealed) await tx.credential.create({ data: { id: newId("cred"), clusterId: id, ...c } });
      await tx.host.createMany({ data: hostRows(definition).map((h) => ({ id: newId("host"), clusterId: id, ...h })) });
    });
  } catch (err) {
    throw uniqueNameConflict(err, definition.metadata.name);
  }
  return { id, warnings };
}
async function updateCluster(input) {
  const { definition, warnings } = validateOrThrow(input.definition);
  const db = getDb();
  const existing = await db.cluster.findUnique({ where: { id: input.id }, include: { hosts: true, credentials: true } });
  if (!existing) throw notFound("Cluster");
  if (existing.activeRunId) throw conflict("A run is in progress on this cluster; wait for it to finish or cancel it before editing");
  const sealed = sealSecrets(definition, input.secrets, new Map(existing.credentials.map((c) => [c.name, c])));
  const hostKeys = { kept: [], cleared: [], removed: [] };
  {
    const next = new Map(hostRows(definition).map((r2) => [r2.name, r2]));
    for (const h of existing.hosts) {
      if (!h.hostKeyFingerprint) continue;
      const r2 = next.get(h.name);
      if (!r2) hostKeys.removed.push({ host: h.name, fingerprint: h.hostKeyFingerprint });
      else if (r2.address !== h.address || r2.sshPort !== h.sshPort) hostKeys.cleared.push({ host: h.name, fingerprint: h.hostKeyFingerprint, from: `${h.address}:${h.sshPort}`, to: `${r2.address}:${r2.sshPort}` });
      else hostKeys.kept.push({ host: h.name, fingerprint: h.hostKeyFingerprint });
    }
  }
  try {
    await db.$transaction(async (tx) => {
      const saved = await tx.cluster.updateMany({
        where: { id: input.id, activeRunId: null, revision: existing.revision },
        data: { name: definition.metadata.name, kubernetesVersion: definition.spec.kubernetes.version, definition: JSON.stringify(definition), revision: { increment: 1 } }
      });
      if (saved.count === 0) throw conflict("A run started on this cluster, or someone else saved it, meanwhile; reload and try again");
      await tx.credential.deleteMany({ where: { clusterId: input.id, name: { notIn: sealed.map((c) => c.name) } } });
      for (const c of sealed)
        await tx.credential.upsert({
          where: { clusterId_name: { clusterId: input.id, name: c.name } },
          create: { id: newId("cred"), clusterId: input.id, ...c },
          update: c
        });
      const rows = hostRows(definition);
      const old = new Map(existing.hosts.map((h) => [h.name, h]));
      await tx.host.deleteMany({ where: { clusterId: input.id, name: { notIn: rows.map((r2) => r2.name) } } });
      for (const r2 of rows) {
        const prev = old.get(r2.name);
        if (!prev) await tx.host.create({ data: { id: newId("host"), clusterId: input.id, ...r2 } });
        else {
          const moved = prev.address !== r2.address || prev.sshPort !== r2.sshPort;
          await tx.host.update({
            where: { id: prev.id },
            data: { ...r2, ...moved ? { hostKeyFingerprint: null, hostKeyConfirmedAt: null, hostKeyConfirmedBy: null, facts: null } : {} }
          });
        }
      }
    });
  } catch (err) {
    throw uniqueNameConflict(err, definition.metadata.name);
  }
  return { warnings, hostKeys };
}
function describeHostKeyChanges(c, cluster) {
  return [
    ...c.cleared.map((x) => `host key of ${x.host} cleared: it moved from ${x.from} to ${x.to} (was ${x.fingerprint}); the next run trusts and records the key it is offered there. Check it in that run's log, or re-pin it now: bootdeck host repin ${cluster} ${x.host}`),
    ...c.removed.map((x) => `host key of ${x.host} removed with the host (was ${x.fingerprint})`),
    ...c.kept.length ? [`host keys kept (address and port unchanged): ${c.kept.map((x) => `${x.host} ${x.fingerprint}`).join(", ")}`] : []
  ];
}
function validateOrThrow(input) {
  const result = validateClusterDefinition(input);
  if (!result.ok) throw new ValidationError(result.errors, result.warnings);
  return { definition: result.definition, warnings: result.warnings };
}
function summarize(c, hosts) {
  const masters = hosts.filter((h) => h.role === "master").length;
  return {
    id: c.id,
    name: c.name,
    kubernetesVersion: c.kubernetesVersion,
    masters,
    workers: hosts.length - masters,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString()
  };
}
function hostRows(def) {
  return def.spec.hosts.map((h, position) => {
    const e = effectiveHost(def, h);
    return { position, name: e.name, address: e.address, sshPort: e.port, role: e.role };
  });
}
function sealSecrets(def, secrets, stored) {
  const errors = [];
  const declared = new Set(def.spec.credentials.map((c) => c.name));
  for (const name of Object.keys(secrets))
    if (!declared.has(name)) errors.push({ path: `secrets.${name}`, message: "is a secret for a credential the definition does not declare" });
  const sealed = def.spec.credentials.map((c) => {
    const s2 = secrets[c.name] ?? {};
    const prev = stored.get(c.name);
    const keep = prev && prev.kind === c.type ? prev : void 0;
    const path22 = `secrets.${c.name}`;
    if (c.type === "agent") return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
    if (c.type === "password") {
      if (s2.password) return { name: c.name, kind: c.type, secretCipher: encryptSecret(s2.password), passphraseCipher: null, fingerprint: null };
      if (keep?.secretCipher) return { name: c.name, kind: c.type, secretCipher: keep.secretCipher, passphraseCipher: null, fingerprint: null };
      errors.push({ path: `${path22}.password`, message: "is required for a password credential" });
      return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
    }
    if (s2.privateKey) {
      const check = checkPrivateKey(s2.privateKey, s2.passphrase);
      if (!check.ok) {
        errors.push({ path: `${path22}.${/passphrase/.test(check.reason) ? "passphrase" : "privateKey"}`, message: check.reason });
        return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
      }
      return {
        name: c.name,
        kind: c.type,
        secretCipher: encryptSecret(s2.privateKey),
        passphraseCipher: s2.passphrase ? encryptSecret(s2.passphrase) : null,
        fingerprint: check.fingerprint
      };
    }
    if (keep?.secretCipher) return { name: c.name, kind: c.type, secretCipher: keep.secretCipher, passphraseCipher: keep.passphraseCipher, fingerprint: keep.fingerprint };
    errors.push({ path: `${path22}.privateKey`, message: "is required: paste or upload the private key" });
    return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
  });
  if (errors.length) throw new ValidationError(errors);
  return sealed;
}
function uniqueNameConflict(err, name) {
  if (err && typeof err === "object" && "code" in err && err.code === "P2002")
    return new AppError(409, "name_taken", `A cluster named "${name}" already exists`, {
      errors: [{ path: "metadata.name", message: `a cluster named "${name}" already exists` }],
      warnings: []
    });
  return err;
}
var init_repository = __esm({
  "lib/clusters/repository.ts"() {
    "use strict";
    init_definition();
    init_derive();
    init_client2();
    init_errors();
    init_ids();
    init_cipher();
    init_private_key();
  }
});

// lib/assets/cert-details.ts
var isCertificatePath;
var init_cert_details = __esm({
  "lib/assets/cert-details.ts"() {
    "use strict";
    isCertificatePath = (path22) => path22.endsWith(".crt");
  }
});

// lib/assets/keep.ts
function keptPkiFrom(files) {
  const certs2 = /* @__PURE__ */ new Map();
  for (const [path22, certPem] of files) {
    if (!path22.startsWith("tls/") || !path22.endsWith(".crt")) continue;
    const stem = path22.slice(0, -".crt".length);
    const keyPem = files.get(`${stem}.key`);
    if (keyPem) certs2.set(stem, { certPem, keyPem });
  }
  const saKey = files.get("tls/service-account.key");
  const saPub = files.get("tls/service-account.pub");
  if (!files.has("tls/ca.crt")) throw new NothingToKeepError("the cluster's asset set has no CA (tls/ca.crt): render the assets and bootstrap the cluster first");
  if (!saKey || !saPub) throw new NothingToKeepError("the asset set has no service-account key pair (tls/service-account.key and .pub): it cannot be kept");
  const kubelet = files.get("auth/kubeconfig-kubelet");
  const token = kubelet ? import_yaml.default.parse(kubelet).users?.[0]?.user?.token : void 0;
  if (!token) throw new NothingToKeepError("the asset set has no kubelet bootstrap token (auth/kubeconfig-kubelet): it cannot be kept");
  return { certs: certs2, serviceAccount: { keyPem: saKey, pubPem: saPub }, token };
}
function sansOf(cert) {
  return new Set(
    (cert.subjectAltName ?? "").split(/,\s*/).filter(Boolean).map((s2) => s2.startsWith("DNS:") ? s2.toLowerCase().replace(/^dns:/, "DNS:") : s2)
  );
}
function keptCertificateFits(entry, certPem, issuerPem, required) {
  const cert = new import_node_crypto5.X509Certificate(certPem);
  if (entry.isCa) return cert.ca;
  if (cert.subject !== subjectText(entry)) return false;
  if (!issuerPem) return false;
  const issuer = new import_node_crypto5.X509Certificate(issuerPem);
  if (cert.issuer !== issuer.subject || !cert.verify(issuer.publicKey)) return false;
  const have = sansOf(cert);
  return required.every((a) => have.has(altText(a)));
}
var import_node_crypto5, import_yaml, NothingToKeepError, altText, subjectText;
var init_keep = __esm({
  "lib/assets/keep.ts"() {
    "use strict";
    import_node_crypto5 = require("node:crypto");
    import_yaml = __toESM(require("yaml"));
    NothingToKeepError = class extends Error {
    };
    altText = (a) => "dns" in a ? `DNS:${a.dns.toLowerCase()}` : `IP Address:${a.ip}`;
    subjectText = (entry) => entry.subject.map((a) => `${a.shortName}=${a.value}`).join("\n");
  }
});

// lib/assets/context.ts
function masterSelector(ctx) {
  return ctx.caps.selfLabelRole ? { master: "true" } : { "node-role.kubernetes.io/control-plane": "" };
}
function masterTolerations(ctx) {
  return ctx.caps.selfLabelRole ? [{ key: "node-role.kubernetes.io/master", operator: "Exists", effect: "NoSchedule" }] : [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }];
}
var SECRETS_DIR, BOOTSTRAP_SECRETS_HOST_DIR, IN_CLUSTER_KUBECONFIG_DIR, securePort, etcdServers, tolerateAll;
var init_context = __esm({
  "lib/assets/context.ts"() {
    "use strict";
    SECRETS_DIR = "/etc/kubernetes/secrets";
    BOOTSTRAP_SECRETS_HOST_DIR = "/etc/kubernetes/bootstrap-secrets";
    IN_CLUSTER_KUBECONFIG_DIR = "/etc/kubernetes/kubeconfig";
    securePort = (ctx) => ctx.def.spec.apiEndpoint.port;
    etcdServers = (ctx) => ctx.derived.etcdMembers.map((m) => m.clientUrl).join(",");
    tolerateAll = [{ operator: "Exists" }];
  }
});

// lib/cluster/runtime-versions.ts
function minimumContainerd(kubernetesMinor) {
  return kubernetesMinor >= 36 ? "2.0.0" : "1.7.0";
}
var runtimeVersions, addonVersions;
var init_runtime_versions = __esm({
  "lib/cluster/runtime-versions.ts"() {
    "use strict";
    runtimeVersions = {
      /** containerd 2.x: the kubelet reads its cgroup driver over CRI (RuntimeConfig), which 1.x lacks. */
      containerd: "2.4.2",
      runc: "1.5.3",
      /** crictl of the newest Kubernetes minor speaks CRI v1 to any containerd 2.x. */
      crictl: "v1.37.0",
      cniPlugins: "v1.10.0"
    };
    addonVersions = {
      flannel: "v0.28.10",
      /** The flannel CNI plugin image flannel v0.28.10's manifest uses. */
      flannelCniPlugin: "v1.9.1-flannel3"
    };
  }
});

// lib/assets/capabilities.ts
function capabilitiesFor(version) {
  const minor = minorOf(version);
  if (!Number.isFinite(minor)) throw new Error(`not a Kubernetes version: ${version}`);
  return {
    minor,
    version,
    workloadsApi: minor >= 9 ? "apps/v1" : "extensions/v1beta1",
    pdbApi: minor >= 21 ? "policy/v1" : "policy/v1beta1",
    rbac: minor >= 8,
    bootstrapTokens: minor >= 6,
    frontProxy: minor >= 7,
    hyperkube: minor < 19,
    kubeletConfigFile: minor >= 10,
    requireKubeconfigFlag: minor < 10,
    allowPrivilegedFlag: minor < 15,
    networkPluginFlag: minor < 24,
    selfLabelRole: minor < 16,
    serviceAccountIssuer: minor >= 20,
    insecurePortFlag: minor < 20,
    flannelNamespace: minor >= 20 ? "kube-flannel" : "kube-system",
    priorityClasses: minor >= 11,
    hostPathTypes: minor >= 8,
    legacyServiceAccountTokens: minor < 24,
    modernFlannel: minor >= 20,
    modernCoredns: minor >= 29,
    failCgroupV1Field: minor >= 31,
    anonymousEndpoints: minor >= 34,
    checkpoint: minor >= 24 ? "host" : "pod-checkpointer",
    criRuntime: minor >= 24,
    apiserverPortSharing: minor >= 19,
    cgroupV1Refused: minor >= 35,
    etcdHealthEndpoints: minor >= 34,
    etcdRestoreBumpsRevision: minor >= 34,
    apiserverShutdownDelay: minor >= 34
  };
}
function imagesFor(caps, registry) {
  const v = caps.version;
  const { pins } = profileOf(v);
  const hyperkube = `quay.io/coreos/hyperkube:${v}_coreos.0`;
  const component = (name) => caps.hyperkube ? hyperkube : `registry.k8s.io/${name}:${v}`;
  const images2 = caps.hyperkube ? {
    apiserver: hyperkube,
    controllerManager: hyperkube,
    scheduler: hyperkube,
    proxy: hyperkube,
    etcd: `quay.io/coreos/etcd:${pins.etcd}`,
    coredns: `docker.io/coredns/coredns:${pins.coredns}`,
    flannel: "quay.io/coreos/flannel:v0.7.1-amd64",
    flannelCni: void 0,
    checkpointer: "quay.io/coreos/pod-checkpointer:83e25e5968391b9eb342042c435d1b3eeddb2be1",
    pause: void 0
  } : {
    apiserver: component("kube-apiserver"),
    controllerManager: component("kube-controller-manager"),
    scheduler: component("kube-scheduler"),
    proxy: component("kube-proxy"),
    etcd: `registry.k8s.io/etcd:${pins.etcd}`,
    coredns: `registry.k8s.io/coredns/coredns:${pins.coredns}`,
    flannel: `ghcr.io/flannel-io/flannel:${addonVersions.flannel}`,
    flannelCni: `ghcr.io/flannel-io/flannel-cni-plugin:${addonVersions.flannelCniPlugin}`,
    checkpointer: void 0,
    pause: `registry.k8s.io/pause:${pins.pause}`
  };
  if (!registry) return images2;
  return Object.fromEntries(Object.entries(images2).map(([k, ref]) => [k, ref === void 0 ? void 0 : mirroredImage(ref, registry)]));
}
function mirroredImage(ref, registry) {
  const slash = ref.indexOf("/");
  const first = slash > 0 ? ref.slice(0, slash) : "";
  const repo = /[.:]/.test(first) || first === "localhost" ? ref.slice(slash + 1) : ref.includes("/") ? ref : `library/${ref}`;
  return `${registry.replace(/\/+$/, "")}/${repo}`;
}
function componentCommand(caps, name) {
  return caps.hyperkube ? ["/hyperkube", name.replace(/^kube-/, "")] : [name];
}
function clusterImages(version, registry) {
  const caps = capabilitiesFor(version);
  const upstream = imagesFor(caps);
  const seen2 = /* @__PURE__ */ new Set();
  const out = [];
  for (const ref of Object.values(upstream)) {
    if (ref === void 0 || seen2.has(ref)) continue;
    seen2.add(ref);
    out.push({ upstream: ref, pulled: registry ? mirroredImage(ref, registry) : ref });
  }
  return out;
}
var init_capabilities = __esm({
  "lib/assets/capabilities.ts"() {
    "use strict";
    init_runtime_versions();
    init_versions();
  }
});

// lib/assets/manifests/flags.ts
function apiserverSecretFiles(ctx) {
  const files = {
    "ca.crt": "tls/ca.crt",
    "apiserver.crt": "tls/apiserver.crt",
    "apiserver.key": "tls/apiserver.key",
    "apiserver-kubelet-client.crt": "tls/apiserver-kubelet-client.crt",
    "apiserver-kubelet-client.key": "tls/apiserver-kubelet-client.key",
    "service-account.pub": "tls/service-account.pub",
    "etcd/ca.crt": "tls/etcd/ca.crt",
    "etcd-client.crt": "tls/etcd-client.crt",
    "etcd-client.key": "tls/etcd-client.key"
  };
  if (ctx.caps.serviceAccountIssuer) files["service-account.key"] = "tls/service-account.key";
  if (ctx.caps.frontProxy)
    Object.assign(files, {
      "front-proxy-ca.crt": "tls/front-proxy-ca.crt",
      "front-proxy-client.crt": "tls/front-proxy-client.crt",
      "front-proxy-client.key": "tls/front-proxy-client.key"
    });
  if (!ctx.caps.bootstrapTokens) files["known-tokens.csv"] = "auth/known-tokens.csv";
  if (ctx.caps.anonymousEndpoints) files["authentication-config.yaml"] = "apiserver/authentication-config.yaml";
  return files;
}
function authenticationConfig() {
  return [
    "apiVersion: apiserver.config.k8s.io/v1",
    "kind: AuthenticationConfiguration",
    "anonymous:",
    "  enabled: true",
    "  conditions:",
    ...HEALTH_PATHS.map((p2) => `    - path: ${p2}`),
    ""
  ].join("\n");
}
function apiserverProbes(ctx) {
  if (!ctx.caps.anonymousEndpoints) return {};
  const get = (path22) => ({ httpGet: { path: path22, port: securePort(ctx), scheme: "HTTPS" } });
  return {
    livenessProbe: { ...get("/livez"), initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 },
    readinessProbe: { ...get("/readyz"), periodSeconds: 1, timeoutSeconds: 15, failureThreshold: 3 },
    startupProbe: { ...get("/livez"), initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 24 }
  };
}
function componentProbe(ctx, port2) {
  if (!ctx.caps.anonymousEndpoints) return {};
  return { livenessProbe: { httpGet: { path: "/healthz", port: port2, scheme: "HTTPS" }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 } };
}
function controllerManagerSecretFiles() {
  return { "ca.crt": "tls/ca.crt", "ca.key": "tls/ca.key", "service-account.key": "tls/service-account.key" };
}
function apiserverCommand(ctx) {
  const { caps, def } = ctx;
  const flags = [
    "--advertise-address=$(POD_IP)",
    "--allow-privileged=true",
    "--bind-address=0.0.0.0",
    `--client-ca-file=${s("ca.crt")}`,
    `--etcd-cafile=${s("etcd/ca.crt")}`,
    `--etcd-certfile=${s("etcd-client.crt")}`,
    `--etcd-keyfile=${s("etcd-client.key")}`,
    `--etcd-servers=${etcdServers(ctx)}`,
    `--kubelet-client-certificate=${s("apiserver-kubelet-client.crt")}`,
    `--kubelet-client-key=${s("apiserver-kubelet-client.key")}`,
    // Explicit, never empty (bootkube #757 rendered `--secure-port=` when the URL had no port).
    `--secure-port=${securePort(ctx)}`,
    `--service-account-key-file=${s("service-account.pub")}`,
    `--service-cluster-ip-range=${def.spec.network.serviceCidr}`,
    `--tls-cert-file=${s("apiserver.crt")}`,
    `--tls-private-key-file=${s("apiserver.key")}`
  ];
  if (caps.rbac) flags.push("--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction", "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname");
  else flags.push("--authorization-mode=AlwaysAllow", "--admission-control=NamespaceLifecycle,LimitRanger,ServiceAccount,ResourceQuota", "--storage-backend=etcd3");
  if (caps.bootstrapTokens) flags.push("--enable-bootstrap-token-auth=true");
  else flags.push(`--token-auth-file=${s("known-tokens.csv")}`);
  if (caps.insecurePortFlag) flags.push("--insecure-port=0");
  if (caps.anonymousEndpoints) flags.push(`--authentication-config=${s("authentication-config.yaml")}`);
  if (caps.apiserverPortSharing) flags.push("--permit-port-sharing=true");
  if (caps.apiserverShutdownDelay) flags.push(`--shutdown-delay-duration=${SHUTDOWN_DELAY_S}s`);
  if (caps.serviceAccountIssuer)
    flags.push(
      `--service-account-issuer=https://kubernetes.default.svc.${def.spec.network.clusterDomain}`,
      `--service-account-signing-key-file=${s("service-account.key")}`
    );
  if (caps.frontProxy)
    flags.push(
      `--proxy-client-cert-file=${s("front-proxy-client.crt")}`,
      `--proxy-client-key-file=${s("front-proxy-client.key")}`,
      "--requestheader-allowed-names=front-proxy-client",
      `--requestheader-client-ca-file=${s("front-proxy-ca.crt")}`,
      "--requestheader-extra-headers-prefix=X-Remote-Extra-",
      "--requestheader-group-headers=X-Remote-Group",
      "--requestheader-username-headers=X-Remote-User"
    );
  return [...componentCommand(caps, "kube-apiserver"), ...flags.sort()];
}
function controllerManagerCommand(ctx, kubeconfigPath) {
  const { caps, def } = ctx;
  const flags = [
    "--allocate-node-cidrs=true",
    `--cluster-cidr=${def.spec.network.podCidr}`,
    `--cluster-name=${def.metadata.name}`,
    `--cluster-signing-cert-file=${s("ca.crt")}`,
    `--cluster-signing-key-file=${s("ca.key")}`,
    `--kubeconfig=${kubeconfigPath}`,
    "--leader-elect=true",
    `--root-ca-file=${s("ca.crt")}`,
    `--service-account-private-key-file=${s("service-account.key")}`,
    `--service-cluster-ip-range=${def.spec.network.serviceCidr}`
  ];
  if (caps.rbac)
    flags.push(
      `--authentication-kubeconfig=${kubeconfigPath}`,
      `--authorization-kubeconfig=${kubeconfigPath}`,
      "--controllers=*,bootstrapsigner,tokencleaner",
      "--use-service-account-credentials=true"
    );
  return [...componentCommand(caps, "kube-controller-manager"), ...flags.sort()];
}
function schedulerCommand(ctx, kubeconfigPath) {
  const flags = [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=true"];
  if (ctx.caps.rbac) flags.push(`--authentication-kubeconfig=${kubeconfigPath}`, `--authorization-kubeconfig=${kubeconfigPath}`);
  return [...componentCommand(ctx.caps, "kube-scheduler"), ...flags.sort()];
}
var s, HEALTH_PATHS, SHUTDOWN_DELAY_S, CONTROLLER_MANAGER_PORT, SCHEDULER_PORT, podIpEnv, nodeNameEnv;
var init_flags = __esm({
  "lib/assets/manifests/flags.ts"() {
    "use strict";
    init_capabilities();
    init_context();
    s = (rel) => `${SECRETS_DIR}/${rel}`;
    HEALTH_PATHS = ["/livez", "/readyz", "/healthz"];
    SHUTDOWN_DELAY_S = 5;
    CONTROLLER_MANAGER_PORT = 10257;
    SCHEDULER_PORT = 10259;
    podIpEnv = [{ name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }];
    nodeNameEnv = [{ name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }];
  }
});

// lib/assets/bootstrap-manifests.ts
function bootstrapSecretFiles(assetPaths) {
  const out = {};
  for (const p2 of assetPaths) {
    if (p2.startsWith("tls/")) out[p2] = p2.slice("tls/".length);
    else if (p2 === "auth/kubeconfig-controller-manager" || p2 === "auth/kubeconfig-scheduler" || p2 === "auth/known-tokens.csv" || p2 === "apiserver/authentication-config.yaml")
      out[p2] = p2.slice(p2.indexOf("/") + 1);
  }
  return out;
}
function staticPod(ctx, name, image, command, probes, opts) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${opts.prefix}${name}`, namespace: "kube-system", labels: { "k8s-app": `${opts.prefix}${name}`, tier: "control-plane" } },
    spec: {
      hostNetwork: true,
      priorityClassName: ctx.caps.priorityClasses ? opts.priorityClass : void 0,
      containers: [
        {
          name,
          image,
          command,
          env: name === "kube-apiserver" ? podIpEnv : void 0,
          ...probes,
          volumeMounts: [
            { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
            { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true }
          ]
        }
      ],
      volumes: [
        { name: "secrets", hostPath: { path: opts.secretsHostDir } },
        { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } }
      ]
    }
  };
}
function controlPlanePods(ctx, opts) {
  const { images: images2 } = ctx;
  return [
    staticPod(ctx, "kube-apiserver", images2.apiserver, apiserverCommand(ctx), apiserverProbes(ctx), opts),
    staticPod(ctx, "kube-controller-manager", images2.controllerManager, controllerManagerCommand(ctx, `${SECRETS_DIR}/kubeconfig-controller-manager`), componentProbe(ctx, CONTROLLER_MANAGER_PORT), opts),
    staticPod(ctx, "kube-scheduler", images2.scheduler, schedulerCommand(ctx, `${SECRETS_DIR}/kubeconfig-scheduler`), componentProbe(ctx, SCHEDULER_PORT), opts)
  ];
}
function bootstrapManifests(ctx) {
  const [apiserver, controllerManager, scheduler] = controlPlanePods(ctx, { prefix: "bootstrap-", secretsHostDir: BOOTSTRAP_SECRETS_HOST_DIR, priorityClass: "system-node-critical" });
  return [
    { path: "bootstrap-manifests/bootstrap-apiserver.yaml", purpose: "temporary API server static pod on the first master, until the pivot", objects: [apiserver] },
    { path: "bootstrap-manifests/bootstrap-controller-manager.yaml", purpose: "temporary controller-manager static pod on the first master, until the pivot", objects: [controllerManager] },
    { path: "bootstrap-manifests/bootstrap-scheduler.yaml", purpose: "temporary scheduler static pod on the first master, until the pivot", objects: [scheduler] }
  ];
}
function staticControlPlaneManifests(ctx) {
  const [apiserver, controllerManager, scheduler] = controlPlanePods(ctx, { prefix: "", secretsHostDir: STATIC_SECRETS_HOST_DIR, priorityClass: "system-node-critical" });
  return [
    { path: "static-manifests/kube-apiserver.yaml", purpose: `API server static pod on every master (secrets in ${STATIC_SECRETS_HOST_DIR})`, objects: [apiserver] },
    { path: "static-manifests/kube-controller-manager.yaml", purpose: "controller-manager static pod on every master (leader-elected; its master's API server on loopback)", objects: [controllerManager] },
    { path: "static-manifests/kube-scheduler.yaml", purpose: "scheduler static pod on every master (leader-elected; its master's API server on loopback)", objects: [scheduler] }
  ];
}
function etcdProbes() {
  const get = (path22) => ({ httpGet: { host: "127.0.0.1", path: path22, port: ETCD_METRICS_PORT, scheme: "HTTP" } });
  return {
    livenessProbe: { ...get("/livez"), initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 },
    readinessProbe: { ...get("/readyz"), periodSeconds: 1, timeoutSeconds: 15, failureThreshold: 3 },
    startupProbe: { ...get("/readyz"), initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 24 }
  };
}
function etcdMemberFiles(member) {
  return {
    "tls/etcd/ca.crt": `${ETCD_HOST_DIR}/ca.crt`,
    [`tls/etcd/server-${member}.crt`]: `${ETCD_HOST_DIR}/server.crt`,
    [`tls/etcd/server-${member}.key`]: `${ETCD_HOST_DIR}/server.key`,
    [`tls/etcd/peer-${member}.crt`]: `${ETCD_HOST_DIR}/peer.crt`,
    [`tls/etcd/peer-${member}.key`]: `${ETCD_HOST_DIR}/peer.key`
  };
}
function etcdManifests(ctx, joining = []) {
  const members = ctx.derived.etcdMembers;
  const founders = members.filter((m) => !joining.includes(m.name));
  const joiners = members.filter((m) => joining.includes(m.name));
  const listed = (ms) => ms.map((m) => `${m.name}=${m.peerUrl}`).join(",");
  return members.map((m) => {
    const j = joiners.findIndex((x) => x.name === m.name);
    const initialCluster2 = j < 0 ? listed(founders) : listed([...founders, ...joiners.slice(0, j + 1)]);
    const any = m.address.includes(":") ? "[::]" : "0.0.0.0";
    const d = ETCD_HOST_DIR;
    return {
      path: `etcd/etcd-${m.name}.yaml`,
      purpose: `etcd member static pod for ${m.name} (goes to its /etc/kubernetes/manifests)`,
      objects: [
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "etcd", namespace: "kube-system", labels: { "k8s-app": "etcd", tier: "control-plane" } },
          spec: {
            hostNetwork: true,
            priorityClassName: ctx.caps.priorityClasses ? "system-node-critical" : void 0,
            containers: [
              {
                name: "etcd",
                image: ctx.images.etcd,
                command: [
                  "etcd",
                  `--name=${m.name}`,
                  "--data-dir=/var/lib/etcd",
                  `--listen-client-urls=https://${any}:2379`,
                  `--advertise-client-urls=${m.clientUrl}`,
                  `--listen-peer-urls=https://${any}:2380`,
                  `--initial-advertise-peer-urls=${m.peerUrl}`,
                  `--initial-cluster=${initialCluster2}`,
                  `--initial-cluster-state=${j < 0 ? "new" : "existing"}`,
                  `--initial-cluster-token=${ctx.def.metadata.name}`,
                  `--cert-file=${d}/server.crt`,
                  `--key-file=${d}/server.key`,
                  `--trusted-ca-file=${d}/ca.crt`,
                  "--client-cert-auth=true",
                  `--peer-cert-file=${d}/peer.crt`,
                  `--peer-key-file=${d}/peer.key`,
                  `--peer-trusted-ca-file=${d}/ca.crt`,
                  "--peer-client-cert-auth=true",
                  ...ctx.caps.etcdHealthEndpoints ? [`--listen-metrics-urls=http://127.0.0.1:${ETCD_METRICS_PORT}`] : []
                ],
                ...ctx.caps.etcdHealthEndpoints ? etcdProbes() : {},
                volumeMounts: [
                  { name: "etcd-data", mountPath: "/var/lib/etcd" },
                  { name: "etcd-certs", mountPath: d, readOnly: true }
                ]
              }
            ],
            volumes: [
              { name: "etcd-data", hostPath: { path: "/var/lib/etcd", type: ctx.caps.hostPathTypes ? "DirectoryOrCreate" : void 0 } },
              { name: "etcd-certs", hostPath: { path: d } }
            ]
          }
        }
      ]
    };
  });
}
var STATIC_SECRETS_HOST_DIR, ETCD_HOST_DIR, ETCD_METRICS_PORT;
var init_bootstrap_manifests = __esm({
  "lib/assets/bootstrap-manifests.ts"() {
    "use strict";
    init_context();
    init_flags();
    STATIC_SECRETS_HOST_DIR = "/etc/kubernetes/control-plane-secrets";
    ETCD_HOST_DIR = "/etc/kubernetes/etcd";
    ETCD_METRICS_PORT = 2381;
  }
});

// lib/assets/pki.ts
function generate(type) {
  return new Promise((resolve, reject) => {
    const done = (err, publicKey, privateKey) => err ? reject(err) : resolve({ publicKey, privateKey });
    if (type === "rsa") (0, import_node_crypto6.generateKeyPair)("rsa", { modulusLength: 2048, publicExponent: 65537 }, done);
    else (0, import_node_crypto6.generateKeyPair)("ec", { namedCurve: "P-256" }, done);
  });
}
function keyPairFrom(source) {
  const privateKey = typeof source === "string" ? (0, import_node_crypto6.createPrivateKey)(source) : source;
  return { privateKey, publicKey: (0, import_node_crypto6.createPublicKey)(privateKey) };
}
function startKeyGeneration(names, type, injected = {}, onKey) {
  const out = /* @__PURE__ */ new Map();
  for (const name of names) {
    const given = injected[name];
    const p2 = given !== void 0 ? Promise.resolve(keyPairFrom(given)) : generate(type);
    out.set(
      name,
      p2.then((k) => {
        onKey?.(name);
        return k;
      })
    );
  }
  return out;
}
function privateKeyPem(key) {
  return key.asymmetricKeyType === "ec" ? key.export({ type: "sec1", format: "pem" }) : key.export({ type: "pkcs1", format: "pem" });
}
function publicKeyPem(key) {
  return key.export({ type: "spki", format: "pem" });
}
var import_node_crypto6;
var init_pki = __esm({
  "lib/assets/pki.ts"() {
    "use strict";
    import_node_crypto6 = require("node:crypto");
  }
});

// lib/assets/types.ts
var defaultRenderOptions, RenderValidationError, RenderOptionsError;
var init_types = __esm({
  "lib/assets/types.ts"() {
    "use strict";
    defaultRenderOptions = { keyType: "rsa", caValidityDays: 3650, leafValidityDays: 365 };
    RenderValidationError = class extends Error {
      problems;
      constructor(problems) {
        super(`the cluster definition has ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems.map((p2) => `${p2.path}: ${p2.message}`).join("; ")}`);
        this.name = "RenderValidationError";
        this.problems = problems;
      }
    };
    RenderOptionsError = class extends Error {
      constructor(message) {
        super(message);
        this.name = "RenderOptionsError";
      }
    };
  }
});

// lib/assets/x509.ts
function algorithmIdentifier(signingKey) {
  const type = signingKey.asymmetricKeyType;
  if (type === "rsa") return seq([oid(OID.sha256WithRSA), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, "")]);
  if (type === "ec") return seq([oid(OID.ecdsaWithSHA256)]);
  throw new Error(`cannot sign with a ${String(type)} key; use RSA or ECDSA`);
}
function time(d) {
  return d.getUTCFullYear() < 2050 ? asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(d)) : asn1.create(asn1.Class.UNIVERSAL, asn1.Type.GENERALIZEDTIME, false, asn1.dateToGeneralizedTime(d));
}
function keyIdentifier(publicKey) {
  const spki = spkiAsn1(publicKey);
  const bits = spki.value[1]?.value;
  if (typeof bits !== "string") throw new Error("unexpected SubjectPublicKeyInfo");
  return (0, import_node_crypto7.createHash)("sha1").update(buf(bits.slice(1))).digest();
}
function spkiAsn1(publicKey) {
  return fromDer(bin(publicKey.export({ type: "spki", format: "der" })), { decodeBitStrings: false });
}
function tbsOf(certDer) {
  const cert = fromDer(bin(certDer), { decodeBitStrings: false });
  const tbs = cert.value[0];
  if (!tbs || !Array.isArray(tbs.value)) throw new Error("not an X.509 certificate");
  return tbs.value;
}
function subjectOf(certDer) {
  const tbs = tbsOf(certDer);
  const subject = tbs[tbs[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC ? 5 : 4];
  if (!subject) throw new Error("certificate has no subject");
  return subject;
}
function subjectKeyIdentifierOf(certDer) {
  const exts = tbsOf(certDer).find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && n.type === 3);
  const list = exts?.value?.[0]?.value;
  for (const ext of list ?? []) {
    const parts = ext.value;
    if (parts[0] && asn1.derToOid(parts[0].value) === OID.subjectKeyIdentifier) {
      const octets = parts[parts.length - 1]?.value;
      if (typeof octets !== "string") return void 0;
      const inner = asn1.fromDer(octets).value;
      return typeof inner === "string" ? buf(inner) : void 0;
    }
  }
  return void 0;
}
function keyIdExtension(id, value) {
  return seq([oid(id), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, asn1.toDer(value).getBytes())]);
}
function buildCertificate(spec) {
  const forgeCert = import_node_forge.default.pki.createCertificate();
  forgeCert.setSubject(spec.subject.map((a) => ({ shortName: a.shortName, value: a.value })));
  const subjectName = import_node_forge.default.pki.distinguishedNameToAsn1(forgeCert.subject);
  const issuerName = spec.issuer ? subjectOf(spec.issuer.certDer) : subjectName;
  const extensions = [
    { name: "basicConstraints", cA: spec.isCa, critical: true },
    spec.isCa ? { name: "keyUsage", critical: true, keyCertSign: true, cRLSign: true, digitalSignature: true } : (
      // RSA key exchange needs keyEncipherment; ECDSA keys only sign.
      { name: "keyUsage", critical: true, digitalSignature: true, keyEncipherment: spec.publicKey.asymmetricKeyType === "rsa" }
    )
  ];
  if (spec.usages.length > 0)
    extensions.push({ name: "extKeyUsage", serverAuth: spec.usages.includes("serverAuth"), clientAuth: spec.usages.includes("clientAuth") });
  if (spec.altNames.length > 0)
    extensions.push({
      name: "subjectAltName",
      altNames: spec.altNames.map((n) => "dns" in n ? { type: 2, value: n.dns } : { type: 7, ip: n.ip })
    });
  forgeCert.setExtensions(extensions);
  const extSeq = extensionsToAsn1(forgeCert.extensions);
  const list = extSeq.value[0]?.value;
  const ski = keyIdentifier(spec.publicKey);
  list.push(keyIdExtension(OID.subjectKeyIdentifier, asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, bin(ski))));
  const aki = spec.issuer ? subjectKeyIdentifierOf(spec.issuer.certDer) ?? keyIdentifier(spec.signingKey) : ski;
  list.push(keyIdExtension(OID.authorityKeyIdentifier, seq([asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, bin(aki))])));
  const algorithm = algorithmIdentifier(spec.signingKey);
  const tbs = seq([
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(2).getBytes())]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, bin(spec.serial)),
    algorithm,
    issuerName,
    seq([time(spec.notBefore), time(spec.notAfter)]),
    subjectName,
    spkiAsn1(spec.publicKey),
    extSeq
  ]);
  const tbsDer = buf(asn1.toDer(tbs).getBytes());
  const signature = (0, import_node_crypto7.sign)("sha256", tbsDer, spec.signingKey);
  const cert = seq([
    tbs,
    algorithmIdentifier(spec.signingKey),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\0${bin(signature)}`)
  ]);
  return buf(asn1.toDer(cert).getBytes());
}
function certificatePem(der) {
  const b64 = der.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN CERTIFICATE-----
${b64}
-----END CERTIFICATE-----
`;
}
function certificateDer(pem) {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem);
  if (!m?.[1]) throw new Error("no PEM certificate found");
  return Buffer.from(m[1].replace(/\s+/g, ""), "base64");
}
var import_node_crypto7, import_node_forge, asn1, fromDer, extensionsToAsn1, OID, bin, buf, seq, oid;
var init_x509 = __esm({
  "lib/assets/x509.ts"() {
    "use strict";
    import_node_crypto7 = require("node:crypto");
    import_node_forge = __toESM(require("node-forge"));
    asn1 = import_node_forge.default.asn1;
    fromDer = asn1.fromDer;
    extensionsToAsn1 = import_node_forge.default.pki.certificateExtensionsToAsn1;
    OID = {
      sha256WithRSA: "1.2.840.113549.1.1.11",
      ecdsaWithSHA256: "1.2.840.10045.4.3.2",
      subjectKeyIdentifier: "2.5.29.14",
      authorityKeyIdentifier: "2.5.29.35"
    };
    bin = (b) => b.toString("binary");
    buf = (s2) => Buffer.from(s2, "binary");
    seq = (v) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, v);
    oid = (o2) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o2).getBytes());
  }
});

// lib/assets/certificates.ts
function uniqueAltNames(values) {
  const seen2 = /* @__PURE__ */ new Set();
  return values.filter((v) => v !== "" && !seen2.has(v.toLowerCase()) && seen2.add(v.toLowerCase())).map(alt);
}
function apiserverAltNames(def, derived) {
  const domain = def.spec.network.clusterDomain;
  return uniqueAltNames([
    ...derived.masters.flatMap((m) => [m.address, m.name]),
    derived.apiEndpointHost,
    "127.0.0.1",
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    `kubernetes.default.svc.${domain}`,
    derived.apiServiceIp
  ]);
}
function certificatePlan(def, derived, caps) {
  const plan = [
    { name: CA, stem: "tls/ca", isCa: true, subject: [cn("kube-ca")], usages: [], altNames: [], purpose: "cluster CA: signs the API server, client and kubelet certificates" },
    {
      name: "apiserver",
      stem: "tls/apiserver",
      issuer: CA,
      isCa: false,
      subject: [cn("kube-apiserver")],
      usages: ["serverAuth"],
      altNames: apiserverAltNames(def, derived),
      purpose: "API server serving certificate (every master, the API endpoint, in-cluster names)"
    },
    { name: "admin", stem: "tls/admin", issuer: CA, isCa: false, subject: [o("system:masters"), cn("kubernetes-admin")], usages: ["clientAuth"], altNames: [], purpose: "cluster administrator client certificate (system:masters)" },
    {
      name: "apiserver-kubelet-client",
      stem: "tls/apiserver-kubelet-client",
      issuer: CA,
      isCa: false,
      subject: [o("system:masters"), cn("kube-apiserver-kubelet-client")],
      usages: ["clientAuth"],
      altNames: [],
      purpose: "API server's client certificate towards kubelets (logs, exec)"
    },
    { name: "controller-manager", stem: "tls/controller-manager", issuer: CA, isCa: false, subject: [cn("system:kube-controller-manager")], usages: ["clientAuth"], altNames: [], purpose: "controller-manager client certificate" },
    { name: "scheduler", stem: "tls/scheduler", issuer: CA, isCa: false, subject: [cn("system:kube-scheduler")], usages: ["clientAuth"], altNames: [], purpose: "scheduler client certificate" },
    { name: "service-account", keyOnly: true },
    { name: ETCD_CA, stem: "tls/etcd/ca", isCa: true, subject: [cn("etcd-ca")], usages: [], altNames: [], purpose: "etcd CA, separate from the cluster CA: only etcd members and the API server reach etcd" }
  ];
  for (const m of derived.etcdMembers) {
    const names = uniqueAltNames([m.address, m.name, "localhost", "127.0.0.1"]);
    plan.push(
      { name: `etcd-server-${m.name}`, stem: `tls/etcd/server-${m.name}`, issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn(m.name)], usages: ["serverAuth", "clientAuth"], altNames: names, purpose: `etcd client-port serving certificate for ${m.name}` },
      { name: `etcd-peer-${m.name}`, stem: `tls/etcd/peer-${m.name}`, issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn(m.name)], usages: ["serverAuth", "clientAuth"], altNames: names, purpose: `etcd peer certificate for ${m.name} (member-to-member TLS)` }
    );
  }
  plan.push({ name: "etcd-client", stem: "tls/etcd-client", issuer: ETCD_CA, isCa: false, subject: [o("etcd"), cn("kube-apiserver-etcd-client")], usages: ["clientAuth"], altNames: [], purpose: "API server's client certificate towards etcd" });
  if (caps.frontProxy)
    plan.push(
      { name: FRONT_PROXY_CA, stem: "tls/front-proxy-ca", isCa: true, subject: [cn("front-proxy-ca")], usages: [], altNames: [], purpose: "front-proxy CA: the aggregation layer trusts only what it signs" },
      { name: "front-proxy-client", stem: "tls/front-proxy-client", issuer: FRONT_PROXY_CA, isCa: false, subject: [cn("front-proxy-client")], usages: ["clientAuth"], altNames: [], purpose: "API server's client certificate towards aggregated API servers" }
    );
  return plan;
}
function randomSerial(random) {
  const b = Buffer.from(random(16));
  b[0] = (b[0] ?? 1) & 127 | 1;
  return b;
}
function checkImportedCa(ca, now) {
  let cert;
  let key;
  try {
    cert = new import_node_crypto8.X509Certificate(ca.certPem);
  } catch {
    throw new RenderOptionsError("the imported CA certificate is not a PEM X.509 certificate");
  }
  try {
    key = keyPairFrom(ca.keyPem);
  } catch {
    throw new RenderOptionsError("the imported CA key is not a PEM private key (unencrypted PKCS#1, SEC1 or PKCS#8)");
  }
  if (!cert.checkPrivateKey(key.privateKey)) throw new RenderOptionsError("the imported CA key does not match the imported CA certificate");
  if (!cert.ca) throw new RenderOptionsError("the imported certificate is not a CA (basicConstraints CA:TRUE missing)");
  if (new Date(cert.validTo) <= now) throw new RenderOptionsError(`the imported CA expired on ${cert.validTo}`);
  const t = key.privateKey.asymmetricKeyType;
  if (t !== "rsa" && t !== "ec") throw new RenderOptionsError(`the imported CA key is ${String(t)}; use RSA or ECDSA`);
  return { cert, der: certificateDer(ca.certPem), key };
}
async function issueCertificates(plan, opts) {
  const imported = opts.importedCa ? checkImportedCa(opts.importedCa, opts.now) : void 0;
  const injected = { ...opts.keys };
  if (imported) injected[CA] = imported.key.privateKey;
  const keys = startKeyGeneration(
    plan.map((e) => e.name),
    opts.keyType,
    injected,
    (name) => opts.onStep?.(`key ${name}`)
  );
  const keyOf = (name) => {
    const p2 = keys.get(name);
    if (!p2) throw new Error(`no key planned for ${name}`);
    return p2;
  };
  const notBefore = new Date(opts.now.getTime() - BACKDATE_MS);
  const caNotAfter = new Date(opts.now.getTime() + opts.caValidityDays * DAY_MS);
  const endOf = (pem) => new Date(new import_node_crypto8.X509Certificate(pem).validTo);
  const certs2 = /* @__PURE__ */ new Map();
  const issue = async (entry) => {
    const key = await keyOf(entry.name);
    if (entry.name === CA && imported)
      return { entry, certDer: imported.der, certPem: certificatePem(imported.der), keyPem: privateKeyPem(key.privateKey), key };
    const kept = opts.kept?.get(entry.name);
    if (kept) return { entry, certDer: certificateDer(kept.certPem), certPem: kept.certPem, keyPem: kept.keyPem, key };
    const issuer = entry.issuer ? await certs2.get(entry.issuer) : void 0;
    if (entry.issuer && !issuer) throw new Error(`issuer ${entry.issuer} of ${entry.name} is not planned before it`);
    const issuerEnd = issuer ? issuer.entry.name === CA && imported || opts.kept?.has(issuer.entry.name) ? endOf(issuer.certPem) : caNotAfter : caNotAfter;
    const wanted = entry.isCa ? caNotAfter : new Date(opts.now.getTime() + opts.leafValidityDays * DAY_MS);
    const certDer = buildCertificate({
      subject: entry.subject,
      serial: randomSerial(opts.random),
      notBefore,
      notAfter: wanted < issuerEnd ? wanted : issuerEnd,
      publicKey: key.publicKey,
      isCa: entry.isCa,
      usages: entry.usages,
      altNames: entry.altNames,
      issuer: issuer ? { certDer: issuer.certDer } : void 0,
      signingKey: issuer ? issuer.key.privateKey : key.privateKey
    });
    opts.onStep?.(`certificate ${entry.stem}.crt`);
    return { entry, certDer, certPem: certificatePem(certDer), keyPem: privateKeyPem(key.privateKey), key };
  };
  for (const entry of plan) if (isCertEntry(entry)) certs2.set(entry.name, issue(entry));
  const [sa, ...settled] = await Promise.allSettled([keyOf("service-account"), ...certs2.values()]);
  const out = /* @__PURE__ */ new Map();
  for (const s2 of settled) {
    if (s2.status === "rejected") throw s2.reason;
    const issued = s2.value;
    out.set(issued.entry.name, issued);
  }
  if (!sa || sa.status === "rejected") throw sa?.reason ?? new Error("service-account key missing");
  const saKey = sa.value;
  return { certs: out, serviceAccount: { keyPem: privateKeyPem(saKey.privateKey), pubPem: publicKeyPem(saKey.publicKey) } };
}
var import_node_crypto8, CA, ETCD_CA, FRONT_PROXY_CA, cn, o, alt, isCertEntry, BACKDATE_MS, DAY_MS;
var init_certificates = __esm({
  "lib/assets/certificates.ts"() {
    "use strict";
    import_node_crypto8 = require("node:crypto");
    init_net_syntax();
    init_pki();
    init_types();
    init_x509();
    CA = "ca";
    ETCD_CA = "etcd-ca";
    FRONT_PROXY_CA = "front-proxy-ca";
    cn = (value) => ({ shortName: "CN", value });
    o = (value) => ({ shortName: "O", value });
    alt = (v) => isIP2(v) ? { ip: v } : { dns: v };
    isCertEntry = (e) => !("keyOnly" in e);
    BACKDATE_MS = 5 * 60 * 1e3;
    DAY_MS = 24 * 60 * 60 * 1e3;
  }
});

// lib/assets/endpoint.ts
function keepalivedConfig(def) {
  const ep = def.spec.apiEndpoint;
  const ka = ep.keepalived;
  if (ep.type !== "vip" || !ka || !ep.host) throw new Error("keepalived is rendered only for a VIP endpoint with spec.apiEndpoint.keepalived");
  const prefix = ep.host.includes(":") ? 128 : 32;
  return [
    "# Bootdeck: the cluster's API address on the masters (VRRP). Rendered; edits are replaced.",
    "global_defs {",
    `  router_id bootdeck-${def.metadata.name}`,
    "  enable_script_security",
    "  script_user root",
    // Version 3: sub-second advertisements.
    "  vrrp_version 3",
    // Repeat the gratuitous ARP a few times: a neighbour that missed the first still learns the new holder.
    "  vrrp_garp_master_repeat 3",
    "  vrrp_garp_master_refresh 30",
    "}",
    "",
    // /readyz answers without credentials (the authentication configuration allows it on health paths);
    // a stopping API server fails it at once while it still serves (--shutdown-delay-duration), and a
    // starting one passes it only once it serves: the address moves before clients notice.
    "vrrp_script bootdeck_apiserver {",
    `  script "/usr/bin/curl -skf --max-time 2 -o /dev/null https://127.0.0.1:${ep.port}/readyz"`,
    "  interval 1",
    "  timeout 3",
    "  fall 2",
    "  rise 2",
    `  weight -${CHECK_WEIGHT}`,
    "}",
    "",
    "vrrp_instance bootdeck_api {",
    "  state BACKUP",
    `  interface ${ka.interface}`,
    `  virtual_router_id ${ka.virtualRouterId}`,
    `  priority ${VRRP_PRIORITY}`,
    `  advert_int ${VRRP_ADVERT_INT_S}`,
    "  virtual_ipaddress {",
    `    ${ep.host}/${prefix} dev ${ka.interface}`,
    "  }",
    "  track_script {",
    "    bootdeck_apiserver",
    "  }",
    "}",
    ""
  ].join("\n");
}
function keepalivedUnit() {
  return [
    "[Unit]",
    "Description=Bootdeck API address (keepalived VRRP on the masters)",
    "After=network-online.target",
    "",
    "[Service]",
    `ExecStart=/usr/sbin/keepalived --dont-fork --log-console --vrrp --use-file=${ENDPOINT_PATHS.config} --pid=/run/bootdeck-keepalived.pid --vrrp_pid=/run/bootdeck-keepalived-vrrp.pid`,
    "Restart=always",
    "RestartSec=2",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    ""
  ].join("\n");
}
var ENDPOINT_PATHS, ENDPOINT_UNIT, VRRP_ADVERT_INT_S, VRRP_PRIORITY, CHECK_WEIGHT, provisionsVip;
var init_endpoint = __esm({
  "lib/assets/endpoint.ts"() {
    "use strict";
    ENDPOINT_PATHS = {
      /** Not /etc/keepalived/keepalived.conf: a host's own keepalived (and Debian's unit, which starts on that file) stays untouched. */
      config: "/etc/bootdeck/keepalived.conf",
      unit: "/etc/systemd/system/bootdeck-keepalived.service"
    };
    ENDPOINT_UNIT = "bootdeck-keepalived";
    VRRP_ADVERT_INT_S = 0.5;
    VRRP_PRIORITY = 100;
    CHECK_WEIGHT = 30;
    provisionsVip = (def) => def.spec.apiEndpoint.type === "vip" && def.spec.apiEndpoint.keepalived !== void 0;
  }
});

// lib/assets/yaml-out.ts
function toYaml(value) {
  return (0, import_yaml2.stringify)(value, { lineWidth: 0, aliasDuplicateObjects: false });
}
function toYamlDocuments(objects) {
  return objects.map(toYaml).join("---\n");
}
var import_yaml2;
var init_yaml_out = __esm({
  "lib/assets/yaml-out.ts"() {
    "use strict";
    import_yaml2 = require("yaml");
  }
});

// lib/assets/kubeconfig.ts
function kubeconfig(opts) {
  const b64 = (s2) => Buffer.from(s2, "utf8").toString("base64");
  const user2 = "token" in opts.user ? { token: opts.user.token } : "tokenFile" in opts.user ? { tokenFile: opts.user.tokenFile } : { "client-certificate-data": b64(opts.user.clientCertPem), "client-key-data": b64(opts.user.clientKeyPem) };
  const context = `${opts.userName}@${opts.clusterName}`;
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: opts.clusterName, cluster: { server: opts.server, "certificate-authority-data": b64(opts.caPem) } }],
    users: [{ name: opts.userName, user: user2 }],
    contexts: [{ name: context, context: { cluster: opts.clusterName, user: opts.userName } }],
    "current-context": context,
    preferences: {}
  });
}
function inClusterKubeconfig(opts) {
  const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
  const context = `in-cluster@${opts.clusterName}`;
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: opts.clusterName, cluster: { server: opts.server, "certificate-authority": `${sa}/ca.crt` } }],
    users: [{ name: "service-account", user: { tokenFile: `${sa}/token` } }],
    contexts: [{ name: context, context: { cluster: opts.clusterName, user: "service-account" } }],
    "current-context": context
  });
}
var init_kubeconfig = __esm({
  "lib/assets/kubeconfig.ts"() {
    "use strict";
    init_yaml_out();
  }
});

// lib/assets/runtime.ts
function registryHost(registry) {
  return registry.replace(/\/.*$/, "");
}
function containerdConfig(def, images2) {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    "# Bootdeck: containerd for the kubelet (CRI). Registry credentials, if any, are in conf.d (0600).",
    "version = 2",
    `imports = [${toml(`${RUNTIME_PATHS.confD}/*.toml`)}]`,
    "",
    `[${cri}]`,
    `  sandbox_image = ${toml(images2.pause ?? "")}`,
    // Never ask the kernel for a lower OOM score than containerd's own (-999 under its unit): no change
    // where containerd holds CAP_SYS_RESOURCE, and pods still start on hosts without it (LXC, some VMs).
    "  restrict_oom_score_adj = true",
    `[${cri}.containerd]`,
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    // Must match the kubelet's cgroupDriver (the kubelet asks containerd for it from 1.36 on).
    `  SystemdCgroup = ${def.spec.runtime.cgroupDriver === "systemd"}`,
    `[${cri}.cni]`,
    `  bin_dir = ${toml(RUNTIME_PATHS.cniBin)}`,
    `  conf_dir = ${toml(RUNTIME_PATHS.cniConf)}`,
    `[${cri}.registry]`,
    `  config_path = ${toml(RUNTIME_PATHS.certsD)}`,
    ""
  ].join("\n");
}
function registryAuthConfig(registry, username, password) {
  return [
    "# Bootdeck: pull credentials for the image mirror (static pods cannot use image pull secrets).",
    "version = 2",
    `[plugins."io.containerd.grpc.v1.cri".registry.configs.${toml(registryHost(registry))}.auth]`,
    `  username = ${toml(username)}`,
    `  password = ${toml(password)}`,
    ""
  ].join("\n");
}
function registryHostsToml(registry, withCa) {
  const host3 = registryHost(registry);
  return [
    "# Bootdeck: how containerd reaches the image mirror",
    `server = ${toml(`https://${host3}`)}`,
    "",
    `[host.${toml(`https://${host3}`)}]`,
    '  capabilities = ["pull", "resolve"]',
    ...withCa ? [`  ca = ${toml(`${RUNTIME_PATHS.certsD}/${host3}/ca.crt`)}`] : [],
    ""
  ].join("\n");
}
function containerdUnit() {
  return [
    "[Unit]",
    "Description=containerd container runtime (Bootdeck)",
    "Documentation=https://containerd.io",
    "After=network.target local-fs.target",
    "",
    "[Service]",
    "ExecStartPre=-/sbin/modprobe overlay",
    "ExecStart=/usr/local/bin/containerd",
    "Type=notify",
    // The shims and containers outlive a restart of containerd itself.
    "Delegate=yes",
    "KillMode=process",
    "Restart=always",
    "RestartSec=5",
    "LimitNPROC=infinity",
    "LimitCORE=infinity",
    "TasksMax=infinity",
    "OOMScoreAdjust=-999",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    ""
  ].join("\n");
}
function crictlConfig() {
  return `runtime-endpoint: ${RUNTIME_ENDPOINT}
image-endpoint: ${RUNTIME_ENDPOINT}
timeout: 10
`;
}
function modulesConf() {
  return `# Bootdeck: kernel modules containerd and pod networking need
${KERNEL_MODULES.join("\n")}
`;
}
function sysctlConf() {
  return `# Bootdeck: bridged pod traffic passes iptables (kube-proxy), and nodes route pod traffic
${Object.entries(KUBERNETES_SYSCTLS).map(([k, v]) => `${k} = ${v}`).join("\n")}
`;
}
var RUNTIME_PATHS, RUNTIME_ENDPOINT, REGISTRY_AUTH_FILE, toml, KERNEL_MODULES, KUBERNETES_SYSCTLS;
var init_runtime = __esm({
  "lib/assets/runtime.ts"() {
    "use strict";
    RUNTIME_PATHS = {
      unit: "/etc/systemd/system/containerd.service",
      config: "/etc/containerd/config.toml",
      /** containerd imports every file here; the registry credentials go here at run time (0600). */
      confD: "/etc/containerd/conf.d",
      certsD: "/etc/containerd/certs.d",
      crictl: "/etc/crictl.yaml",
      modules: "/etc/modules-load.d/bootdeck-kubernetes.conf",
      sysctl: "/etc/sysctl.d/99-bootdeck-kubernetes.conf",
      socket: "/run/containerd/containerd.sock",
      cniBin: "/opt/cni/bin",
      cniConf: "/etc/cni/net.d"
    };
    RUNTIME_ENDPOINT = `unix://${RUNTIME_PATHS.socket}`;
    REGISTRY_AUTH_FILE = `${RUNTIME_PATHS.confD}/bootdeck-registry-auth.toml`;
    toml = (s2) => JSON.stringify(s2);
    KERNEL_MODULES = ["overlay", "br_netfilter"];
    KUBERNETES_SYSCTLS = {
      "net.bridge.bridge-nf-call-iptables": "1",
      "net.bridge.bridge-nf-call-ip6tables": "1",
      "net.ipv4.ip_forward": "1"
    };
  }
});

// lib/assets/kubelet-unit.ts
function kubeletBinary(caps) {
  return caps.hyperkube ? "/usr/bin/hyperkube kubelet" : "/usr/local/bin/kubelet";
}
function kubeletFlags(caps, def, derived) {
  const flags = [];
  if (caps.bootstrapTokens) flags.push(`--bootstrap-kubeconfig=${KUBELET_PATHS.bootstrapKubeconfig}`, `--kubeconfig=${KUBELET_PATHS.kubeconfig}`);
  else flags.push(`--kubeconfig=${KUBELET_PATHS.legacyKubeconfig}`);
  if (caps.requireKubeconfigFlag) flags.push("--require-kubeconfig");
  if (caps.kubeletConfigFile) flags.push(`--config=${KUBELET_PATHS.config}`);
  if (caps.networkPluginFlag) flags.push("--cni-conf-dir=/etc/kubernetes/cni/net.d", "--network-plugin=cni");
  flags.push("--lock-file=/var/run/lock/kubelet.lock", "--exit-on-lock-contention");
  if (!caps.kubeletConfigFile) flags.push(`--pod-manifest-path=${KUBELET_PATHS.staticPods}`);
  if (caps.allowPrivilegedFlag) flags.push("--allow-privileged");
  if (!caps.kubeletConfigFile)
    flags.push("--minimum-container-ttl-duration=6m0s", `--cluster_dns=${derived.dnsServiceIp}`, `--cluster_domain=${def.spec.network.clusterDomain}`);
  return flags;
}
function selfLabels(caps, host3) {
  const labels2 = {};
  if (caps.selfLabelRole && host3.role === "master") labels2.master = "true";
  for (const [k, v] of Object.entries(host3.labels ?? {}))
    if (caps.selfLabelRole || !K8S_NAMESPACE.test(k) || ALLOWED_SELF_LABEL.test(k)) labels2[k] = v;
  return labels2;
}
function kubeletHostEnv(caps, host3) {
  const args = [`--hostname-override=${host3.name}`];
  if (/^[0-9.]+$/.test(host3.address) || host3.address.includes(":")) args.push(`--node-ip=${host3.address}`);
  const labels2 = Object.entries(selfLabels(caps, host3)).map(([k, v]) => `${k}=${v}`);
  if (labels2.length > 0) args.push(`--node-labels=${labels2.join(",")}`);
  return `# Bootdeck: kubelet settings for ${host3.name} (${host3.role})
KUBELET_EXTRA_ARGS="${args.join(" ")}"
`;
}
function kubeletUnit(caps) {
  return [
    "[Unit]",
    `Description=Kubernetes kubelet (${caps.version}, Bootdeck)`,
    "Documentation=https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/",
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    `ExecStart=${kubeletBinary(caps)}`,
    "Restart=always",
    "RestartSec=10",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    ""
  ].join("\n");
}
function kubeletDropIn(caps, def, derived) {
  const flags = kubeletFlags(caps, def, derived);
  return [
    "# Bootdeck: cluster-wide kubelet flags; host-specific ones come from /etc/default/kubelet.",
    "[Unit]",
    // Never retire the unit for restarting too often: it must come back once its files are in place.
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    `EnvironmentFile=-${KUBELET_PATHS.env}`,
    `ExecStartPre=/bin/mkdir -p ${KUBELET_PATHS.staticPods}`,
    "ExecStart=",
    `ExecStart=${kubeletBinary(caps)} \\`,
    ...flags.map((f) => `  ${f} \\`),
    "  $KUBELET_EXTRA_ARGS",
    ""
  ].join("\n");
}
function kubeletConfiguration(caps, def, derived, role) {
  return toYaml({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true, cacheTTL: "2m0s" },
      x509: { clientCAFile: KUBELET_PATHS.clientCa }
    },
    authorization: { mode: "Webhook" },
    // The same driver containerd is configured with (from 1.36 the kubelet asks containerd for it).
    cgroupDriver: def.spec.runtime.cgroupDriver,
    clusterDNS: [derived.dnsServiceIp],
    clusterDomain: def.spec.network.clusterDomain,
    containerRuntimeEndpoint: RUNTIME_ENDPOINT,
    // A cgroup v1 host runs the kubelet only where the definition allows it (preflight warns there).
    ...caps.failCgroupV1Field ? { failCgroupV1: !def.spec.kubernetes.allowCgroupV1 } : {},
    failSwapOn: true,
    readOnlyPort: 0,
    rotateCertificates: true,
    staticPodPath: KUBELET_PATHS.staticPods,
    ...role === "master" ? { registerWithTaints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {}
  });
}
var KUBELET_PATHS, ALLOWED_SELF_LABEL, K8S_NAMESPACE;
var init_kubelet_unit = __esm({
  "lib/assets/kubelet-unit.ts"() {
    "use strict";
    init_runtime();
    init_yaml_out();
    KUBELET_PATHS = {
      unit: "/etc/systemd/system/kubelet.service",
      dropIn: "/etc/systemd/system/kubelet.service.d/10-bootdeck.conf",
      env: "/etc/default/kubelet",
      config: "/var/lib/kubelet/config.yaml",
      bootstrapKubeconfig: "/etc/kubernetes/bootstrap-kubelet.conf",
      kubeconfig: "/etc/kubernetes/kubelet.conf",
      legacyKubeconfig: "/etc/kubernetes/kubeconfig",
      clientCa: "/etc/kubernetes/pki/ca.crt",
      staticPods: "/etc/kubernetes/manifests"
    };
    ALLOWED_SELF_LABEL = /^(kubelet\.kubernetes\.io|node\.kubernetes\.io)\//;
    K8S_NAMESPACE = /(^|\.)(kubernetes\.io|k8s\.io)\//;
  }
});

// lib/assets/manifests/common.ts
function meta(name, namespace, labels2) {
  return { name, ...namespace ? { namespace } : {}, ...labels2 ? { labels: labels2 } : {} };
}
function workload(ctx, kind, name, namespace, podLabels, podSpec, extra = {}) {
  return {
    apiVersion: ctx.caps.workloadsApi,
    kind,
    metadata: meta(name, namespace, podLabels),
    spec: {
      ...kind === "Deployment" ? { replicas: extra.replicas ?? 2 } : {},
      selector: { matchLabels: podLabels },
      ...kind === "DaemonSet" ? { updateStrategy: ctx.caps.workloadsApi === "apps/v1" ? { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } : { type: "RollingUpdate" } } : {},
      ...kind === "Deployment" ? { strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } } : {},
      template: {
        metadata: { labels: podLabels, ...extra.annotations ? { annotations: extra.annotations } : {} },
        spec: podSpec
      }
    }
  };
}
function pdb(ctx, name, labels2) {
  return { apiVersion: ctx.caps.pdbApi, kind: "PodDisruptionBudget", metadata: meta(name, NS), spec: { minAvailable: 1, selector: { matchLabels: labels2 } } };
}
function clusterRoleBinding(name, role, subjects) {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: meta(name, void 0),
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: subjects.map((s2) => s2.kind === "ServiceAccount" ? { kind: s2.kind, name: s2.name, namespace: s2.namespace ?? NS } : { apiGroup: "rbac.authorization.k8s.io", kind: s2.kind, name: s2.name })
  };
}
function spreadAcrossNodes(labels2) {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels2 } } }
      ]
    }
  };
}
function secretData(ctx, files) {
  const data = {};
  for (const [key, assetPath] of Object.entries(files)) {
    const content = ctx.files.get(assetPath);
    if (content === void 0) throw new Error(`render: ${assetPath} is needed before it was rendered`);
    data[secretKey(key)] = Buffer.from(content, "utf8").toString("base64");
  }
  return data;
}
function secretVolume(name, secretName, files) {
  return { name, secret: { secretName, defaultMode: 384, items: Object.keys(files).map((rel) => ({ key: secretKey(rel), path: rel })) } };
}
var NS, serviceAccount, inClusterKubeconfigVolume, secretKey;
var init_common = __esm({
  "lib/assets/manifests/common.ts"() {
    "use strict";
    NS = "kube-system";
    serviceAccount = (name, namespace = NS) => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: meta(name, namespace) });
    inClusterKubeconfigVolume = { name: "kubeconfig", configMap: { name: "kubeconfig-in-cluster" } };
    secretKey = (rel) => rel.replace(/\//g, "-");
  }
});

// lib/assets/manifests/addons.ts
function checkpointerManifests(ctx) {
  if (ctx.caps.checkpoint !== "pod-checkpointer") return [];
  const checkpointer = ctx.images.checkpointer;
  if (!checkpointer) throw new Error("render: this profile has no pod-checkpointer image");
  const labels2 = { "k8s-app": "pod-checkpointer", tier: "control-plane" };
  const ds = workload(ctx, "DaemonSet", "pod-checkpointer", NS, labels2, {
    hostNetwork: true,
    nodeSelector: masterSelector(ctx),
    tolerations: masterTolerations(ctx),
    ...critical(ctx, "system-node-critical"),
    ...ctx.caps.rbac ? { serviceAccountName: "pod-checkpointer" } : {},
    containers: [
      {
        name: "pod-checkpointer",
        image: checkpointer,
        command: ["/checkpoint", "--lock-file=/var/run/lock/pod-checkpointer.lock", `--kubeconfig=${IN_CLUSTER_KUBECONFIG_DIR}/kubeconfig`, "--checkpoint-grace-period=5m"],
        env: [...nodeNameEnv, ...podMeta],
        volumeMounts: [
          { name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true },
          { name: "etc-kubernetes", mountPath: "/etc/kubernetes" },
          { name: "var-run", mountPath: "/var/run" }
        ]
      }
    ],
    volumes: [inClusterKubeconfigVolume, { name: "etc-kubernetes", hostPath: { path: "/etc/kubernetes" } }, { name: "var-run", hostPath: { path: "/var/run" } }]
  }, { annotations: { "checkpointer.alpha.coreos.com/checkpoint": "true" } });
  const out = [{ path: "manifests/pod-checkpointer.yaml", purpose: "pod-checkpointer DaemonSet: keeps local copies of checkpointed control-plane pods on masters", objects: [ds] }];
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/pod-checkpointer-rbac.yaml",
      purpose: "pod-checkpointer's service account and read access to pods, secrets and config maps in kube-system",
      objects: [
        serviceAccount("pod-checkpointer"),
        {
          apiVersion: rbacV1,
          kind: "Role",
          metadata: meta("pod-checkpointer", NS),
          rules: [
            { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
            { apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get"] }
          ]
        },
        {
          apiVersion: rbacV1,
          kind: "RoleBinding",
          metadata: meta("pod-checkpointer", NS),
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-checkpointer" },
          subjects: [{ kind: "ServiceAccount", name: "pod-checkpointer", namespace: NS }]
        }
      ]
    });
  return out;
}
function kubeProxyManifests(ctx) {
  const labels2 = { "k8s-app": "kube-proxy", tier: "node" };
  const ds = workload(ctx, "DaemonSet", "kube-proxy", NS, labels2, {
    hostNetwork: true,
    tolerations: tolerateAll,
    ...critical(ctx, "system-node-critical"),
    ...ctx.caps.rbac ? { serviceAccountName: "kube-proxy" } : {},
    containers: [
      {
        name: "kube-proxy",
        image: ctx.images.proxy,
        command: [
          ...ctx.caps.hyperkube ? ["/hyperkube", "proxy"] : ["kube-proxy"],
          `--cluster-cidr=${ctx.def.spec.network.podCidr}`,
          "--hostname-override=$(NODE_NAME)",
          `--kubeconfig=${IN_CLUSTER_KUBECONFIG_DIR}/kubeconfig`,
          "--proxy-mode=iptables",
          // Leave nf_conntrack_max (kernel-wide) to the host: preflight checks it is large enough.
          ...ctx.caps.criRuntime ? ["--conntrack-max-per-core=0"] : []
        ],
        env: nodeNameEnv,
        securityContext: { privileged: true },
        volumeMounts: [
          { name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true },
          { name: "lib-modules", mountPath: "/lib/modules", readOnly: true },
          { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true },
          { name: "xtables-lock", mountPath: "/run/xtables.lock" }
        ]
      }
    ],
    volumes: [
      inClusterKubeconfigVolume,
      { name: "lib-modules", hostPath: { path: "/lib/modules" } },
      { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } },
      { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", ...ctx.caps.hostPathTypes ? { type: "FileOrCreate" } : {} } }
    ]
  });
  const out = [{ path: "manifests/kube-proxy.yaml", purpose: "kube-proxy DaemonSet on every node (service routing)", objects: [ds] }];
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/kube-proxy-rbac.yaml",
      purpose: "kube-proxy's service account bound to system:node-proxier",
      objects: [serviceAccount("kube-proxy"), clusterRoleBinding("bootdeck:kube-proxy", "system:node-proxier", [{ kind: "ServiceAccount", name: "kube-proxy" }])]
    });
  return out;
}
function corednsManifests(ctx) {
  const domain = ctx.def.spec.network.clusterDomain;
  const modern = ctx.caps.modernCoredns;
  const corefile = [
    ".:53 {",
    "    errors",
    "    health",
    ...modern ? ["    ready"] : [],
    `    kubernetes ${domain} in-addr.arpa ip6.arpa {`,
    "      pods insecure",
    "      fallthrough in-addr.arpa ip6.arpa",
    "    }",
    "    prometheus :9153",
    modern ? "    forward . /etc/resolv.conf" : "    proxy . /etc/resolv.conf",
    "    cache 30",
    "    loop",
    "    reload",
    "    loadbalance",
    "}",
    ""
  ].join("\n");
  const labels2 = { "k8s-app": "kube-dns" };
  const deploy = workload(ctx, "Deployment", "coredns", NS, labels2, {
    affinity: spreadAcrossNodes(labels2),
    tolerations: masterTolerations(ctx),
    ...critical(ctx, "system-cluster-critical"),
    ...ctx.caps.rbac ? { serviceAccountName: "coredns" } : {},
    dnsPolicy: "Default",
    containers: [
      {
        name: "coredns",
        image: ctx.images.coredns,
        args: ["-conf", "/etc/coredns/Corefile"],
        ports: [
          { name: "dns", containerPort: 53, protocol: "UDP" },
          { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
          { name: "metrics", containerPort: 9153, protocol: "TCP" }
        ],
        resources: { limits: { memory: "170Mi" }, requests: { cpu: "100m", memory: "70Mi" } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] }, readOnlyRootFilesystem: true },
        livenessProbe: { httpGet: { path: "/health", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 60, timeoutSeconds: 5 },
        ...modern ? { readinessProbe: { httpGet: { path: "/ready", port: 8181, scheme: "HTTP" } } } : {},
        volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }]
      }
    ],
    volumes: [{ name: "config", configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] } }]
  });
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { ...meta("kube-dns", NS, { "k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS" }), annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" } },
    spec: {
      selector: labels2,
      clusterIP: ctx.derived.dnsServiceIp,
      ports: [
        { name: "dns", port: 53, protocol: "UDP" },
        { name: "dns-tcp", port: 53, protocol: "TCP" },
        { name: "metrics", port: 9153, protocol: "TCP" }
      ]
    }
  };
  const out = [
    { path: "manifests/coredns-config.yaml", purpose: `CoreDNS configuration (serves ${domain})`, objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: meta("coredns", NS), data: { Corefile: corefile } }] },
    { path: "manifests/coredns.yaml", purpose: "CoreDNS Deployment (2 replicas)", objects: [deploy] },
    { path: "manifests/coredns-service.yaml", purpose: `cluster DNS Service at ${ctx.derived.dnsServiceIp}`, objects: [service] }
  ];
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/coredns-rbac.yaml",
      purpose: "CoreDNS service account and read access to services, endpoints, pods and namespaces",
      objects: [
        serviceAccount("coredns"),
        {
          apiVersion: rbacV1,
          kind: "ClusterRole",
          metadata: meta("system:coredns", void 0),
          rules: [
            { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
            { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] }
          ]
        },
        clusterRoleBinding("system:coredns", "system:coredns", [{ kind: "ServiceAccount", name: "coredns" }])
      ]
    });
  return out;
}
function flannelManifests(ctx) {
  const ns = ctx.caps.flannelNamespace;
  const modern = ctx.caps.modernFlannel;
  const labels2 = { app: "flannel", tier: "node" };
  const flannel = ctx.def.spec.network.flannel;
  const cniConf = modern ? { name: "cbr0", cniVersion: "0.3.1", plugins: [{ type: "flannel", delegate: { hairpinMode: true, isDefaultGateway: true } }, { type: "portmap", capabilities: { portMappings: true } }] } : { name: "cbr0", type: "flannel", delegate: { isDefaultGateway: true } };
  const cniDir = ctx.caps.networkPluginFlag && !modern ? "/etc/kubernetes/cni/net.d" : "/etc/cni/net.d";
  const cniFile = modern ? "10-flannel.conflist" : "10-flannel.conf";
  const backend = { Type: "vxlan", ...flannel?.vxlanPort ? { Port: flannel.vxlanPort } : {} };
  const netConf = modern ? { Network: ctx.def.spec.network.podCidr, EnableNFTables: false, Backend: backend } : { Network: ctx.def.spec.network.podCidr, Backend: backend };
  const config2 = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta("kube-flannel-cfg", ns, labels2),
    data: { "cni-conf.json": `${JSON.stringify(cniConf, null, 2)}
`, "net-conf.json": `${JSON.stringify(netConf, null, 2)}
` }
  };
  const healthz = { httpGet: { path: "/healthz", port: 8081 } };
  const flanneld = {
    name: "kube-flannel",
    image: ctx.images.flannel,
    command: ["/opt/bin/flanneld"],
    args: ["--ip-masq", "--kube-subnet-mgr", ...modern ? ["--healthz-port=8081"] : [], ...flannel?.iface ? [`--iface=${flannel.iface}`] : []],
    ...modern ? {
      ports: [{ name: "healthz", containerPort: 8081, protocol: "TCP" }],
      livenessProbe: { ...healthz, initialDelaySeconds: 10, periodSeconds: 30 },
      readinessProbe: { httpGet: { path: "/readyz", port: 8081 }, initialDelaySeconds: 5, periodSeconds: 10 }
    } : {},
    env: [...podMeta, ...modern ? [{ name: "EVENT_QUEUE_DEPTH", value: "5000" }, { name: "CONT_WHEN_CACHE_NOT_READY", value: "false" }] : []],
    securityContext: modern ? { privileged: false, capabilities: { add: ["NET_ADMIN", "NET_RAW"] } } : { privileged: true },
    resources: { requests: { cpu: "100m", memory: "50Mi" } },
    volumeMounts: [
      { name: "run", mountPath: "/run/flannel" },
      { name: "flannel-cfg", mountPath: "/etc/kube-flannel/" },
      ...modern ? [{ name: "xtables-lock", mountPath: "/run/xtables.lock" }] : []
    ]
  };
  const installCni = {
    name: "install-cni",
    image: ctx.images.flannel,
    command: modern ? ["/opt/bin/install-conf", "/etc/kube-flannel/cni-conf.json", `/etc/cni/net.d/${cniFile}`] : ["/bin/sh", "-c", `set -e -x; cp -f /etc/kube-flannel/cni-conf.json /etc/cni/net.d/${cniFile}; while true; do sleep 3600; done`],
    volumeMounts: [
      { name: "cni", mountPath: "/etc/cni/net.d" },
      { name: "flannel-cfg", mountPath: "/etc/kube-flannel/" }
    ]
  };
  const podSpec = {
    hostNetwork: true,
    tolerations: tolerateAll,
    ...critical(ctx, "system-node-critical"),
    ...ctx.caps.rbac ? { serviceAccountName: "flannel" } : {},
    ...modern ? {
      initContainers: [
        { name: "install-cni-plugin", image: ctx.images.flannelCni, command: ["cp"], args: ["-f", "/flannel", "/opt/cni/bin/flannel"], volumeMounts: [{ name: "cni-plugin", mountPath: "/opt/cni/bin" }] },
        installCni
      ],
      containers: [flanneld]
    } : { containers: [flanneld, installCni] },
    volumes: [
      { name: "run", hostPath: { path: "/run/flannel" } },
      { name: "cni", hostPath: { path: cniDir } },
      { name: "flannel-cfg", configMap: { name: "kube-flannel-cfg" } },
      ...modern ? [
        { name: "cni-plugin", hostPath: { path: "/opt/cni/bin" } },
        { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } }
      ] : []
    ]
  };
  const out = [];
  if (ns !== NS)
    out.push({
      path: `manifests/00-namespace-${ns}.yaml`,
      purpose: `namespace ${ns} for flannel (privileged pod security: it configures host networking)`,
      objects: [{ apiVersion: "v1", kind: "Namespace", metadata: meta(ns, void 0, { "pod-security.kubernetes.io/enforce": "privileged" }) }]
    });
  out.push(
    { path: "manifests/flannel-config.yaml", purpose: `flannel network configuration (pod network ${ctx.def.spec.network.podCidr}, vxlan)`, objects: [config2] },
    { path: "manifests/flannel.yaml", purpose: "flannel DaemonSet on every node (pod network and CNI config)", objects: [workload(ctx, "DaemonSet", "kube-flannel-ds", ns, labels2, podSpec)] }
  );
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/flannel-rbac.yaml",
      purpose: "flannel's service account and access to nodes and their pod CIDRs",
      objects: [
        serviceAccount("flannel", ns),
        {
          apiVersion: rbacV1,
          kind: "ClusterRole",
          metadata: meta("flannel", void 0),
          rules: [
            { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
            { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
            { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] }
          ]
        },
        clusterRoleBinding("flannel", "flannel", [{ kind: "ServiceAccount", name: "flannel", namespace: ns }])
      ]
    });
  return out;
}
var rbacV1, critical, podMeta;
var init_addons = __esm({
  "lib/assets/manifests/addons.ts"() {
    "use strict";
    init_context();
    init_common();
    init_flags();
    rbacV1 = "rbac.authorization.k8s.io/v1";
    critical = (ctx, cls) => ctx.caps.priorityClasses ? { priorityClassName: cls } : {};
    podMeta = [
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }
    ];
  }
});

// lib/assets/token.ts
function randomString(length, random) {
  let out = "";
  while (out.length < length) {
    for (const b of random(length * 2)) {
      if (b < 252 && out.length < length) out += ALPHABET[b % 36];
    }
  }
  return out;
}
function generateBootstrapToken(random = import_node_crypto9.randomBytes) {
  const id = randomString(6, random);
  const secret = randomString(16, random);
  return { id, secret, token: `${id}.${secret}` };
}
function parseBootstrapToken(token) {
  if (!TOKEN_PATTERN.test(token)) throw new Error("the kept bootstrap token is not <6 chars>.<16 chars>");
  const [id = "", secret = ""] = token.split(".");
  return { id, secret, token };
}
function withExpiration(secret, now) {
  const expiration = new Date(now.getTime() + BOOTSTRAP_TOKEN_TTL_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
  return { ...secret, stringData: { ...secret.stringData, expiration } };
}
function bootstrapTokenSecret(t, opts) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${t.id}`, namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    stringData: {
      description: opts.description,
      "token-id": t.id,
      "token-secret": t.secret,
      "usage-bootstrap-authentication": "true",
      "usage-bootstrap-signing": "true"
    }
  };
}
var import_node_crypto9, TOKEN_PATTERN, ALPHABET, BOOTSTRAP_TOKEN_TTL_MS, BOOTSTRAP_TOKEN_RENEW_MS, isBootstrapTokenSecret;
var init_token = __esm({
  "lib/assets/token.ts"() {
    "use strict";
    import_node_crypto9 = require("node:crypto");
    TOKEN_PATTERN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;
    ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    BOOTSTRAP_TOKEN_TTL_MS = 24 * 36e5;
    BOOTSTRAP_TOKEN_RENEW_MS = 2 * 36e5;
    isBootstrapTokenSecret = (o2) => o2.kind === "Secret" && o2.type === "bootstrap.kubernetes.io/token";
  }
});

// lib/assets/manifests/bootstrap-auth.ts
function bootstrapAuthManifests(ctx) {
  const out = [
    {
      path: "manifests/kubeconfig-in-cluster.yaml",
      purpose: "kubeconfig for control-plane pods: their service-account token, the API URL with explicit port",
      objects: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: meta("kubeconfig-in-cluster", NS),
          data: { kubeconfig: inClusterKubeconfig({ clusterName: ctx.def.metadata.name, server: ctx.derived.apiServerUrl }) }
        }
      ]
    }
  ];
  if (!ctx.caps.bootstrapTokens) return out;
  out.push(
    {
      path: "manifests/kubelet-bootstrap-token.yaml",
      purpose: `kubelet bootstrap token ${ctx.token.id} (TLS bootstrapping of every node)`,
      objects: [bootstrapTokenSecret(ctx.token, { description: `Bootdeck kubelet bootstrap token for cluster ${ctx.def.metadata.name}` })],
      sensitive: true
    },
    {
      path: "manifests/csr-bootstrap-role-bindings.yaml",
      purpose: "lets bootstrapping kubelets request, and get approved, their client certificates; lets nodes renew them",
      objects: [
        clusterRoleBinding("bootdeck:kubelet-bootstrap", "system:node-bootstrapper", [{ kind: "Group", name: "system:bootstrappers" }]),
        clusterRoleBinding("bootdeck:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", [{ kind: "Group", name: "system:bootstrappers" }]),
        clusterRoleBinding("bootdeck:node-autoapprove-certificate-rotation", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", [{ kind: "Group", name: "system:nodes" }])
      ]
    }
  );
  return out;
}
var init_bootstrap_auth = __esm({
  "lib/assets/manifests/bootstrap-auth.ts"() {
    "use strict";
    init_kubeconfig();
    init_token();
    init_common();
  }
});

// lib/assets/manifests/control-plane.ts
function apiserverManifests(ctx) {
  const files = apiserverSecretFiles(ctx);
  const labels2 = { "k8s-app": "kube-apiserver", tier: "control-plane" };
  const secret = { apiVersion: "v1", kind: "Secret", metadata: meta("kube-apiserver", NS), type: "Opaque", data: secretData(ctx, files) };
  const ds = workload(ctx, "DaemonSet", "kube-apiserver", NS, labels2, {
    hostNetwork: true,
    nodeSelector: masterSelector(ctx),
    tolerations: masterTolerations(ctx),
    ...ctx.caps.priorityClasses ? { priorityClassName: "system-cluster-critical" } : {},
    containers: [
      {
        name: "kube-apiserver",
        image: ctx.images.apiserver,
        // Before 1.19 (no port sharing) it crash-loops until the bootstrap API server releases the port.
        command: apiserverCommand(ctx),
        env: podIpEnv,
        ...apiserverProbes(ctx),
        ports: [{ name: "https", containerPort: securePort(ctx), hostPort: securePort(ctx) }],
        volumeMounts: [
          { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
          { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true }
        ]
      }
    ],
    volumes: [secretVolume("secrets", "kube-apiserver", files), { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } }]
  }, ctx.caps.checkpoint === "pod-checkpointer" ? { annotations: CHECKPOINT } : {});
  return [
    { path: "manifests/kube-apiserver-secret.yaml", purpose: "API server's certificates and keys as a Secret (mounted into the self-hosted API server)", objects: [secret], sensitive: true },
    { path: "manifests/kube-apiserver.yaml", purpose: `self-hosted API server DaemonSet on masters (${ctx.caps.checkpoint === "host" ? "each master keeps a static checkpoint of it" : "checkpointed by the pod-checkpointer"})`, objects: [ds] }
  ];
}
function controllerManagerManifests(ctx) {
  const files = controllerManagerSecretFiles();
  const labels2 = { "k8s-app": "kube-controller-manager", tier: "control-plane" };
  const secret = { apiVersion: "v1", kind: "Secret", metadata: meta("kube-controller-manager", NS), type: "Opaque", data: secretData(ctx, files) };
  const deploy = workload(ctx, "Deployment", "kube-controller-manager", NS, labels2, {
    affinity: spreadAcrossNodes(labels2),
    nodeSelector: masterSelector(ctx),
    tolerations: masterTolerations(ctx),
    ...ctx.caps.priorityClasses ? { priorityClassName: "system-cluster-critical" } : {},
    ...ctx.caps.rbac ? { serviceAccountName: "kube-controller-manager" } : {},
    // Root: the secret volume is 0600 (a non-root user could not read the CA key).
    containers: [
      {
        name: "kube-controller-manager",
        image: ctx.images.controllerManager,
        command: controllerManagerCommand(ctx, inClusterKubeconfig2),
        ...componentProbe(ctx, CONTROLLER_MANAGER_PORT),
        volumeMounts: [
          { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
          { name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true },
          { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true }
        ]
      }
    ],
    volumes: [
      secretVolume("secrets", "kube-controller-manager", files),
      inClusterKubeconfigVolume,
      { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } }
    ]
  });
  const out = [
    { path: "manifests/kube-controller-manager-secret.yaml", purpose: "controller-manager's CA key and service-account key as a Secret", objects: [secret], sensitive: true },
    { path: "manifests/kube-controller-manager.yaml", purpose: "self-hosted controller-manager Deployment (2 replicas on masters)", objects: [deploy] },
    { path: "manifests/kube-controller-manager-disruption.yaml", purpose: "keeps one controller-manager running through voluntary disruptions", objects: [pdb(ctx, "kube-controller-manager", labels2)] }
  ];
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/kube-controller-manager-rbac.yaml",
      purpose: "controller-manager's service account and its binding to system:kube-controller-manager",
      objects: [
        serviceAccount("kube-controller-manager"),
        clusterRoleBinding("bootdeck:kube-controller-manager", "system:kube-controller-manager", [{ kind: "ServiceAccount", name: "kube-controller-manager" }])
      ]
    });
  return out;
}
function schedulerManifests(ctx) {
  const labels2 = { "k8s-app": "kube-scheduler", tier: "control-plane" };
  const deploy = workload(ctx, "Deployment", "kube-scheduler", NS, labels2, {
    affinity: spreadAcrossNodes(labels2),
    nodeSelector: masterSelector(ctx),
    tolerations: masterTolerations(ctx),
    ...ctx.caps.priorityClasses ? { priorityClassName: "system-cluster-critical" } : {},
    ...ctx.caps.rbac ? { serviceAccountName: "kube-scheduler" } : {},
    securityContext: { runAsNonRoot: true, runAsUser: 65534 },
    containers: [
      {
        name: "kube-scheduler",
        image: ctx.images.scheduler,
        command: schedulerCommand(ctx, inClusterKubeconfig2),
        ...componentProbe(ctx, SCHEDULER_PORT),
        volumeMounts: [{ name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true }]
      }
    ],
    volumes: [inClusterKubeconfigVolume]
  });
  const out = [
    { path: "manifests/kube-scheduler.yaml", purpose: "self-hosted scheduler Deployment (2 replicas on masters)", objects: [deploy] },
    { path: "manifests/kube-scheduler-disruption.yaml", purpose: "keeps one scheduler running through voluntary disruptions", objects: [pdb(ctx, "kube-scheduler", labels2)] }
  ];
  if (ctx.caps.rbac)
    out.push({
      path: "manifests/kube-scheduler-rbac.yaml",
      purpose: "scheduler's service account and its bindings to system:kube-scheduler and system:volume-scheduler",
      objects: [
        serviceAccount("kube-scheduler"),
        clusterRoleBinding("bootdeck:kube-scheduler", "system:kube-scheduler", [{ kind: "ServiceAccount", name: "kube-scheduler" }]),
        clusterRoleBinding("bootdeck:volume-scheduler", "system:volume-scheduler", [{ kind: "ServiceAccount", name: "kube-scheduler" }])
      ]
    });
  return out;
}
var CHECKPOINT, inClusterKubeconfig2;
var init_control_plane = __esm({
  "lib/assets/manifests/control-plane.ts"() {
    "use strict";
    init_context();
    init_common();
    init_flags();
    CHECKPOINT = { "checkpointer.alpha.coreos.com/checkpoint": "true" };
    inClusterKubeconfig2 = `${IN_CLUSTER_KUBECONFIG_DIR}/kubeconfig`;
  }
});

// lib/assets/manifests/index.ts
function selfHostedManifests(ctx) {
  const controlPlane = isStaticControlPlane(ctx.def) ? [] : [...apiserverManifests(ctx), ...controllerManagerManifests(ctx), ...schedulerManifests(ctx)];
  return [
    ...bootstrapAuthManifests(ctx),
    ...controlPlane,
    ...checkpointerManifests(ctx),
    ...kubeProxyManifests(ctx),
    ...corednsManifests(ctx),
    ...flannelManifests(ctx)
  ];
}
function selfHostedObjectsInOrder(files) {
  const all = files.flatMap((f) => f.objects.map((object, i) => ({ path: f.path, object, i })));
  all.sort((a, b) => rank(a.object.kind) - rank(b.object.kind) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.i - b.i));
  return all.map(({ path: path22, object }) => ({ path: path22, object }));
}
var kindOrder, rank;
var init_manifests = __esm({
  "lib/assets/manifests/index.ts"() {
    "use strict";
    init_definition();
    init_addons();
    init_bootstrap_auth();
    init_control_plane();
    kindOrder = [
      "Namespace",
      "CustomResourceDefinition",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "Secret",
      "ConfigMap",
      "Service",
      "DaemonSet",
      "Deployment",
      "PodDisruptionBudget"
    ];
    rank = (kind) => {
      const i = kindOrder.indexOf(kind);
      return i < 0 ? kindOrder.length : i;
    };
  }
});

// lib/assets/checkpoint.ts
function checkpointManifest(ctx) {
  return {
    path: "checkpoint/kube-apiserver.yaml",
    purpose: `the API server's checkpoint: a static pod each master starts when no API server answers there (kept in ${CHECKPOINT_PATHS.dir})`,
    objects: [
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: CHECKPOINT_LABEL, namespace: "kube-system", labels: { "k8s-app": CHECKPOINT_LABEL, tier: "control-plane" } },
        spec: {
          hostNetwork: true,
          priorityClassName: "system-node-critical",
          containers: [
            {
              name: "kube-apiserver",
              image: ctx.images.apiserver,
              command: apiserverCommand(ctx),
              env: podIpEnv,
              ...apiserverProbes(ctx),
              volumeMounts: [
                { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
                { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true }
              ]
            }
          ],
          volumes: [
            { name: "secrets", hostPath: { path: CHECKPOINT_PATHS.secrets } },
            { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } }
          ]
        }
      }
    ]
  };
}
function checkpointSecretFiles(ctx) {
  return Object.fromEntries(Object.entries(apiserverSecretFiles(ctx)).map(([rel, asset]) => [asset, `${CHECKPOINT_PATHS.secrets}/${rel}`]));
}
function checkpointScript(ctx) {
  return `#!/bin/sh
# Bootdeck: the API server's checkpoint on this master. Starts ${CHECKPOINT_PATHS.active}
# (a static pod of the self-hosted API server) when no API server has answered on :${securePort(ctx)} for
# ${CHECKPOINT_GRACE_S} s and no self-hosted kube-apiserver container runs here; stops it once one has run here for
# ${CHECKPOINT_HANDOVER_S} s (both serve the shared port meanwhile, so the handover has no gap). The self-hosted one
# needs the checkpoint to start at all: its certificates come from a Secret the kubelet reads through an API server.
set -u
SRC=${CHECKPOINT_PATHS.manifest}
ACTIVE=${CHECKPOINT_PATHS.active}
# Written beside it first under a dot name, which the kubelet ignores, then renamed into place.
HIDDEN=${KUBELET_PATHS.staticPods}/.kube-apiserver-checkpoint.yaml.tmp
log() { echo "bootdeck-checkpoint: $*"; }
answers() { curl -sk -o /dev/null --max-time 3 https://127.0.0.1:${securePort(ctx)}/livez; }
selfhosted_running() {
  for pod in $(crictl pods -q --state ready --namespace kube-system --label k8s-app=kube-apiserver 2>/dev/null); do
    crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && return 0
  done
  return 1
}
down=0
up=0
while :; do
  if selfhosted_running; then up=$((up + 5)); else up=0; fi
  if [ -f "$ACTIVE" ]; then
    if [ "$up" -ge ${CHECKPOINT_HANDOVER_S} ]; then rm -f "$ACTIVE"; down=0; log "the self-hosted kube-apiserver has run here for $up s: checkpoint stopped"; fi
  elif [ "$up" -gt 0 ] || answers; then
    down=0
  else
    down=$((down + 5))
    if [ "$down" -ge ${CHECKPOINT_GRACE_S} ] && [ -f "$SRC" ]; then
      cp "$SRC" "$HIDDEN" && mv -f "$HIDDEN" "$ACTIVE"
      log "no API server on :${securePort(ctx)} for $down s and no self-hosted one running here: checkpoint started"
    fi
  fi
  sleep 5
done
`;
}
function checkpointUnit() {
  return [
    "[Unit]",
    "Description=Bootdeck API server checkpoint (starts a static API server when none is left)",
    "After=kubelet.service",
    "",
    "[Service]",
    `ExecStart=${CHECKPOINT_PATHS.script}`,
    "Restart=always",
    "RestartSec=5",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    ""
  ].join("\n");
}
var CHECKPOINT_PATHS, CHECKPOINT_GRACE_S, CHECKPOINT_LABEL, CHECKPOINT_HANDOVER_S;
var init_checkpoint = __esm({
  "lib/assets/checkpoint.ts"() {
    "use strict";
    init_context();
    init_flags();
    init_kubelet_unit();
    CHECKPOINT_PATHS = {
      dir: "/etc/kubernetes/checkpoint",
      manifest: "/etc/kubernetes/checkpoint/kube-apiserver.yaml",
      secrets: "/etc/kubernetes/checkpoint-secrets",
      active: `${KUBELET_PATHS.staticPods}/kube-apiserver-checkpoint.yaml`,
      script: "/usr/local/libexec/bootdeck-checkpoint",
      unit: "/etc/systemd/system/bootdeck-checkpoint.service"
    };
    CHECKPOINT_GRACE_S = 30;
    CHECKPOINT_LABEL = "kube-apiserver-checkpoint";
    CHECKPOINT_HANDOVER_S = 30;
  }
});

// lib/assets/render.ts
function checkDays(name, v) {
  if (!Number.isInteger(v) || v < 1 || v > 36500) throw new RenderOptionsError(`${name} must be a whole number of days from 1 to 36500`);
  return v;
}
async function renderAssets(input, options = {}) {
  const validation = validateClusterDefinition(input);
  if (!validation.ok) throw new RenderValidationError(validation.errors);
  const def = validation.definition;
  const keyType = options.keyType ?? defaultRenderOptions.keyType;
  if (keyType !== "rsa" && keyType !== "ecdsa") throw new RenderOptionsError('key type must be "rsa" or "ecdsa"');
  const caValidityDays = checkDays("CA validity", options.caValidityDays ?? defaultRenderOptions.caValidityDays);
  const leafValidityDays = checkDays("certificate validity", options.leafValidityDays ?? defaultRenderOptions.leafValidityDays);
  const now = options.now ?? /* @__PURE__ */ new Date();
  const random = options.random ?? import_node_crypto10.randomBytes;
  const derived = deriveCluster(def);
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const plan = certificatePlan(def, derived, caps);
  const certCount = plan.filter(isCertEntry).length;
  const total = plan.length + certCount + 1;
  let done = 0;
  const step4 = (label2) => options.onProgress?.(++done, total, label2);
  const kept = options.keep ? keptEntries(plan, options.keep, (entry) => entry.name === "apiserver" ? apiserverAltNames(def, { ...derived, masters: [] }) : entry.altNames) : void 0;
  const pki = await issueCertificates(plan, {
    keyType,
    caValidityDays,
    leafValidityDays,
    now,
    random,
    keys: { ...options.keys, ...kept?.keys },
    importedCa: options.importedCa,
    kept: kept?.certs,
    onStep: step4
  });
  const token = options.keep ? parseBootstrapToken(options.keep.token) : generateBootstrapToken(random);
  const drafts = [];
  const add = (path22, content, sensitive, purpose) => drafts.push({ path: path22, content, sensitive, purpose });
  for (const entry of plan) {
    if (!isCertEntry(entry)) continue;
    const c = pki.certs.get(entry.name);
    if (!c) throw new Error(`certificate ${entry.name} was not issued`);
    const imported = entry.name === CA && options.importedCa !== void 0;
    add(`${entry.stem}.crt`, c.certPem, false, imported ? "cluster CA (imported)" : entry.purpose);
    add(`${entry.stem}.key`, c.keyPem, true, `private key of ${entry.stem}.crt`);
  }
  add("tls/service-account.key", pki.serviceAccount.keyPem, true, "service-account token signing key (controller-manager; API server from 1.20)");
  add("tls/service-account.pub", pki.serviceAccount.pubPem, false, "service-account token verification key (API server)");
  const ca = pki.certs.get(CA);
  if (!ca) throw new Error("cluster CA was not issued");
  const cert = (name) => {
    const c = pki.certs.get(name);
    if (!c) throw new Error(`certificate ${name} was not issued`);
    return { clientCertPem: c.certPem, clientKeyPem: c.keyPem };
  };
  const kc = (userName, user2, server = derived.apiServerUrl) => kubeconfig({ clusterName: def.metadata.name, server, caPem: ca.certPem, userName, user: user2 });
  const loopbackUrl = `https://127.0.0.1:${def.spec.apiEndpoint.port}`;
  add("auth/kubeconfig", kc("admin", cert("admin")), true, "administrator kubeconfig (system:masters)");
  add(
    "auth/kubeconfig-kubelet",
    kc(caps.bootstrapTokens ? "kubelet-bootstrap" : "kubelet", { token: token.token }),
    true,
    caps.bootstrapTokens ? "kubelet bootstrap kubeconfig: bootstrap-token user that requests the node's client certificate" : "kubelet kubeconfig (static token user)"
  );
  add("auth/kubeconfig-controller-manager", kc("system:kube-controller-manager", cert("controller-manager"), loopbackUrl), true, "controller-manager kubeconfig for the bootstrap control plane (API server on loopback)");
  add("auth/kubeconfig-scheduler", kc("system:kube-scheduler", cert("scheduler"), loopbackUrl), true, "scheduler kubeconfig for the bootstrap control plane (API server on loopback)");
  if (caps.anonymousEndpoints) add("apiserver/authentication-config.yaml", authenticationConfig(), false, "API server authentication configuration: anonymous requests only on /livez, /readyz and /healthz");
  if (!caps.bootstrapTokens) add("auth/known-tokens.csv", `${token.token},kubelet,kubelet,"system:nodes"
`, true, "API server token file with the kubelets' token (1.5 has no bootstrap tokens)");
  const ctx = { def, derived, caps, images: imagesFor(caps, def.spec.images.registry), pki, token, files: new Map(drafts.map((d) => [d.path, d.content])) };
  const hostCheckpoint = caps.checkpoint === "host" && !isStaticControlPlane(def);
  const manifestFiles2 = [
    ...bootstrapManifests(ctx),
    ...etcdManifests(ctx, options.joiningMembers ?? []),
    ...selfHostedManifests(ctx),
    ...hostCheckpoint ? [checkpointManifest(ctx)] : [],
    ...isStaticControlPlane(def) ? staticControlPlaneManifests(ctx) : []
  ];
  for (const f of manifestFiles2) add(f.path, toYamlDocuments(f.objects), f.sensitive === true, f.purpose);
  add("kubelet/kubelet.service", kubeletUnit(caps), false, "kubelet systemd unit (/etc/systemd/system/kubelet.service), Restart=always");
  add("kubelet/10-bootdeck.conf", kubeletDropIn(caps, def, derived), false, "kubelet unit drop-in with the flags valid for this version (kubelet.service.d/10-bootdeck.conf)");
  if (caps.kubeletConfigFile) {
    add("kubelet/config-master.yaml", kubeletConfiguration(caps, def, derived, "master"), false, "KubeletConfiguration for masters (/var/lib/kubelet/config.yaml; registers with the control-plane taint)");
    if (derived.workers.length > 0) add("kubelet/config-worker.yaml", kubeletConfiguration(caps, def, derived, "worker"), false, "KubeletConfiguration for workers (/var/lib/kubelet/config.yaml)");
  }
  if (hostCheckpoint) {
    add("checkpoint/bootdeck-checkpoint", checkpointScript(ctx), false, `the checkpoint watchdog on masters (${CHECKPOINT_PATHS.script})`);
    add("checkpoint/bootdeck-checkpoint.service", checkpointUnit(), false, `its systemd unit (${CHECKPOINT_PATHS.unit})`);
  }
  if (caps.criRuntime) {
    const registry = def.spec.images.registry;
    add("runtime/containerd-config.toml", containerdConfig(def, ctx.images), false, `containerd configuration (${RUNTIME_PATHS.config}): CRI, ${def.spec.runtime.cgroupDriver} cgroups, sandbox ${ctx.images.pause}`);
    if (def.spec.runtime.source === "mirror") add("runtime/containerd.service", containerdUnit(), false, `containerd systemd unit (${RUNTIME_PATHS.unit}) for the containerd Bootdeck installs`);
    add("runtime/crictl.yaml", crictlConfig(), false, `crictl's configuration (${RUNTIME_PATHS.crictl}): containerd's socket`);
    add("runtime/modules.conf", modulesConf(), false, `kernel modules loaded at boot (${RUNTIME_PATHS.modules})`);
    add("runtime/sysctl.conf", sysctlConf(), false, `sysctls for pod networking (${RUNTIME_PATHS.sysctl})`);
    if (registry) {
      add("runtime/registry-hosts.toml", registryHostsToml(registry, def.spec.images.ca !== void 0), false, `how containerd reaches the image mirror ${registryHost(registry)}`);
      if (def.spec.images.ca) add("runtime/registry-ca.crt", def.spec.images.ca, false, `the image mirror's CA certificate (trusted for ${registryHost(registry)} only)`);
    }
  }
  if (provisionsVip(def)) {
    add("endpoint/keepalived.conf", keepalivedConfig(def), false, `keepalived on the masters: holds the API address ${derived.apiEndpointHost} where an API server answers (${ENDPOINT_PATHS.config})`);
    add("endpoint/bootdeck-keepalived.service", keepalivedUnit(), false, `its systemd unit (${ENDPOINT_PATHS.unit})`);
  }
  for (const h of [...derived.masters, ...derived.workers])
    add(`kubelet/hosts/${h.name}.env`, kubeletHostEnv(caps, h), false, `kubelet settings for ${h.name} (/etc/default/kubelet: node name, IP, labels)`);
  step4("manifests");
  const seen2 = /* @__PURE__ */ new Set();
  for (const d of drafts) {
    if (seen2.has(d.path)) throw new Error(`render: ${d.path} rendered twice`);
    seen2.add(d.path);
  }
  return drafts.map((d) => ({ path: d.path, content: d.content, mode: FILE_MODE, sensitive: d.sensitive, purpose: d.purpose })).sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}
function keptEntries(plan, keep, required) {
  const keys = { "service-account": keep.serviceAccount.keyPem };
  const certs2 = /* @__PURE__ */ new Map();
  const entries = plan.filter(isCertEntry);
  const byName = new Map(entries.map((e) => [e.name, e]));
  for (const entry of entries) {
    const prev = keep.certs.get(entry.stem);
    if (!prev) continue;
    keys[entry.name] = prev.keyPem;
    if (keep.reissue === "leaves" && !entry.isCa) continue;
    const issuer = entry.issuer ? byName.get(entry.issuer) : void 0;
    const issuerPem = issuer ? certs2.has(issuer.name) ? keep.certs.get(issuer.stem)?.certPem : void 0 : void 0;
    if (keptCertificateFits(entry, prev.certPem, issuerPem, required(entry))) certs2.set(entry.name, prev);
  }
  return { keys, certs: certs2 };
}
var import_node_crypto10, FILE_MODE, DIR_MODE;
var init_render = __esm({
  "lib/assets/render.ts"() {
    "use strict";
    import_node_crypto10 = require("node:crypto");
    init_definition();
    init_derive();
    init_bootstrap_manifests();
    init_capabilities();
    init_certificates();
    init_endpoint();
    init_keep();
    init_kubeconfig();
    init_kubelet_unit();
    init_manifests();
    init_flags();
    init_runtime();
    init_token();
    init_checkpoint();
    init_types();
    init_yaml_out();
    init_manifests();
    init_bootstrap_manifests();
    init_kubelet_unit();
    FILE_MODE = 384;
    DIR_MODE = 448;
  }
});

// lib/assets/tarball.ts
var import_tar_stream;
var init_tarball = __esm({
  "lib/assets/tarball.ts"() {
    "use strict";
    import_tar_stream = require("tar-stream");
  }
});

// lib/assets/text-diff.ts
var init_text_diff = __esm({
  "lib/assets/text-diff.ts"() {
    "use strict";
  }
});

// lib/assets/store.ts
function parseOptions(json2) {
  const o2 = JSON.parse(json2);
  return {
    keyType: o2.keyType ?? "rsa",
    caValidityDays: o2.caValidityDays ?? 3650,
    leafValidityDays: o2.leafValidityDays ?? 365,
    importedCa: o2.importedCa ?? false,
    ...o2.kubernetesVersion ? { kubernetesVersion: o2.kubernetesVersion } : {},
    ...o2.keptPkiOf ? { keptPkiOf: o2.keptPkiOf } : {}
  };
}
function earliestNotAfter(assets) {
  let earliest = null;
  for (const a of assets) {
    if (a.sensitive || !isCertificatePath(a.path)) continue;
    try {
      const d = new Date(new import_node_crypto11.X509Certificate(a.content).validTo);
      if (!earliest || d < earliest) earliest = d;
    } catch {
    }
  }
  return earliest;
}
async function saveAssetSet(input) {
  const db = getDb();
  const notAfter = earliestNotAfter(input.assets);
  const rows = input.assets.map((a) => ({
    id: newId("ast"),
    path: a.path,
    mode: a.mode,
    sensitive: a.sensitive,
    content: a.sensitive ? encryptSecret(a.content) : a.content,
    sha256: sha2562(a.content),
    size: Buffer.byteLength(a.content, "utf8"),
    purpose: a.purpose
  }));
  for (let attempt = 0; ; attempt++) {
    const last = await db.assetSet.findFirst({ where: { clusterId: input.clusterId }, orderBy: { version: "desc" }, select: { version: true } });
    const version = (last?.version ?? 0) + 1;
    try {
      const created = await db.assetSet.create({
        data: { id: newId("as"), clusterId: input.clusterId, version, options: JSON.stringify(input.options), notAfter, assets: { create: rows } },
        select: { id: true, version: true }
      });
      return created;
    } catch (err) {
      if (err.code !== "P2002" || attempt >= 4) throw err;
    }
  }
}
async function renderKeepingPki(input) {
  const prev = await getDb().assetSet.findUnique({ where: { id: input.fromSetId }, select: { version: true, options: true, clusterId: true, assets: { select: { path: true, content: true, sensitive: true } } } });
  if (!prev || prev.clusterId !== input.clusterId) throw notFound("Asset set");
  const options = parseOptions(prev.options);
  const files = new Map(prev.assets.map((a) => [a.path, a.sensitive ? decryptSecret(a.content) : a.content]));
  const assets = await renderAssets(input.definition, {
    keyType: options.keyType,
    caValidityDays: options.caValidityDays,
    leafValidityDays: options.leafValidityDays,
    keep: keptPkiFrom(files),
    joiningMembers: input.joiningMembers
  });
  const version = input.definition.spec?.kubernetes?.version;
  return { assets, options: { ...options, ...version ? { kubernetesVersion: version } : {}, keptPkiOf: prev.version } };
}
function assetIndexOf(assets) {
  return new Map(assets.map((a) => [a.path, { sha256: sha2562(a.content), size: Buffer.byteLength(a.content, "utf8") }]));
}
async function renderAndSaveAssetSet(input) {
  const cluster = await getClusterOrThrow({ id: input.clusterId });
  const assets = await renderAssets(cluster.definition, input.options);
  const saved = await saveAssetSet({
    clusterId: input.clusterId,
    assets,
    options: {
      keyType: input.options.keyType ?? "rsa",
      caValidityDays: input.options.caValidityDays ?? 3650,
      leafValidityDays: input.options.leafValidityDays ?? 365,
      importedCa: input.options.importedCa !== void 0,
      kubernetesVersion: cluster.definition.spec.kubernetes.version
    }
  });
  return { ...saved, fileCount: assets.length };
}
var import_node_crypto11, sha2562;
var init_store = __esm({
  "lib/assets/store.ts"() {
    "use strict";
    import_node_crypto11 = require("node:crypto");
    init_repository();
    init_client2();
    init_errors();
    init_ids();
    init_cipher();
    init_cert_details();
    init_keep();
    init_render();
    init_tarball();
    init_text_diff();
    sha2562 = (s2) => (0, import_node_crypto11.createHash)("sha256").update(s2, "utf8").digest("hex");
  }
});

// lib/assets/render-jobs.ts
async function awaitRunningRender(clusterId2) {
  for (const j of jobs.values()) if (j.clusterId === clusterId2 && j.status === "running") await j.settled?.catch(() => void 0);
}
var KEEP_MS, holder2, jobs;
var init_render_jobs = __esm({
  "lib/assets/render-jobs.ts"() {
    "use strict";
    init_client2();
    init_errors();
    init_store();
    init_types();
    KEEP_MS = 10 * 60 * 1e3;
    holder2 = globalThis;
    jobs = holder2.bootdeckRenderJobs ??= /* @__PURE__ */ new Map();
  }
});

// lib/ssh/quote.ts
function quote(arg) {
  if (arg.includes("\0")) {
    throw new QuoteError(
      `cannot pass an argument containing a NUL byte (at index ${arg.indexOf("\0")}): command-line arguments end at NUL; send such data as a file or on stdin instead`
    );
  }
  if (arg !== "" && SAFE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}
function shellCommand(argv) {
  if (argv.length === 0) throw new QuoteError("cannot build a command from an empty argument list");
  return argv.map(quote).join(" ");
}
function shellScript(script, args = [], name = "bootdeck") {
  return ["sh", "-c", script, name, ...args];
}
var QuoteError, SAFE;
var init_quote = __esm({
  "lib/ssh/quote.ts"() {
    "use strict";
    QuoteError = class extends Error {
      constructor(message) {
        super(message);
        this.name = "QuoteError";
      }
    };
    SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
  }
});

// lib/engine/actions/facts.ts
function parseFacts(text, sentAt, receivedAt) {
  const one = /* @__PURE__ */ new Map();
  const addresses = [];
  for (const line2 of text.split("\n")) {
    const eq = line2.indexOf("=");
    if (eq < 0) continue;
    const key = line2.slice(0, eq);
    const value = line2.slice(eq + 1).trim();
    if (key === "address") {
      const [iface, cidr2] = value.split(" ");
      if (iface && cidr2) addresses.push({ iface, cidr: cidr2 });
    } else one.set(key, value);
  }
  const hostTime = Number(one.get("time") ?? "NaN") * 1e3;
  const midpoint = (sentAt + receivedAt) / 2;
  return {
    os: one.get("os") ?? "unknown",
    osId: one.get("osId") ?? "unknown",
    kernel: one.get("kernel") ?? "unknown",
    arch: one.get("arch") ?? "unknown",
    hostname: one.get("hostname") ?? "",
    init: one.get("init") ?? "unknown",
    cpus: Number(one.get("cpus") ?? 0),
    memKb: Number(one.get("memKb") ?? 0),
    addresses,
    clockOffsetS: Number.isFinite(hostTime) ? Math.round(hostTime - midpoint) / 1e3 : Number.NaN,
    gatheredAt: new Date(receivedAt).toISOString()
  };
}
var FACTS_SCRIPT;
var init_facts = __esm({
  "lib/engine/actions/facts.ts"() {
    "use strict";
    FACTS_SCRIPT = `. /etc/os-release 2>/dev/null
echo "os=\${PRETTY_NAME:-unknown}"
echo "osId=\${ID:-unknown}"
echo "kernel=$(uname -r)"
echo "arch=$(uname -m)"
echo "hostname=$(hostname)"
echo "init=$(cat /proc/1/comm 2>/dev/null)"
echo "cpus=$(nproc 2>/dev/null)"
echo "memKb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
ip -o addr show scope global 2>/dev/null | awk '{print "address=" $2 " " $4}'
echo "time=$(date +%s.%N)"`;
  }
});

// lib/engine/actions/host-scripts.ts
var HOST_LOCK_FILE, LOCKED_EXIT, FLOCK, LOCK, UNLOCK_SCRIPT, releaseLockArgv, PACKAGES_SCRIPT, DOWNLOAD_SCRIPT, RUNTIME_PACKAGES, RUNTIME_PACKAGES_SCRIPT, RUNTIME_STAMP_FILE, RUNTIME_START_SCRIPT, KUBELET_STAMP_FILE, KUBELET_START_SCRIPT, CHECKPOINT_STAMP_FILE, CHECKPOINT_ENABLE_SCRIPT, REMOVE_SCRIPT, PRESENT_SCRIPT, JOURNAL_SCRIPT, RESET_SCRIPT;
var init_host_scripts = __esm({
  "lib/engine/actions/host-scripts.ts"() {
    "use strict";
    init_runtime();
    init_quote();
    HOST_LOCK_FILE = "/var/lib/bootdeck/run.lock";
    LOCKED_EXIT = 75;
    FLOCK = `lock=${HOST_LOCK_FILE}
mkdir -p /var/lib/bootdeck
command -v flock >/dev/null 2>&1 || { echo "flock is missing on this host (install util-linux)" >&2; exit 1; }
exec 9>>"$lock"
flock -w 30 9 || { echo "bootdeck-locked-by (busy: another process holds $lock)" >&2; exit ${LOCKED_EXIT}; }
holder=$(cat "$lock")
`;
    LOCK = `${FLOCK}if [ -n "$holder" ] && [ "$holder" != "$1" ]; then
  echo "bootdeck-locked-by $holder" >&2
  exit ${LOCKED_EXIT}
fi
[ "$holder" = "$1" ] || printf '%s
' "$1" > "$lock"
exec 9>&-
shift 1
`;
    UNLOCK_SCRIPT = `[ -e ${HOST_LOCK_FILE} ] || exit 0
${FLOCK}[ "$holder" = "$1" ] && : > "$lock"
exit 0`;
    releaseLockArgv = (runId) => shellScript(UNLOCK_SCRIPT, [runId], "bootdeck-unlock");
    PACKAGES_SCRIPT = `${LOCK}missing=""
for pair in "$@"; do
  cmd=\${pair%%=*}; pkg=\${pair#*=}
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -z "$missing" ]; then echo "bootdeck-packages present"; exit 0; fi
echo "installing:$missing"
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  for try in 1 2 3; do
    timeout 600 apt-get update -q && timeout 600 apt-get install -y -q --no-install-recommends $missing && exit 0
    echo "apt-get failed (attempt $try of 3); retrying in $((try * 5)) s" >&2; sleep $((try * 5))
  done
elif command -v dnf >/dev/null 2>&1; then
  for try in 1 2 3; do
    timeout 600 dnf install -y $missing && exit 0
    echo "dnf failed (attempt $try of 3); retrying in $((try * 5)) s" >&2; sleep $((try * 5))
  done
else
  echo "no apt-get or dnf to install:$missing" >&2
fi
exit 1`;
    DOWNLOAD_SCRIPT = `${LOCK}url=$1; sum=$2; sums=$3; dest=$4; unpack=$5
name=\${url##*/}
fetch() { if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 3 --connect-timeout 10 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -T 10 -t 3 -O "$2" "$1"
  else echo "neither curl nor wget is installed" >&2; return 1; fi; }
if [ -z "$sum" ]; then
  fetch "$sums" /tmp/bootdeck-sums.$$ || { echo "could not read the published checksum $sums" >&2; exit 1; }
  sum=$(awk -v f="$name" 'NF == 1 || $2 == f || $2 == "*" f { print $1; exit }' /tmp/bootdeck-sums.$$); rm -f /tmp/bootdeck-sums.$$
  case "$sum" in *[!0-9a-f]*|"") echo "no checksum for $name in $sums" >&2; exit 1 ;; esac
  [ \${#sum} -eq 64 ] || { echo "no SHA-256 for $name in $sums" >&2; exit 1; }
fi
marker="$dest/.bootdeck-$name.sha256"
if [ "$unpack" = file ] && [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status - 2>/dev/null; then
  chmod 0755 "$dest"; echo "bootdeck-binary present $dest"; exit 0
fi
if [ "$unpack" = tar ] && [ "$(head -n 1 "$marker" 2>/dev/null)" = "$sum" ]; then echo "bootdeck-binary present $dest ($name)"; exit 0; fi
tmp=/var/lib/bootdeck/download.$$; mkdir -p /var/lib/bootdeck; rm -f "$tmp"
fetch "$url" "$tmp" || { echo "download of $url failed" >&2; rm -f "$tmp"; exit 1; }
if ! echo "$sum  $tmp" | sha256sum -c --status -; then
  echo "checksum mismatch for $url: expected $sum, got $(sha256sum "$tmp" | cut -d' ' -f1)" >&2; rm -f "$tmp"; exit 1
fi
if [ "$unpack" = tar ]; then
  mkdir -p "$dest" && tar -xzf "$tmp" -C "$dest" --no-same-owner || { echo "unpacking $name into $dest failed" >&2; rm -f "$tmp"; exit 1; }
  { echo "$sum"; tar -tzf "$tmp"; } > "$marker"; rm -f "$tmp"
  echo "bootdeck-binary installed $dest ($name)"
else
  mkdir -p "$(dirname "$dest")" && chmod 0755 "$tmp" && mv -f "$tmp" "$dest" && echo "bootdeck-binary installed $dest"
fi`;
    RUNTIME_PACKAGES = ["containerd", "runc"];
    RUNTIME_PACKAGES_SCRIPT = `${LOCK}missing=""
for p in "$@"; do command -v "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -z "$missing" ]; then echo "bootdeck-packages present"; exit 0; fi
echo "installing:$missing"
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -q && timeout 600 apt-get install -y -q --no-install-recommends $missing && exit 0
elif command -v dnf >/dev/null 2>&1; then
  timeout 600 dnf install -y $missing && exit 0
else echo "no apt-get or dnf to install:$missing" >&2; fi
exit 1`;
    RUNTIME_STAMP_FILE = "/var/lib/bootdeck/containerd.applied";
    RUNTIME_START_SCRIPT = `${LOCK}sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
for m in ${KERNEL_MODULES.join(" ")}; do
  modprobe "$m" 2>/dev/null || grep -qw "$m" /proc/filesystems /proc/modules 2>/dev/null || [ -d "/sys/module/$m" ] || [ "$m" = br_netfilter -a -e /proc/sys/net/bridge ] || { echo "kernel module $m is not available" >&2; exit 1; }
done
sysctl -q -p ${RUNTIME_PATHS.sysctl} >/dev/null || { echo "applying ${RUNTIME_PATHS.sysctl} failed" >&2; exit 1; }
mkdir -p ${RUNTIME_PATHS.confD} ${RUNTIME_PATHS.cniBin} ${RUNTIME_PATHS.cniConf}
systemctl daemon-reload
systemctl enable containerd >/dev/null 2>&1 || systemctl enable containerd
how=kept
if [ "$sum" != "$(cat ${RUNTIME_STAMP_FILE} 2>/dev/null)" ] || ! systemctl is-active --quiet containerd; then systemctl restart containerd; how=restarted; fi
i=0
until conditions=$(crictl info -o go-template --template '{{range .status.conditions}}{{.type}}={{.status}} {{end}}' 2>&1); do
  i=$((i + 1))
  if [ "$i" -ge 30 ]; then
    echo "containerd does not answer over CRI after 30 s ($conditions); its journal:" >&2
    journalctl -u containerd -n 30 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1
  fi
  sleep 1
done
case " $conditions" in *" RuntimeReady=true "*) ;; *) echo "containerd answers but is not RuntimeReady: $conditions" >&2; exit 1 ;; esac
printf '%s
' "$sum" > ${RUNTIME_STAMP_FILE}
echo "bootdeck-runtime $(containerd --version 2>/dev/null | awk '{print $3}') ready ($how)"`;
    KUBELET_STAMP_FILE = "/var/lib/bootdeck/kubelet.applied";
    KUBELET_START_SCRIPT = `${LOCK}watch=$1; shift
stamp=${KUBELET_STAMP_FILE}
sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable kubelet >/dev/null 2>&1 || systemctl enable kubelet
how=kept
if [ "$sum" != "$(cat "$stamp" 2>/dev/null)" ] || ! systemctl is-active --quiet kubelet; then systemctl restart kubelet; how=restarted; fi
before=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
sleep "$watch"
state=$(systemctl is-active kubelet 2>/dev/null || true)
after=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
echo "bootdeck-kubelet $how state=$state restarts=$before..$after"
if [ "$state" = active ] && [ "\${after:-0}" = "\${before:-0}" ]; then printf '%s
' "$sum" > "$stamp"; exit 0; fi
echo "the kubelet is not running steadily (state $state, restarts $before \u2192 $after); its journal:" >&2
journalctl -u kubelet -n 40 --no-pager 2>&1 | sed 's/^/journal: /' >&2
exit 1`;
    CHECKPOINT_STAMP_FILE = "/var/lib/bootdeck/checkpoint.applied";
    CHECKPOINT_ENABLE_SCRIPT = `${LOCK}sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable bootdeck-checkpoint >/dev/null 2>&1 || systemctl enable bootdeck-checkpoint
if [ "$sum" != "$(cat ${CHECKPOINT_STAMP_FILE} 2>/dev/null)" ] || ! systemctl is-active --quiet bootdeck-checkpoint; then systemctl restart bootdeck-checkpoint; fi
systemctl is-active --quiet bootdeck-checkpoint || { echo "bootdeck-checkpoint did not start" >&2; journalctl -u bootdeck-checkpoint -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
printf '%s
' "$sum" > ${CHECKPOINT_STAMP_FILE}
echo "bootdeck-checkpoint active"`;
    REMOVE_SCRIPT = `${LOCK}for p in "$@"; do rm -rf -- "$p"; done
echo "bootdeck-removed $#"`;
    PRESENT_SCRIPT = `for p in "$@"; do [ -e "$p" ] && echo "present $p"; done
exit 0`;
    JOURNAL_SCRIPT = `journalctl -u kubelet -n "$1" --no-pager 2>&1 || true`;
    RESET_SCRIPT = `${LOCK}systemctl stop bootdeck-keepalived 2>/dev/null || true
systemctl disable bootdeck-keepalived 2>/dev/null || true
systemctl stop bootdeck-checkpoint 2>/dev/null || true
systemctl disable bootdeck-checkpoint 2>/dev/null || true
systemctl stop kubelet 2>/dev/null || true
systemctl disable kubelet 2>/dev/null || true
if command -v crictl >/dev/null 2>&1; then crictl rmp --all --force >/dev/null 2>&1 || true; fi
systemctl stop containerd 2>/dev/null || true
systemctl disable containerd 2>/dev/null || true
# "[c]" so the pattern does not match this script's own command line (it contains the pattern's text).
pkill -f '[c]ontainerd-shim' 2>/dev/null || true
awk '$2 ~ "^/(var/lib/kubelet|run/containerd|var/lib/containerd|run/netns)/" { print $2 }' /proc/mounts | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
for i in cni0 flannel.1; do ip link del "$i" 2>/dev/null || true; done
if command -v iptables-save >/dev/null 2>&1; then iptables-save | grep -v -e KUBE- -e FLANNEL -e CNI- | iptables-restore 2>/dev/null || true; fi
for p in "$@"; do
  case "$p" in
    */.bootdeck-*.sha256) [ -f "$p" ] && tail -n +2 "$p" | while read -r f; do case "$f" in */) ;; *) rm -f -- "$(dirname "$p")/$f" ;; esac; done ;;
  esac
done
for p in "$@"; do
  if mountpoint -q "$p" 2>/dev/null; then find "$p" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null; else rm -rf -- "$p"; fi
done
systemctl daemon-reload 2>/dev/null || true
echo "bootdeck-reset removed $# paths"`;
  }
});

// lib/engine/actions/preflight.ts
function parsePreflight(text) {
  const probe2 = {
    swapKb: 0,
    ipForward: "",
    bridgeNf: "",
    conntrackMax: Number.NaN,
    cgroup: "",
    init: "",
    arch: "",
    modules: {},
    containerd: null,
    runtimeSocket: false,
    docker: false,
    containerdCandidate: "",
    commands: {},
    pkgManager: null,
    listening: [],
    diskFreeKb: Number.NaN
  };
  for (const line2 of text.split("\n")) {
    const eq = line2.indexOf("=");
    if (eq < 0) continue;
    const key = line2.slice(0, eq);
    const value = line2.slice(eq + 1).trim();
    if (key === "swapKb") probe2.swapKb = Number(value) || 0;
    else if (key === "ipForward") probe2.ipForward = value;
    else if (key === "cgroup") probe2.cgroup = value;
    else if (key === "bridgeNf") probe2.bridgeNf = value;
    else if (key === "conntrackMax") probe2.conntrackMax = value === "" ? Number.NaN : Number(value);
    else if (key === "init") probe2.init = value;
    else if (key === "arch") probe2.arch = value;
    else if (key === "module") probe2.modules[value.split(" ")[0] ?? ""] = true;
    else if (key === "containerd") {
      const [path22 = "", version = ""] = value.split(" ");
      probe2.containerd = { path: path22, version: version.replace(/^v/, "") };
    } else if (key === "runtimeSocket") probe2.runtimeSocket = true;
    else if (key === "docker") probe2.docker = true;
    else if (key === "containerdCandidate") probe2.containerdCandidate = value === "(none)" ? "" : value;
    else if (key === "cmd") {
      const [c, yes] = value.split(" ");
      if (c) probe2.commands[c] = yes === "yes";
    } else if (key === "pkgManager") probe2.pkgManager ??= value;
    else if (key === "listen") {
      const port2 = Number(value.slice(value.lastIndexOf(":") + 1));
      if (Number.isInteger(port2)) probe2.listening.push(port2);
    } else if (key === "diskFreeKb") probe2.diskFreeKb = Number(value);
  }
  return probe2;
}
function requiredPorts(role) {
  return role === "master" ? [6443, 10250, 2379, 2380] : [10250];
}
function versionAtLeast(version, minimum) {
  const parts = (v) => (v.match(/^\d+(\.\d+)*/)?.[0] ?? "0").split(".").map(Number);
  const a = parts(version);
  const b = parts(minimum);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}
function evaluateHost(probe2, target) {
  const { role, caps, def } = target;
  const f = [];
  if (probe2.swapKb > 0)
    f.push({ check: "swap", severity: "error", message: `swap is on (${Math.round(probe2.swapKb / 1024)} MiB)`, hint: "run `swapoff -a` and remove swap entries from /etc/fstab: the kubelet refuses to start with swap on" });
  else f.push({ check: "swap", severity: "ok", message: "swap is off" });
  const ports = requiredPorts(role);
  const taken = ports.filter((p2) => probe2.listening.includes(p2));
  const listed = (ps) => `port${ps.length > 1 ? "s" : ""} ${ps.join(", ")}`;
  if (taken.length)
    f.push({ check: "ports", severity: "error", message: `${listed(taken)} already in use`, hint: `find the owner with \`ss -ltnp 'sport = :${taken[0]}'\`; if it is an earlier install, reset the host first` });
  else f.push({ check: "ports", severity: "ok", message: `${listed(ports)} ${ports.length > 1 ? "are" : "is"} free` });
  const missing = Object.entries(kubeletHostPackages).filter(([cmd]) => probe2.commands[cmd] === false).map(([, pkg]) => pkg);
  if (missing.length && !probe2.pkgManager)
    f.push({ check: "packages", severity: "error", message: `missing ${missing.join(", ")} and no apt-get or dnf to install them`, hint: "install them from your distribution before bootstrapping" });
  else if (missing.length)
    f.push({ check: "packages", severity: "warning", message: `missing ${missing.join(", ")}; they will be installed with ${probe2.pkgManager}` });
  else f.push({ check: "packages", severity: "ok", message: "the kubelet's host packages are present" });
  const freeGiB = probe2.diskFreeKb / 1024 / 1024;
  if (!Number.isFinite(freeGiB)) f.push({ check: "disk", severity: "warning", message: "could not read free disk space on /" });
  else if (freeGiB < 1) f.push({ check: "disk", severity: "error", message: `only ${freeGiB.toFixed(2)} GiB free on /`, hint: "free at least 2 GiB: images and etcd data live there" });
  else if (freeGiB < 2) f.push({ check: "disk", severity: "warning", message: `${freeGiB.toFixed(1)} GiB free on /; 2 GiB or more is advised` });
  else f.push({ check: "disk", severity: "ok", message: `${freeGiB.toFixed(1)} GiB free on /` });
  if (probe2.arch && probe2.arch !== "x86_64")
    f.push({ check: "arch", severity: "error", message: `the host is ${probe2.arch}; Bootdeck installs amd64 (x86_64) binaries`, hint: "bootstrap x86_64 hosts" });
  f.push(...cgroupFindings(probe2, caps, def));
  if (caps.criRuntime) f.push(...runtimeFindings(probe2, caps, def));
  else if (probe2.ipForward !== "1")
    f.push({ check: "ip-forward", severity: "warning", message: "IPv4 forwarding is off", hint: "pod traffic needs it: `sysctl -w net.ipv4.ip_forward=1` and persist it in /etc/sysctl.d" });
  return f;
}
function cgroupFindings(probe2, caps, def) {
  const f = [];
  const v1 = probe2.cgroup !== "" && probe2.cgroup !== "cgroup2fs";
  const move = "boot the host with cgroup v2 (systemd.unified_cgroup_hierarchy=1 on the kernel command line)";
  if (!v1) f.push({ check: "cgroups", severity: "ok", message: probe2.cgroup ? "cgroup v2" : "cgroup version unknown" });
  else if (caps.cgroupV1Refused && !def.spec.kubernetes.allowCgroupV1)
    f.push({ check: "cgroups", severity: "error", message: `cgroup v1 (${probe2.cgroup}): the kubelet ${caps.version} refuses to start on it`, hint: `${move}, or set spec.kubernetes.allowCgroupV1: true to run on cgroup v1 anyway (deprecated upstream, to be removed)` });
  else
    f.push({
      check: "cgroups",
      severity: "warning",
      message: `cgroup v1 (${probe2.cgroup}) is deprecated${caps.cgroupV1Refused ? "; the kubelet runs on it because spec.kubernetes.allowCgroupV1 is set" : ""}`,
      hint: `plan the move: ${move}`
    });
  if (caps.criRuntime) {
    const systemd = probe2.init === "systemd";
    const driver = def.spec.runtime.cgroupDriver;
    if (driver === "systemd" && probe2.init && !systemd)
      f.push({ check: "cgroup-driver", severity: "error", message: `cgroupDriver systemd, but this host's init is ${probe2.init}, not systemd`, hint: "set spec.runtime.cgroupDriver: cgroupfs: without systemd as init nothing can manage systemd cgroups" });
    else if (driver === "cgroupfs" && systemd)
      f.push({ check: "cgroup-driver", severity: "warning", message: "cgroupDriver cgroupfs on a systemd host: two managers of one cgroup tree", hint: "set spec.runtime.cgroupDriver: systemd (what the kubelet and containerd recommend on systemd hosts)" });
    else f.push({ check: "cgroup-driver", severity: "ok", message: `cgroupDriver ${driver} matches the init (${probe2.init || "unknown"})` });
  }
  return f;
}
function runtimeFindings(probe2, caps, def) {
  const f = [];
  const min = minimumContainerd(caps.minor);
  for (const m of ["overlay", "br_netfilter"])
    if (!probe2.modules[m])
      f.push({ check: `module-${m}`, severity: "error", message: `kernel module ${m} is not available`, hint: `install the kernel's extra modules (linux-modules-extra) or build ${m} in: ${m === "overlay" ? "containerd stores images on overlayfs" : "bridged pod traffic must pass iptables for Services to work"}` });
  if (probe2.modules.overlay && probe2.modules.br_netfilter) f.push({ check: "modules", severity: "ok", message: "overlay and br_netfilter are available" });
  const off = [probe2.ipForward !== "1" ? "net.ipv4.ip_forward" : "", probe2.bridgeNf !== "1" ? "net.bridge.bridge-nf-call-iptables" : ""].filter(Boolean);
  f.push({ check: "sysctls", severity: "ok", message: off.length ? `${off.join(" and ")} off now; the runtime phase sets ${off.length > 1 ? "them" : "it"} to 1 and persists ${off.length > 1 ? "them" : "it"}` : "forwarding and bridged iptables are on" });
  if (probe2.conntrackMax < CONNTRACK_MIN)
    f.push({ check: "conntrack", severity: "warning", message: `nf_conntrack_max is ${probe2.conntrackMax}; busy nodes need ${CONNTRACK_MIN} or more`, hint: `set net.netfilter.nf_conntrack_max = ${CONNTRACK_MIN} (or more) in /etc/sysctl.d and apply it: kube-proxy does not change it` });
  if (probe2.docker) f.push({ check: "docker", severity: "warning", message: "Docker is installed: its containerd may share the host with the kubelet's", hint: "a node should run one container runtime; remove Docker or make sure its containerd is the one the kubelet uses" });
  const own = probe2.containerd?.path === "/usr/local/bin/containerd";
  if (def.spec.runtime.source === "mirror") {
    if (probe2.containerd && !own)
      f.push({ check: "runtime", severity: "error", message: `containerd ${probe2.containerd.version} is installed at ${probe2.containerd.path}; Bootdeck installs its own (${runtimeVersions.containerd}) in /usr/local/bin`, hint: "remove the packaged containerd (apt-get remove containerd) or set spec.runtime.source: packages to use it" });
    else f.push({ check: "runtime", severity: "ok", message: `containerd ${runtimeVersions.containerd} from the mirror${probe2.containerd ? ` (${probe2.containerd.version} installed now)` : ""}` });
  } else {
    const version = probe2.containerd?.version || probe2.containerdCandidate;
    if (!version)
      f.push({ check: "runtime", severity: "error", message: "no containerd installed, and the host's package manager offers none", hint: "enable a repository that has containerd, or set spec.runtime.source: mirror" });
    else if (!versionAtLeast(version, min))
      f.push({ check: "runtime", severity: "error", message: `containerd ${version} ${probe2.containerd ? "is installed" : "is what the host's packages offer"}; the kubelet ${caps.version} needs ${min} or newer`, hint: `set spec.runtime.source: mirror (installs containerd ${runtimeVersions.containerd}), or enable a repository with containerd ${min}+` });
    else f.push({ check: "runtime", severity: "ok", message: `containerd ${version} ${probe2.containerd ? "installed" : "from the host's packages"}` });
  }
  return f;
}
function evaluateCluster(hosts) {
  const f = [];
  const offsets = hosts.filter((h) => Number.isFinite(h.facts.clockOffsetS));
  if (offsets.length > 1) {
    const min = offsets.reduce((a, b) => b.facts.clockOffsetS < a.facts.clockOffsetS ? b : a);
    const max = offsets.reduce((a, b) => b.facts.clockOffsetS > a.facts.clockOffsetS ? b : a);
    const skew = max.facts.clockOffsetS - min.facts.clockOffsetS;
    if (skew >= 1)
      f.push({ check: "clock-skew", severity: "error", message: `clocks differ by ${skew.toFixed(1)} s (${max.name} ahead of ${min.name})`, hint: "enable NTP (systemd-timesyncd or chrony) on every host: etcd needs clocks within a second" });
    else f.push({ check: "clock-skew", severity: "ok", message: `clocks agree within ${skew.toFixed(2)} s` });
  }
  const byHostname = /* @__PURE__ */ new Map();
  for (const h of hosts) if (h.facts.hostname) byHostname.set(h.facts.hostname, [...byHostname.get(h.facts.hostname) ?? [], h.name]);
  for (const [hostname2, names] of byHostname)
    if (names.length > 1)
      f.push({ check: "hostnames", severity: "error", message: `${names.join(", ")} all report the hostname "${hostname2}"`, hint: "node names come from hostnames and must be unique: set one with hostnamectl" });
  return f;
}
var PREFLIGHT_SCRIPT, kubeletHostPackages, packagePairs, CONNTRACK_MIN;
var init_preflight = __esm({
  "lib/engine/actions/preflight.ts"() {
    "use strict";
    init_runtime_versions();
    PREFLIGHT_SCRIPT = `echo "swapKb=$(awk 'NR > 1 {s += $3} END {print s + 0}' /proc/swaps 2>/dev/null)"
echo "ipForward=$(cat /proc/sys/net/ipv4/ip_forward 2>/dev/null)"
echo "bridgeNf=$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)"
echo "conntrackMax=$(cat /proc/sys/net/netfilter/nf_conntrack_max 2>/dev/null)"
echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"
echo "init=$(cat /proc/1/comm 2>/dev/null)"
echo "arch=$(uname -m)"
grep -qw overlay /proc/filesystems 2>/dev/null && echo "module=overlay yes"
{ [ -e /proc/sys/net/bridge ] || modinfo br_netfilter >/dev/null 2>&1; } && echo "module=br_netfilter yes"
if command -v containerd >/dev/null 2>&1; then echo "containerd=$(command -v containerd) $(containerd --version 2>/dev/null | awk '{print $3}')"; fi
[ -S /run/containerd/containerd.sock ] && echo "runtimeSocket=/run/containerd/containerd.sock"
[ -S /var/run/docker.sock ] && echo "docker=yes"
if command -v apt-cache >/dev/null 2>&1; then echo "containerdCandidate=$(apt-cache policy containerd 2>/dev/null | awk '/Candidate:/ {print $2}')"
elif command -v dnf >/dev/null 2>&1; then echo "containerdCandidate=$(dnf -q info containerd 2>/dev/null | awk '/^Version/ {print $3; exit}')"; fi
for c in iptables ip socat nsenter mount ebtables ethtool conntrack curl; do
  if command -v "$c" >/dev/null 2>&1; then echo "cmd=$c yes"; else echo "cmd=$c no"; fi
done
for m in apt-get dnf; do command -v "$m" >/dev/null 2>&1 && echo "pkgManager=$m"; done
ss -ltnH 2>/dev/null | awk '{print "listen=" $4}'
df -Pk / 2>/dev/null | awk 'NR > 1 {print "diskFreeKb=" $4}'`;
    kubeletHostPackages = {
      iptables: "iptables",
      ip: "iproute2",
      socat: "socat",
      nsenter: "util-linux",
      mount: "mount",
      ebtables: "ebtables",
      ethtool: "ethtool",
      conntrack: "conntrack",
      // Bootdeck's own scripts download with it and the API server checkpoint probes with it.
      curl: "curl"
    };
    packagePairs = () => Object.entries(kubeletHostPackages).map(([cmd, pkg]) => `${cmd}=${pkg}`);
    CONNTRACK_MIN = 131072;
  }
});

// lib/engine/host-files.ts
function kubeletFiles(caps, host3) {
  const files = [
    { asset: "kubelet/kubelet.service", path: KUBELET_PATHS.unit, mode: PUBLIC },
    { asset: "kubelet/10-bootdeck.conf", path: KUBELET_PATHS.dropIn, mode: PUBLIC },
    { asset: `kubelet/hosts/${host3.name}.env`, path: KUBELET_PATHS.env, mode: PUBLIC },
    { asset: "tls/ca.crt", path: KUBELET_PATHS.clientCa, mode: PUBLIC }
  ];
  if (caps.kubeletConfigFile) files.push({ asset: `kubelet/config-${host3.role}.yaml`, path: KUBELET_PATHS.config, mode: PUBLIC });
  const kubeconfigPath = caps.bootstrapTokens ? KUBELET_PATHS.kubeconfig : KUBELET_PATHS.legacyKubeconfig;
  if (host3.role === "master") files.push({ asset: "auth/kubeconfig", path: kubeconfigPath, mode: SECRET });
  else files.push({ asset: "auth/kubeconfig-kubelet", path: caps.bootstrapTokens ? KUBELET_PATHS.bootstrapKubeconfig : kubeconfigPath, mode: SECRET });
  if (host3.role === "master") {
    for (const [asset, path22] of Object.entries(etcdMemberFiles(host3.name))) files.push({ asset, path: path22, mode: SECRET });
    files.push({ asset: `etcd/etcd-${host3.name}.yaml`, path: `${KUBELET_PATHS.staticPods}/etcd.yaml`, mode: PUBLIC });
  }
  return files;
}
function controlPlaneFiles(assetPaths) {
  const secrets = Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${BOOTSTRAP_SECRETS_HOST_DIR}/${rel}`, mode: SECRET }));
  const manifests = bootstrapManifestAssets(assetPaths).map((asset) => ({ asset, path: `${KUBELET_PATHS.staticPods}/${asset.slice(asset.lastIndexOf("/") + 1)}`, mode: PUBLIC }));
  return [...secrets, ...manifests];
}
function bootstrapLeftovers(assetPaths) {
  return [...bootstrapManifestAssets(assetPaths).map((a) => `${KUBELET_PATHS.staticPods}/${a.slice(a.lastIndexOf("/") + 1)}`), BOOTSTRAP_SECRETS_HOST_DIR];
}
function missingAssets(needed, available) {
  return [...new Set(needed.map((f) => f.asset).filter((a) => !available.has(a)))];
}
function binaryDownloads(def) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const base = `${def.spec.binaries.baseUrl.replace(/\/+$/, "")}/${def.spec.kubernetes.version}/bin/linux/${ARCH}`;
  const file = (name, dest, pinned) => ({
    name,
    url: `${base}/${name}`,
    sha256: pinned?.sha256 ?? null,
    sumsUrl: `${base}/${name}.sha256`,
    dest,
    unpack: "file"
  });
  const { kubelet, kubectl } = def.spec.binaries;
  return [caps.hyperkube ? file("hyperkube", "/usr/bin/hyperkube", kubelet) : file("kubelet", "/usr/local/bin/kubelet", kubelet), file("kubectl", "/usr/local/bin/kubectl", kubectl)];
}
function runtimeDownloads(def) {
  const base = def.spec.runtime.mirrorUrl.replace(/\/+$/, "");
  const release = (repo, tag, file, sums) => ({ url: `${base}/${repo}/releases/download/${tag}/${file}`, sumsUrl: `${base}/${repo}/releases/download/${tag}/${sums}` });
  const v = runtimeVersions;
  const containerdFile = `containerd-${v.containerd}-linux-${ARCH}.tar.gz`;
  const crictlFile = `crictl-${v.crictl}-linux-${ARCH}.tar.gz`;
  const cniFile = `cni-plugins-linux-${ARCH}-${v.cniPlugins}.tgz`;
  const fromMirror = def.spec.runtime.source === "mirror" ? [
    { name: "containerd", ...release("containerd/containerd", `v${v.containerd}`, containerdFile, `${containerdFile}.sha256sum`), sha256: null, dest: "/usr/local", unpack: "tar" },
    { name: "runc", ...release("opencontainers/runc", `v${v.runc}`, `runc.${ARCH}`, "runc.sha256sum"), sha256: null, dest: "/usr/local/sbin/runc", unpack: "file" }
  ] : [];
  return [
    ...fromMirror,
    { name: "crictl", ...release("kubernetes-sigs/cri-tools", v.crictl, crictlFile, `${crictlFile}.sha256`), sha256: null, dest: "/usr/local/bin", unpack: "tar" },
    { name: "cni-plugins", ...release("containernetworking/plugins", v.cniPlugins, cniFile, `${cniFile}.sha256`), sha256: null, dest: RUNTIME_PATHS.cniBin, unpack: "tar" }
  ];
}
function checkpointFiles(caps) {
  if (caps.checkpoint !== "host") return [];
  return [
    { asset: "checkpoint/kube-apiserver.yaml", path: CHECKPOINT_PATHS.manifest, mode: PUBLIC },
    { asset: "checkpoint/bootdeck-checkpoint", path: CHECKPOINT_PATHS.script, mode: 493 },
    { asset: "checkpoint/bootdeck-checkpoint.service", path: CHECKPOINT_PATHS.unit, mode: PUBLIC },
    ...Object.entries(checkpointSecretFiles({ caps })).map(([asset, path22]) => ({ asset, path: path22, mode: SECRET }))
  ];
}
function runtimeFiles(def, assetPaths) {
  const has = new Set(assetPaths);
  const registry = def.spec.images.registry;
  const files = [
    { asset: "runtime/containerd-config.toml", path: RUNTIME_PATHS.config, mode: PUBLIC },
    { asset: "runtime/crictl.yaml", path: RUNTIME_PATHS.crictl, mode: PUBLIC },
    { asset: "runtime/modules.conf", path: RUNTIME_PATHS.modules, mode: PUBLIC },
    { asset: "runtime/sysctl.conf", path: RUNTIME_PATHS.sysctl, mode: PUBLIC }
  ];
  if (def.spec.runtime.source === "mirror") files.push({ asset: "runtime/containerd.service", path: RUNTIME_PATHS.unit, mode: PUBLIC });
  if (registry) {
    const dir = `${RUNTIME_PATHS.certsD}/${registryHost(registry)}`;
    files.push({ asset: "runtime/registry-hosts.toml", path: `${dir}/hosts.toml`, mode: PUBLIC });
    if (has.has("runtime/registry-ca.crt") || def.spec.images.ca) files.push({ asset: "runtime/registry-ca.crt", path: `${dir}/ca.crt`, mode: PUBLIC });
  }
  return files;
}
function resetPaths(def, host3, assetPaths) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const paths = /* @__PURE__ */ new Set([
    ...kubeletFiles(caps, host3).map((f) => f.path),
    ...bootstrapLeftovers(assetPaths),
    "/etc/systemd/system/multi-user.target.wants/kubelet.service",
    "/var/lib/kubelet",
    "/etc/kubernetes",
    "/etc/cni/net.d",
    KUBELET_STAMP_FILE,
    ...host3.role === "master" ? ["/var/lib/etcd"] : [],
    ...binaryDownloads(def).map(downloadLeftover)
  ]);
  if (caps.criRuntime)
    for (const p2 of [
      ...runtimeFiles(def, assetPaths).map((f) => f.path),
      ...runtimeDownloads(def).map(downloadLeftover),
      RUNTIME_PATHS.confD,
      RUNTIME_PATHS.certsD,
      "/var/lib/containerd",
      "/run/containerd",
      "/var/lib/cni",
      "/run/flannel",
      "/etc/systemd/system/multi-user.target.wants/containerd.service",
      RUNTIME_STAMP_FILE
    ])
      paths.add(p2);
  if (caps.criRuntime && def.spec.runtime.source === "mirror") paths.add("/etc/containerd");
  if (host3.role === "master" && provisionsVip(def))
    for (const p2 of [ENDPOINT_PATHS.config, ENDPOINT_PATHS.unit, "/etc/bootdeck", "/etc/systemd/system/multi-user.target.wants/bootdeck-keepalived.service"]) paths.add(p2);
  if (host3.role === "master")
    for (const p2 of [...checkpointFiles(caps).map((f) => f.path), CHECKPOINT_PATHS.dir, CHECKPOINT_PATHS.secrets, CHECKPOINT_PATHS.active, "/etc/systemd/system/multi-user.target.wants/bootdeck-checkpoint.service", CHECKPOINT_STAMP_FILE]) paths.add(p2);
  return [...paths].sort();
}
function staticControlPlaneFiles(assetPaths) {
  const secrets = Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${STATIC_SECRETS_HOST_DIR}/${rel}`, mode: SECRET }));
  const manifests = assetPaths.filter((p2) => p2.startsWith("static-manifests/")).sort().map((asset) => ({ asset, path: `${KUBELET_PATHS.staticPods}/${asset.slice(asset.lastIndexOf("/") + 1)}`, mode: PUBLIC }));
  return [...secrets, ...manifests];
}
var PUBLIC, SECRET, bootstrapManifestAssets, ARCH, downloadArgs, downloadLeftover;
var init_host_files = __esm({
  "lib/engine/host-files.ts"() {
    "use strict";
    init_capabilities();
    init_render();
    init_context();
    init_runtime();
    init_checkpoint();
    init_runtime_versions();
    init_host_scripts();
    init_endpoint();
    PUBLIC = 420;
    SECRET = 384;
    bootstrapManifestAssets = (assetPaths) => assetPaths.filter((p2) => p2.startsWith("bootstrap-manifests/")).sort();
    ARCH = "amd64";
    downloadArgs = (d) => [d.url, d.sha256 ?? "", d.sumsUrl, d.dest, d.unpack];
    downloadLeftover = (d) => d.unpack === "file" ? d.dest : `${d.dest}/.bootdeck-${d.url.slice(d.url.lastIndexOf("/") + 1)}.sha256`;
  }
});

// lib/engine/actions/day2-scripts.ts
var LOCK2, ROLLBACK_DIR, STAGE_DIR, ETCD_SCRIPT, STOP_NODE_SCRIPT, ENDPOINT_START_SCRIPT, PULL_IMAGES_SCRIPT, KUBELET_SAVE_SCRIPT, KUBELET_ROLLBACK_SCRIPT, UPGRADE_PREFLIGHT_SCRIPT;
var init_day2_scripts = __esm({
  "lib/engine/actions/day2-scripts.ts"() {
    "use strict";
    init_host_scripts();
    init_endpoint();
    LOCK2 = `lock=${HOST_LOCK_FILE}
mkdir -p /var/lib/bootdeck
holder=$(cat "$lock" 2>/dev/null || true)
if [ -n "$holder" ] && [ "$holder" != "$1" ] && [ "$holder" != "$2" ]; then
  echo "bootdeck-locked-by $holder" >&2
  exit ${LOCKED_EXIT}
fi
[ "$holder" = "$1" ] || echo "$1" > "$lock"
shift 2
`;
    ROLLBACK_DIR = "/var/lib/bootdeck/rollback";
    STAGE_DIR = "/var/lib/bootdeck/stage";
    ETCD_SCRIPT = `set -u
act=$1; shift
c=$(crictl ps -q --state running --label io.kubernetes.pod.namespace=kube-system --label io.kubernetes.container.name=etcd 2>/dev/null | head -n 1)
[ -n "$c" ] || { echo "no running etcd container on $(hostname)" >&2; exit 3; }
# etcdctl's own retry log lines (JSON) are dropped; its errors stay.
ctl() {
  crictl exec "$c" etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/etcd/ca.crt --cert=/etc/kubernetes/etcd/server.crt --key=/etc/kubernetes/etcd/server.key --dial-timeout=3s --command-timeout=8s "$@" 2>/tmp/bootdeck-etcdctl.$$
  rc=$?; grep -v '^{"level"' /tmp/bootdeck-etcdctl.$$ >&2; rm -f /tmp/bootdeck-etcdctl.$$; return $rc
}
section() {
  name=$1; shift; echo "--- $name"
  err=$( { "$@" > /tmp/bootdeck-etcd.$$; } 2>&1 ); cat /tmp/bootdeck-etcd.$$; echo; rm -f /tmp/bootdeck-etcd.$$
  [ -z "$err" ] || printf '%s\\n' "$err" | sed 's/^/error: /'
}
member() { ctl member list -w simple | awk -F', ' -v u="$1" '{ n = split($4, p, ","); for (i = 1; i <= n; i++) if (p[i] == u) { print $1, $6; exit } }'; }
case "$act" in
  status)
    section members ctl member list -w json
    section status ctl endpoint status --cluster -w json
    section health ctl endpoint health --cluster -w json ;;
  add-learner)
    m=$(member "$2") || exit 1
    if [ -n "$m" ]; then echo "bootdeck-etcd present $m"; exit 0; fi
    ctl member add "$1" --peer-urls="$2" --learner >/dev/null && echo "bootdeck-etcd added $1 as a learner" ;;
  promote)
    m=$(member "$1") || exit 1
    [ -n "$m" ] || { echo "no etcd member has the peer URL $1" >&2; exit 1; }
    set -- $m
    if [ "$2" = false ]; then echo "bootdeck-etcd voting $1"; exit 0; fi
    ctl member promote "$1" >/dev/null && echo "bootdeck-etcd promoted $1" ;;
  remove)
    m=$(member "$1") || exit 1
    if [ -z "$m" ]; then echo "bootdeck-etcd absent $1"; exit 0; fi
    set -- $m
    ctl member remove "$1" >/dev/null && echo "bootdeck-etcd removed $1" ;;
  *) echo "unknown etcd action $act" >&2; exit 2 ;;
esac`;
    STOP_NODE_SCRIPT = `${LOCK2}systemctl stop ${ENDPOINT_UNIT} 2>/dev/null || true
systemctl disable ${ENDPOINT_UNIT} 2>/dev/null || true
systemctl stop kubelet 2>/dev/null || true
systemctl disable kubelet 2>/dev/null || true
echo "bootdeck-stopped kubelet$(systemctl is-active --quiet kubelet && echo ' (still active!)')"
if systemctl is-active --quiet kubelet; then exit 1; fi`;
    ENDPOINT_START_SCRIPT = `${LOCK2}stamp=/var/lib/bootdeck/keepalived.stamp
sum=$(cat "$@" | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable ${ENDPOINT_UNIT} >/dev/null 2>&1 || systemctl enable ${ENDPOINT_UNIT}
if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ] || ! systemctl is-active --quiet ${ENDPOINT_UNIT}; then systemctl restart ${ENDPOINT_UNIT}; echo "$sum" > "$stamp"; fi
before=$(systemctl show -p NRestarts --value ${ENDPOINT_UNIT} 2>/dev/null || echo 0)
sleep 2
after=$(systemctl show -p NRestarts --value ${ENDPOINT_UNIT} 2>/dev/null || echo 0)
if ! systemctl is-active --quiet ${ENDPOINT_UNIT} || [ "\${after:-0}" != "\${before:-0}" ]; then
  echo "keepalived is not running steadily; its journal:" >&2
  journalctl -u ${ENDPOINT_UNIT} -n 30 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1
fi
echo "bootdeck-endpoint $(keepalived --version 2>&1 | head -n 1) active"`;
    PULL_IMAGES_SCRIPT = `for img in "$@"; do
  crictl pull "$img" >/dev/null 2>/tmp/bootdeck-pull.$$ || { echo "pulling $img failed: $(tail -n 3 /tmp/bootdeck-pull.$$)" >&2; rm -f /tmp/bootdeck-pull.$$; exit 1; }
  echo "pulled $img"
done
rm -f /tmp/bootdeck-pull.$$`;
    KUBELET_SAVE_SCRIPT = `${LOCK2}bin=$1; new=$2; shift 2
if cmp -s "$bin" "$new"; then echo "bootdeck-rollback kept (the new kubelet is installed already)"; exit 0; fi
rm -rf ${ROLLBACK_DIR}.new && mkdir -p ${ROLLBACK_DIR}.new/files
cp -a "$bin" ${ROLLBACK_DIR}.new/kubelet
for f in "$@"; do
  if [ -e "$f" ]; then mkdir -p "${ROLLBACK_DIR}.new/files$(dirname "$f")" && cp -a "$f" "${ROLLBACK_DIR}.new/files$f"; else echo "$f" >> ${ROLLBACK_DIR}.new/absent; fi
done
sha256sum "$bin" | cut -d' ' -f1 > ${ROLLBACK_DIR}.new/sha256
rm -rf ${ROLLBACK_DIR} && mv ${ROLLBACK_DIR}.new ${ROLLBACK_DIR}
echo "bootdeck-rollback saved $(cat ${ROLLBACK_DIR}/sha256)"`;
    KUBELET_ROLLBACK_SCRIPT = `${LOCK2}bin=$1
[ -f ${ROLLBACK_DIR}/kubelet ] || { echo "nothing to roll back to: ${ROLLBACK_DIR} is empty" >&2; exit 1; }
cp -a ${ROLLBACK_DIR}/kubelet "$bin.bootdeck-rollback" && mv -f "$bin.bootdeck-rollback" "$bin"
( cd ${ROLLBACK_DIR}/files && find . -type f ) | while read -r f; do p=\${f#.}; mkdir -p "$(dirname "$p")"; cp -a "${ROLLBACK_DIR}/files$p" "$p"; done
[ -f ${ROLLBACK_DIR}/absent ] && while read -r f; do rm -f "$f"; done < ${ROLLBACK_DIR}/absent
systemctl daemon-reload
systemctl restart kubelet
echo "bootdeck-rolled-back to $(cat ${ROLLBACK_DIR}/sha256)"`;
    UPGRADE_PREFLIGHT_SCRIPT = `fetch_head() { if command -v curl >/dev/null 2>&1; then curl -fsSI --max-time 20 -o /dev/null "$1"; else wget -q --spider -T 20 "$1"; fi; }
fetch_head "$1" && echo "binary=ok" || echo "binary=missing"
fetch_head "$2" && echo "sums=ok" || echo "sums=missing"
echo "kubelet=$( /usr/local/bin/kubelet --version 2>/dev/null | awk '{print $2}' )"
echo "free_kb=$(df -Pk /usr/local/bin | awk 'NR == 2 {print $4}')"
echo "stage_free_kb=$(mkdir -p ${STAGE_DIR} && df -Pk ${STAGE_DIR} | awk 'NR == 2 {print $4}')"
echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"`;
  }
});

// lib/engine/plans-endpoint.ts
function endpointFiles(def) {
  if (!provisionsVip(def)) return [];
  return [
    { asset: "endpoint/keepalived.conf", path: ENDPOINT_PATHS.config, mode: 420 },
    { asset: "endpoint/bootdeck-keepalived.service", path: ENDPOINT_PATHS.unit, mode: 420 }
  ];
}
function endpointExecs(runId, files) {
  return [
    { id: "package", argv: shellScript(PACKAGES_SCRIPT, [runId, "", KEEPALIVED_PACKAGE], "bootdeck"), when: "always" },
    { id: "start", argv: shellScript(ENDPOINT_START_SCRIPT, [runId, "", ...files.map((f) => f.path)], "bootdeck"), when: "always" }
  ];
}
function endpointStep(def, runId, host3, assets) {
  const files = endpointFiles(def).map((f) => {
    const a = assets.get(f.asset);
    if (!a) throw new Error(`asset ${f.asset} is missing: render the assets again`);
    return { path: f.path, mode: f.mode, sha256: a.sha256, size: a.size, asset: f.asset };
  });
  const exec3 = endpointExecs(runId, files);
  return {
    key: `endpoint/${host3.name}`,
    phase: "endpoint",
    action: "endpoint",
    title: `API address on ${host3.name}`,
    host: host3.name,
    files,
    exec: exec3,
    commands: exec3.map((e) => shellCommand(e.argv)),
    dependsOn: [],
    timeoutMs: 15 * 6e4,
    retries: 2
  };
}
function endpointPhase(def, runId, hosts, assets) {
  const masters = hosts.filter((h) => h.role === "master");
  if (!provisionsVip(def) || masters.length === 0) return [];
  return [
    {
      id: "endpoint",
      title: `API address ${def.spec.apiEndpoint.host}: keepalived on the masters (from the hosts' packages), held where an API server answers`,
      steps: masters.map((h) => endpointStep(def, runId, h, assets))
    }
  ];
}
var KEEPALIVED_PACKAGE;
var init_plans_endpoint = __esm({
  "lib/engine/plans-endpoint.ts"() {
    "use strict";
    init_endpoint();
    init_quote();
    init_day2_scripts();
    init_host_scripts();
    KEEPALIVED_PACKAGE = "keepalived=keepalived";
  }
});

// lib/engine/plans.ts
function hostPhases(def, only) {
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h)).filter((h) => !only || only.has(h.name));
  return [
    {
      id: "facts",
      title: "Connect, pin host keys, gather facts",
      steps: hosts.map((h) => ({
        key: `facts/${h.name}`,
        phase: "facts",
        action: "facts",
        title: `Facts of ${h.name}`,
        host: h.name,
        files: [],
        ...sends([exec("facts", shellScript(FACTS_SCRIPT, [], "bootdeck-facts"))]),
        dependsOn: [],
        timeoutMs: 6e4
      }))
    },
    {
      id: "preflight",
      title: "Preflight checks (nothing is changed)",
      steps: [
        ...hosts.map((h) => ({
          key: `preflight/${h.name}`,
          phase: "preflight",
          action: "preflight",
          title: `Preflight on ${h.name}`,
          host: h.name,
          files: [],
          ...sends([exec("preflight", shellScript(PREFLIGHT_SCRIPT, [], "bootdeck-preflight"))]),
          dependsOn: [`facts/${h.name}`],
          timeoutMs: 6e4
        })),
        {
          key: "preflight/cluster",
          phase: "preflight",
          action: "preflight-cluster",
          title: "Clock skew and unique host names across hosts",
          host: null,
          files: [],
          commands: [],
          exec: [],
          dependsOn: hosts.map((h) => `facts/${h.name}`),
          timeoutMs: 1e4
        }
      ]
    }
  ];
}
function buildCheckPlan(def) {
  return { runType: "check", phases: hostPhases(def) };
}
function sends(execs, describe = []) {
  return { exec: execs, commands: [...execs.map((e) => asSent(e.argv)), ...describe] };
}
function step({ exec: execs = [], describe = [], ...s2 }) {
  return { files: [], dependsOn: [], retries: 0, ...s2, ...sends(execs, describe) };
}
function hostLock(runId, hosts) {
  return { file: HOST_LOCK_FILE, release: releaseLockArgv(runId), hosts: [...new Set(hosts)] };
}
function filesOf(files, assets) {
  return files.map((f) => {
    const a = assets.get(f.asset);
    if (!a) throw new PlanError(`asset ${f.asset} is missing`);
    return { path: f.path, mode: f.mode, sha256: a.sha256, size: a.size, asset: f.asset };
  });
}
function installPhases(def, runId, hosts, assets) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const pairs = packagePairs();
  return [
    {
      id: "packages",
      title: "Install the kubelet's host packages that are missing",
      steps: hosts.map((h) => step({ key: `packages/${h.name}`, phase: "packages", action: "packages", title: `Host packages on ${h.name}`, host: h.name, exec: [exec("packages", locked(runId, PACKAGES_SCRIPT, pairs))], timeoutMs: 15 * MIN, retries: 2 }))
    },
    {
      id: "binaries",
      title: "Install kubelet and kubectl from the binary mirror (checksums verified)",
      steps: hosts.map(
        (h) => step({ key: `binaries/${h.name}`, phase: "binaries", action: "binaries", title: `Binaries on ${h.name}`, host: h.name, exec: binaryDownloads(def).map((b) => exec(`download ${b.dest}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(b)))), timeoutMs: 10 * MIN, retries: 2 })
      )
    },
    ...caps.criRuntime ? [runtimePhase(def, runId, hosts, assets)] : [],
    ...endpointPhase(def, runId, hosts, assets),
    {
      id: "kubelet",
      title: "Push the kubelet's unit, settings and credentials (etcd on masters); start it and check it keeps running",
      steps: hosts.map((h) => {
        const files = kubeletFiles(caps, { name: h.name, role: h.role });
        return step({
          key: `kubelet/${h.name}`,
          phase: "kubelet",
          action: "kubelet",
          title: `Kubelet on ${h.name}`,
          host: h.name,
          files: filesOf(files, assets),
          exec: [exec("start", locked(runId, KUBELET_START_SCRIPT, [String(KUBELET_WATCH_S), ...files.map((f) => f.path)])), journal()],
          timeoutMs: 3 * MIN
        });
      })
    }
  ];
}
function runtimePhase(def, runId, hosts, assets) {
  const auth = def.spec.images.auth;
  const source = def.spec.runtime.source === "packages" ? `${RUNTIME_PACKAGES.join(" and ")} from the host's packages` : "containerd and runc from the mirror";
  const files = runtimeFiles(def, [...assets.keys()]);
  const downloads = runtimeDownloads(def);
  const state3 = [...files.map((f) => f.path), ...auth ? [REGISTRY_AUTH_FILE] : [], ...downloads.map(downloadLeftover)];
  return {
    id: "runtime",
    title: `Container runtime: ${source}, crictl and the CNI plugins; configure, start and check containerd`,
    steps: hosts.map(
      (h) => step({
        key: `runtime/${h.name}`,
        phase: "runtime",
        action: "runtime",
        title: `Container runtime on ${h.name}`,
        host: h.name,
        files: [
          ...filesOf(files, assets),
          // The registry's pull credentials: written from the stored credential at run time (a secret: no checksum shown).
          ...auth ? [{ path: REGISTRY_AUTH_FILE, mode: 384, sha256: "", size: 0, credential: auth.credential }] : []
        ],
        exec: [
          ...def.spec.runtime.source === "packages" ? [exec("packages", locked(runId, RUNTIME_PACKAGES_SCRIPT, RUNTIME_PACKAGES))] : [],
          ...downloads.map((d) => exec(`download ${d.name}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(d)))),
          exec("start", locked(runId, RUNTIME_START_SCRIPT, state3))
        ],
        describe: auth ? [`${REGISTRY_AUTH_FILE} (0600): pull credentials for ${def.spec.images.registry} as ${auth.username}, password from credential "${auth.credential}"`] : [],
        timeoutMs: 10 * MIN,
        retries: 2
      })
    )
  };
}
function checkpointEnable(runId, caps, host3) {
  return exec("checkpoint", locked(runId, CHECKPOINT_ENABLE_SCRIPT, checkpointFiles(caps).map((f) => f.path)), { host: host3 });
}
function checkAssets(def, assets, hosts, withControlPlane) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const needed = hosts.flatMap((h) => kubeletFiles(caps, { name: h.name, role: h.role }));
  if (caps.criRuntime) needed.push(...runtimeFiles(def, [...assets.keys()]));
  if (hosts.some((h) => h.role === "master")) needed.push(...endpointFiles(def));
  if (withControlPlane) needed.push(...controlPlaneFiles([...assets.keys()]), ...checkpointFiles(caps), { asset: "auth/kubeconfig", path: "", mode: 0 });
  const missing = missingAssets(needed, new Set(assets.keys()));
  if (missing.length) throw new PlanError(`the latest asset set lacks ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}: it is older than the cluster definition; render the assets again`);
}
function buildBootstrapPlan(def, runId, assets) {
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = hosts.filter((h) => h.role === "master");
  const workers = hosts.filter((h) => h.role === "worker");
  const first = masters[0];
  if (!first) throw new PlanError("a bootstrap needs at least one master");
  const staticCp = isStaticControlPlane(def);
  checkAssets(def, assets, hosts, !staticCp);
  if (staticCp) checkStaticAssets(assets);
  const leftovers = bootstrapLeftovers([...assets.keys()]);
  const joinKey = (h) => `join/${h.name}`;
  const lastMaster = masters[masters.length - 1] ?? first;
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const checkpoint = caps.checkpoint === "host" && !staticCp;
  return {
    runType: "bootstrap",
    phases: [
      ...hostPhases(def),
      ...installPhases(def, runId, hosts, assets),
      {
        id: "control-plane",
        title: "Temporary control plane on the first master; wait for the API",
        steps: [
          step({
            key: `control-plane/${first.name}`,
            phase: "control-plane",
            action: "control-plane",
            title: `Bootstrap control plane on ${first.name}`,
            host: first.name,
            files: filesOf(controlPlaneFiles([...assets.keys()]), assets),
            exec: [journal()],
            describe: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 5 min)"],
            timeoutMs: 7 * MIN
          })
        ]
      },
      {
        id: "self-hosted",
        title: staticCp ? "Create the cluster's objects (Namespaces, CRDs until served, then the rest)" : "Create the self-hosted objects (Namespaces, CRDs until served, then the rest)",
        steps: [
          step({
            key: "self-hosted/cluster",
            phase: "self-hosted",
            action: "self-hosted",
            title: staticCp ? "Cluster objects (add-ons, RBAC, bootstrap token)" : "Self-hosted control plane objects",
            host: null,
            describe: [...assets.keys()].filter((p2) => p2.startsWith("manifests/")).map((p2) => `read each object of ${p2}; create it only when it is missing`).concat(["the kubelet bootstrap token's Secret is created with expiration = a day after it is applied", `label ${first.name} as master`]),
            timeoutMs: 6 * MIN
          })
        ]
      },
      staticCp ? staticPivotPhase(runId, masters, assets, leftovers) : {
        id: "pivot",
        title: "Pivot: self-hosted control plane Ready, remove the bootstrap one, check the takeover",
        steps: [
          step({
            key: "pivot/cluster",
            phase: "pivot",
            action: "pivot",
            title: "Pivot to the self-hosted control plane",
            host: null,
            exec: [
              exec("present", shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { host: first.name }),
              exec("remove", locked(runId, REMOVE_SCRIPT, leftovers), { host: first.name }),
              ...checkpoint ? [checkpointEnable(runId, caps, first.name)] : []
            ],
            // The API server's checkpoint goes to the first master with the pivot (profiles with a host checkpoint).
            files: filesOf(checkpointFiles(caps), assets).map((f) => ({ ...f, host: first.name })),
            timeoutMs: 16 * MIN
          })
        ]
      },
      {
        id: "join",
        title: "Join the masters one at a time, then the workers; set roles and taints",
        steps: [
          ...masters.map(
            (m, i) => step({
              key: joinKey(m),
              phase: "join",
              action: "join",
              title: `Join master ${m.name}`,
              host: m.name,
              dependsOn: i > 0 ? [joinKey(masters[i - 1])] : [],
              ...joinSends(m.name, i > 0 && checkpoint ? [checkpointEnable(runId, caps)] : []),
              // The first master got its checkpoint with the pivot.
              ...i > 0 && checkpoint ? { files: filesOf(checkpointFiles(caps), assets) } : {},
              timeoutMs: 12 * MIN
            })
          ),
          ...workers.map((w) => step({ key: joinKey(w), phase: "join", action: "join", title: `Join worker ${w.name}`, host: w.name, dependsOn: [joinKey(lastMaster)], ...joinSends(w.name), timeoutMs: 8 * MIN }))
        ]
      },
      {
        id: "verify",
        title: "Verify: nodes Ready, pods Running and Ready",
        steps: [
          step({
            key: "verify/cluster",
            phase: "verify",
            action: "verify",
            title: "Verify the cluster",
            host: null,
            exec: hosts.map((h) => alive(h.name)),
            describe: ["every joined node Ready with its kubelet Lease renewed after this step began; every pod Running and Ready"],
            timeoutMs: 4 * MIN
          })
        ]
      }
    ],
    lock: hostLock(runId, hosts.map((h) => h.name))
  };
}
function checkStaticAssets(assets) {
  const paths = [...assets.keys()];
  const staticFiles = staticControlPlaneFiles(paths);
  const missing = missingAssets([...controlPlaneFiles(paths), ...staticFiles, { asset: "auth/kubeconfig", path: "", mode: 0 }], new Set(paths));
  if (missing.length || !staticFiles.some((f) => f.asset.startsWith("static-manifests/")))
    throw new PlanError(`the latest asset set lacks ${missing.slice(0, 5).join(", ") || "the static control plane (static-manifests/)"}: it was rendered for another control-plane mode; render the assets again`);
}
function staticPivotPhase(runId, masters, assets, leftovers) {
  const first = masters[0];
  const staticKey = (m) => `pivot/${m.name}`;
  return {
    id: "pivot",
    title: "Pivot: the control plane as static pods on every master, Ready; remove the temporary one",
    steps: [
      ...masters.map(
        (m) => step({
          key: staticKey(m),
          phase: "pivot",
          action: "static-control-plane",
          title: `Static control plane on ${m.name}`,
          host: m.name,
          files: filesOf(staticControlPlaneFiles([...assets.keys()]), assets),
          describe: [`until kube-apiserver, kube-controller-manager and kube-scheduler of ${m.name} are Running and Ready (deadline 8 min)`],
          timeoutMs: 10 * MIN
        })
      ),
      step({
        key: "pivot/cluster",
        phase: "pivot",
        action: "pivot",
        title: "Remove the temporary control plane",
        host: null,
        dependsOn: masters.map(staticKey),
        exec: [exec("present", shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { host: first.name }), exec("remove", locked(runId, REMOVE_SCRIPT, leftovers), { host: first.name })],
        describe: ["then until the API answers without the temporary API server's pod, with a marker written before"],
        timeoutMs: 16 * MIN
      })
    ]
  };
}
function joinSends(host3, more = []) {
  return { exec: [alive(), journal(), ...more], describe: [`${host3} registered and Ready, its kubelet Lease renewed after this step began; its role's labels and taints`] };
}
function tokenPhase(def, hosts) {
  if (!hosts.some((h) => h.role === "worker") || !capabilitiesFor(def.spec.kubernetes.version).bootstrapTokens) return [];
  return [
    {
      id: "token",
      title: "The kubelet bootstrap token is valid (created again or renewed for a day when it has under 2 hours left)",
      steps: [
        step({
          key: "token/cluster",
          phase: "token",
          action: "bootstrap-token",
          title: "Kubelet bootstrap token valid",
          host: null,
          describe: ["GET the bootstrap token's Secret in kube-system; create it when missing, or PATCH its expiration to a day from now when under 2 hours are left"],
          timeoutMs: 2 * MIN
        })
      ]
    }
  ];
}
function buildJoinPlan(def, runId, assets, names) {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const first = all.find((h) => h.role === "master");
  const hosts = selectHosts(all, names);
  const masters = hosts.filter((h) => h.role === "master");
  if (masters.length)
    throw new PlanError(`${masters.map((m) => m.name).join(", ")} ${masters.length > 1 ? "are masters" : "is a master"}: adding masters to a running cluster changes etcd's membership, which this version does not do; bootstrap the cluster with all its masters`);
  if (!first) throw new PlanError("the cluster has no master to join");
  checkAssets(def, assets, hosts, false);
  return {
    runType: "join",
    phases: [
      ...hostPhases(def, new Set(hosts.map((h) => h.name))),
      ...tokenPhase(def, hosts),
      ...installPhases(def, runId, hosts, assets),
      { id: "join", title: "Join the workers; set their role", steps: hosts.map((h) => step({ key: `join/${h.name}`, phase: "join", action: "join", title: `Join worker ${h.name}`, host: h.name, ...joinSends(h.name), timeoutMs: 8 * MIN })) }
    ],
    lock: hostLock(runId, hosts.map((h) => h.name))
  };
}
function buildResetPlan(def, runId, assetPaths, names) {
  const hosts = selectHosts(def.spec.hosts.map((h) => effectiveHost(def, h)), names);
  return {
    runType: "reset",
    phases: [
      {
        id: "reset",
        title: "Stop the kubelet and its pods; remove Bootdeck's files, the kubelet's state and etcd's data",
        steps: hosts.map(
          (h) => step({
            key: `reset/${h.name}`,
            phase: "reset",
            action: "reset",
            title: `Reset ${h.name}`,
            host: h.name,
            exec: [exec("reset", locked(runId, RESET_SCRIPT, resetPaths(def, h, assetPaths)))],
            describe: assetPaths.includes("auth/kubeconfig") ? [`DELETE /api/v1/nodes/${h.name} (best effort: a cluster reset whole has no API)`] : [],
            timeoutMs: 3 * MIN
          })
        )
      }
    ],
    lock: hostLock(runId, hosts.map((h) => h.name))
  };
}
function selectHosts(all, names) {
  const unknown = names.filter((n) => !all.some((h) => h.name === n));
  if (unknown.length) throw new PlanError(`not hosts of this cluster: ${unknown.join(", ")}`);
  return all.filter((h) => names.includes(h.name));
}
var asSent, JOURNAL_LINES, KUBELET_WATCH_S, exec, journal, ALIVE_ARGV, alive, PlanError, MIN, locked;
var init_plans = __esm({
  "lib/engine/plans.ts"() {
    "use strict";
    init_capabilities();
    init_definition();
    init_derive();
    init_quote();
    init_facts();
    init_runtime();
    init_host_scripts();
    init_preflight();
    init_host_files();
    init_plans_endpoint();
    asSent = (argv) => shellCommand(argv);
    JOURNAL_LINES = 60;
    KUBELET_WATCH_S = 5;
    exec = (id, argv, opts = {}) => ({ id, argv, when: opts.when ?? "always", ...opts.host ? { host: opts.host } : {} });
    journal = (host3) => exec("journal", shellScript(JOURNAL_SCRIPT, [String(JOURNAL_LINES)], "bootdeck-journal"), { host: host3, when: "needed" });
    ALIVE_ARGV = ["true"];
    alive = (host3) => exec("alive", ALIVE_ARGV, { host: host3, when: "needed" });
    PlanError = class extends Error {
    };
    MIN = 6e4;
    locked = (runId, script, args, name = "bootdeck") => shellScript(script, [runId, ...args], name);
  }
});

// lib/engine/lease.ts
async function writeAsHolder(lease, write) {
  const events = [];
  const result = await getDb().$transaction(async (tx) => {
    const held = await tx.run.updateMany({ where: { id: lease.runId, workerId: lease.workerId, status: "running" }, data: { heartbeatAt: /* @__PURE__ */ new Date() } });
    if (held.count !== 1) throw new LeaseLost(lease.runId, lease.workerId);
    return write(tx, async (e) => {
      const stored = await appendRunEventIn(tx, { ...e, runId: lease.runId });
      events.push(stored);
      return stored;
    });
  });
  for (const e of events) publishRunEvent(e);
  return result;
}
var LeaseLost;
var init_lease = __esm({
  "lib/engine/lease.ts"() {
    "use strict";
    init_client2();
    init_events();
    LeaseLost = class extends Error {
      constructor(runId, workerId) {
        super(`worker ${workerId} no longer holds run ${runId} (another worker took it over, or it was released or finished)`);
        this.runId = runId;
        this.workerId = workerId;
        this.name = "LeaseLost";
      }
      runId;
      workerId;
    };
  }
});

// lib/engine/plan.ts
var import_zod3, plannedFile, plannedExec, plannedStep, plannedPhase, plannedLock, runPlan;
var init_plan = __esm({
  "lib/engine/plan.ts"() {
    "use strict";
    import_zod3 = require("zod");
    plannedFile = import_zod3.z.object({
      path: import_zod3.z.string(),
      mode: import_zod3.z.number().int(),
      sha256: import_zod3.z.string(),
      size: import_zod3.z.number().int(),
      asset: import_zod3.z.string().optional(),
      credential: import_zod3.z.string().optional(),
      host: import_zod3.z.string().optional()
    });
    plannedExec = import_zod3.z.object({
      id: import_zod3.z.string(),
      argv: import_zod3.z.array(import_zod3.z.string()),
      host: import_zod3.z.string().optional(),
      when: import_zod3.z.enum(["always", "needed"]).default("always")
    });
    plannedStep = import_zod3.z.object({
      /** Unique in the run: "phase/host/action". */
      key: import_zod3.z.string(),
      phase: import_zod3.z.string(),
      action: import_zod3.z.string(),
      title: import_zod3.z.string(),
      /** Host name, or null for a cluster-wide step. */
      host: import_zod3.z.string().nullable(),
      files: import_zod3.z.array(plannedFile).default([]),
      /** The command lines the step sends, as the host will see them (and, for API steps, what it asks the API). */
      commands: import_zod3.z.array(import_zod3.z.string()).default([]),
      /** What the step sends to hosts: the data the runner executes (see plannedExec). */
      exec: import_zod3.z.array(plannedExec).optional(),
      /** Steps whose failure makes this one pointless (keys); failed dependencies mark it skipped. */
      dependsOn: import_zod3.z.array(import_zod3.z.string()).default([]),
      /** Per attempt. */
      timeoutMs: import_zod3.z.number().int().positive(),
      /** Attempts after a failure, with back-off (downloads and package installs: a mirror or repository blip). */
      retries: import_zod3.z.number().int().min(0).max(5).optional(),
      /** Values the step acts with, decided when it was planned (a target version, a member's name). */
      params: import_zod3.z.record(import_zod3.z.string(), import_zod3.z.string()).optional()
    });
    plannedPhase = import_zod3.z.object({ id: import_zod3.z.string(), title: import_zod3.z.string(), steps: import_zod3.z.array(plannedStep) });
    plannedLock = import_zod3.z.object({ file: import_zod3.z.string(), release: import_zod3.z.array(import_zod3.z.string()), hosts: import_zod3.z.array(import_zod3.z.string()) });
    runPlan = import_zod3.z.object({ runType: import_zod3.z.string(), phases: import_zod3.z.array(plannedPhase), lock: plannedLock.optional() });
  }
});

// lib/engine/runs.ts
async function createRun(input) {
  const id = input.id ?? newId("run");
  const plan = runPlan.parse(input.plan);
  const hosts = await getDb().host.findMany({ where: { clusterId: input.clusterId }, select: { id: true, name: true } });
  const hostId = new Map(hosts.map((h) => [h.name, h.id]));
  let ordinal = 0;
  await getDb().$transaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({ where: { id: input.clusterId }, select: { definition: true, revision: true } });
    if (!cluster) throw notFound("Cluster");
    if (input.definition && input.definition.revision !== cluster.revision) throw conflict("The cluster was edited while the run was being planned; plan it again");
    await tx.run.create({
      data: {
        id,
        clusterId: input.clusterId,
        type: input.type,
        plan: JSON.stringify(plan),
        createdById: input.createdById,
        assetSetId: input.assetSetId,
        definition: input.definition?.json ?? cluster.definition,
        definitionRevision: input.definition?.revision ?? cluster.revision
      }
    });
    await tx.step.createMany({
      data: plan.phases.flatMap(
        (phase) => phase.steps.map((s2) => ({
          id: newId("step"),
          runId: id,
          hostId: s2.host ? hostId.get(s2.host) ?? null : null,
          phase: phase.id,
          key: s2.key,
          ordinal: ordinal++,
          title: s2.title,
          command: s2.commands.join("\n") || null
        }))
      )
    });
  });
  await appendRunEvent({ runId: id, type: "run.planned", data: { type: input.type, steps: ordinal } });
  return id;
}
async function getRunPlan(runId) {
  const run4 = await getDb().run.findUnique({ where: { id: runId }, select: { plan: true } });
  if (!run4) throw notFound("Run");
  return runPlan.parse(JSON.parse(run4.plan));
}
async function startRun({ runId }) {
  const db = getDb();
  const run4 = await db.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, definitionRevision: true } });
  if (!run4) throw notFound("Run");
  await db.$transaction(async (tx) => {
    const cluster = await tx.cluster.findUniqueOrThrow({ where: { id: run4.clusterId }, select: { revision: true } });
    if (run4.status === "planned" && cluster.revision !== run4.definitionRevision) throw conflict(staleMessage(runId));
    const locked3 = await tx.cluster.updateMany({ where: { id: run4.clusterId, revision: run4.definitionRevision ?? -1, OR: [{ activeRunId: null }, { activeRunId: runId }] }, data: { activeRunId: runId } });
    if (locked3.count === 0) {
      const c = await tx.cluster.findUnique({ where: { id: run4.clusterId }, select: { activeRunId: true } });
      throw conflict(`Another run (${c?.activeRunId}) is in progress on this cluster; wait for it or cancel it`);
    }
    const started = await tx.run.updateMany({ where: { id: runId, status: "planned", cancelRequested: false }, data: { status: "running", startedAt: /* @__PURE__ */ new Date() } });
    if (started.count === 0) throw conflict(`Run ${runId} is ${run4.status}; only a planned run can start`);
  });
  await appendRunEvent({ runId, type: "run.started" });
}
async function requestCancel({ runId, by: by2 }) {
  const db = getDb();
  const events = [];
  const result = await db.$transaction(async (tx) => {
    const planned2 = await tx.run.updateMany({
      where: { id: runId, status: "planned" },
      data: { status: "cancelled", cancelRequested: true, finishedAt: /* @__PURE__ */ new Date(), summary: JSON.stringify({ message: `cancelled before it started${by2 ? ` by ${by2}` : ""}` }) }
    });
    if (planned2.count === 1) {
      await tx.step.updateMany({ where: { runId, status: "pending" }, data: { status: "cancelled" } });
      events.push(await appendRunEventIn(tx, { runId, type: "run.finished", data: { status: "cancelled", summary: { message: "cancelled before it started" }, by: by2 ?? null } }));
      return "cancelled";
    }
    const running = await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
    if (running.count === 0) throw conflict("Only a planned or running run can be cancelled");
    events.push(await appendRunEventIn(tx, { runId, type: "run.cancel-requested", data: { by: by2 ?? null } }));
    return "requested";
  });
  for (const e of events) publishRunEvent(e);
  return result;
}
function localWorkerId(pid = process.pid) {
  return `w_${(0, import_node_os.hostname)()}_${pid}`;
}
function isLocalWorkerGone(workerId) {
  const m = /^w_(.+)_(\d+)$/.exec(workerId);
  if (!m || m[1] !== (0, import_node_os.hostname)()) return false;
  const pid = Number(m[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === "ESRCH";
  }
}
async function claimRun({ runId, workerId, staleMs }) {
  const db = getDb();
  const stale = new Date(Date.now() - staleMs);
  const r2 = await db.run.updateMany({
    where: { id: runId, status: "running", OR: [{ workerId: null }, { workerId }, { heartbeatAt: null }, { heartbeatAt: { lt: stale } }] },
    data: { workerId, heartbeatAt: /* @__PURE__ */ new Date() }
  });
  if (r2.count === 1) return true;
  const holder7 = await db.run.findUnique({ where: { id: runId }, select: { workerId: true, status: true } });
  if (holder7?.status !== "running" || !holder7.workerId || !isLocalWorkerGone(holder7.workerId)) return false;
  const taken = await db.run.updateMany({ where: { id: runId, status: "running", workerId: holder7.workerId }, data: { workerId, heartbeatAt: /* @__PURE__ */ new Date() } });
  return taken.count === 1;
}
async function listResumableRuns({ workerId, staleMs }) {
  const stale = new Date(Date.now() - staleMs);
  const rows = await getDb().run.findMany({ where: { status: "running" }, select: { id: true, workerId: true, heartbeatAt: true }, orderBy: { createdAt: "asc" } });
  return rows.filter((r2) => !r2.workerId || r2.workerId === workerId || !r2.heartbeatAt || r2.heartbeatAt < stale || isLocalWorkerGone(r2.workerId)).map((r2) => r2.id);
}
async function releaseLease(lease) {
  try {
    await writeAsHolder(lease, async (tx, append) => {
      await append({ type: "run.handed-over", data: { worker: lease.workerId } });
      await tx.run.update({ where: { id: lease.runId }, data: { workerId: null, heartbeatAt: null } });
    });
    return true;
  } catch {
    return false;
  }
}
async function releaseRun({ runId, by: by2, reason }) {
  const db = getDb();
  const events = [];
  const result = await db.$transaction(async (tx) => {
    const run4 = await tx.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, workerId: true, heartbeatAt: true } });
    if (!run4) throw notFound("Run");
    if (run4.status !== "running") throw conflict(`Run ${runId} is ${run4.status}; only a running run can be released${run4.status === "planned" ? " (cancel a planned run instead)" : ""}`);
    const message = `released by ${by2}${reason ? `: ${reason}` : ""}`;
    const summary = { message, releasedBy: by2, reason: reason ?? null, worker: run4.workerId, heartbeatAt: run4.heartbeatAt?.toISOString() ?? null };
    const r2 = await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "failed", finishedAt: /* @__PURE__ */ new Date(), workerId: null, heartbeatAt: null, summary: JSON.stringify(summary) } });
    if (r2.count === 0) throw conflict("The run changed meanwhile; reload and try again");
    await tx.step.updateMany({ where: { runId, status: { in: ["running", "waiting"] } }, data: { status: "failed", error: `stopped: the run was ${message}`, finishedAt: /* @__PURE__ */ new Date() } });
    await tx.step.updateMany({ where: { runId, status: "pending" }, data: { status: "skipped", error: `not run: the run was ${message}` } });
    await tx.cluster.updateMany({ where: { id: run4.clusterId, activeRunId: runId }, data: { activeRunId: null } });
    events.push(await appendRunEventIn(tx, { runId, type: "run.released", data: { by: by2, reason: reason ?? null, worker: run4.workerId } }));
    events.push(await appendRunEventIn(tx, { runId, type: "run.finished", data: { status: "failed", summary } }));
    return { status: "failed", previousWorker: run4.workerId };
  });
  for (const e of events) publishRunEvent(e);
  return result;
}
async function acceptRunWarnings({ runId, by: by2 }) {
  await appendRunEvent({ runId, type: "run.warnings-accepted", data: { by: by2 } });
}
var import_node_os, staleMessage;
var init_runs = __esm({
  "lib/engine/runs.ts"() {
    "use strict";
    import_node_os = require("node:os");
    init_client2();
    init_errors();
    init_ids();
    init_events();
    init_lease();
    init_plan();
    staleMessage = (runId) => `The cluster was edited after run ${runId} was planned, so its plan no longer shows what would run: plan a new run`;
  }
});

// lib/engine/day2/skew.ts
function parseVersion(v) {
  const m = /^v(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : void 0;
}
function compareVersions(a, b) {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}
function upgradeRefusal(from, to) {
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (!b) return `${to} is not a version (it must look like v1.37.2)`;
  if (!a) return `the cluster's version ${from} is not one Bootdeck can read`;
  if (!findVersionProfile(to)) return `${to} is not a Kubernetes version Bootdeck supports`;
  if (a.major !== b.major) return `an upgrade stays within Kubernetes ${a.major}.x`;
  const c = compareVersions(b, a);
  if (c === 0) return `the cluster runs ${from} already`;
  if (c < 0) return `${to} is older than ${from}: Kubernetes does not support downgrades`;
  if (b.minor - a.minor > 1) return `${from} \u2192 ${to} skips ${b.minor - a.minor - 1} minor version${b.minor - a.minor > 2 ? "s" : ""}: upgrade one minor at a time (first to v${a.major}.${a.minor + 1}.x)`;
  return void 0;
}
function runningSkewProblem(input) {
  const to = parseVersion(input.to);
  const from = parseVersion(input.from);
  if (!to || !from) return `cannot read ${!to ? input.to : input.from}`;
  const servers = Object.entries(input.apiservers);
  if (servers.length === 0) return "no API server version could be read";
  for (const [name, v] of servers) {
    const p2 = parseVersion(v);
    if (!p2 || compareVersions(p2, from) < 0 || compareVersions(p2, to) > 0) return `the API server on ${name} runs ${v}, not ${input.from} or ${input.to}`;
  }
  const oldest = servers.map(([, v]) => parseVersion(v)).sort(compareVersions)[0];
  for (const [name, v] of Object.entries(input.kubelets)) {
    const p2 = parseVersion(v);
    if (!p2) return `${name}'s kubelet reports ${v}, which Bootdeck cannot read`;
    if (compareVersions(p2, oldest) > 0) return `${name}'s kubelet ${v} is newer than an API server (${fmt(oldest)}): kubelets must never be newer than the API servers`;
    if (to.minor - p2.minor > 3) return `${name}'s kubelet ${v} would be more than three minors older than ${input.to}: upgrade it first`;
  }
  return void 0;
}
var fmt;
var init_skew = __esm({
  "lib/engine/day2/skew.ts"() {
    "use strict";
    init_versions();
    fmt = (v) => `v${v.major}.${v.minor}.${v.patch}`;
  }
});

// lib/engine/day2/batches.ts
function batchCount(size2, total) {
  if (total <= 0) return 1;
  const pct = /^(\d+)%$/.exec(size2);
  const n = pct ? Math.ceil(total * Number(pct[1]) / 100) : Number(size2);
  return Math.max(1, Math.min(total, Number.isFinite(n) ? n : 1));
}
function intoBatches(items, size2) {
  const n = batchCount(size2, items.length);
  const out = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}
var import_zod4, batchSize, DEFAULT_BATCHES;
var init_batches = __esm({
  "lib/engine/day2/batches.ts"() {
    "use strict";
    import_zod4 = require("zod");
    batchSize = import_zod4.z.string().max(8).regex(/^([1-9]\d{0,3}|([1-9]\d?|100)%)$/, "must be a count such as 2 or a percentage such as 10%");
    DEFAULT_BATCHES = { masters: "1", workers: "10%" };
  }
});

// lib/engine/plans-day2.ts
function step2({ exec: execs = [], describe = [], ...s2 }) {
  const shown = execs.map((e) => `${e.host && e.host !== s2.host ? `on ${e.host}: ` : ""}${e.when === "needed" ? "(when needed) " : ""}${shellCommand(e.argv)}`);
  return { files: [], dependsOn: [], retries: 0, ...s2, exec: execs, commands: [...shown, ...describe] };
}
function filesOf2(files, assets) {
  return files.map((f) => {
    const a = assets.get(f.asset);
    if (!a) throw new PlanError(`asset ${f.asset} is missing from the asset set`);
    return { path: f.path, mode: f.mode, sha256: a.sha256, size: a.size, asset: f.asset };
  });
}
function selectHosts2(all, names) {
  const unknown = names.filter((n) => !all.some((h) => h.name === n));
  if (unknown.length) throw new PlanError(`not hosts of this cluster: ${unknown.join(", ")}`);
  return all.filter((h) => names.includes(h.name));
}
function checkpointSteps(runId, masters, caps, assets, dependsOn) {
  const files = checkpointFiles(caps);
  if (!files.length) return [];
  return masters.map(
    (m) => step2({
      key: `checkpoint/${m.name}`,
      phase: "control-plane",
      action: "push-and-run",
      title: `API server checkpoint on ${m.name}`,
      host: m.name,
      files: filesOf2(files, assets),
      exec: [exec2("enable", locked2(runId, CHECKPOINT_ENABLE_SCRIPT, ["keep"]))],
      dependsOn,
      timeoutMs: 3 * MIN2
    })
  );
}
function applyStep(key, title, files, opts) {
  return step2({
    key,
    phase: "control-plane",
    action: "apply-objects",
    title,
    host: null,
    describe: [
      ...files.map((f) => `read each object of ${f}; create it when missing, replace it when it was applied from other content`),
      opts.wait === "apiservers" ? `wait until the kube-apiserver DaemonSet has rolled out and the API server on every master is Running and Ready${opts.image ? ` with ${opts.image}` : ""}, etcd healthy` : "wait until every DaemonSet and Deployment replaced has rolled out"
    ],
    params: { files: JSON.stringify(files), wait: opts.wait, ...opts.image ? { image: opts.image } : {} },
    dependsOn: opts.dependsOn ?? [],
    timeoutMs: 15 * MIN2
  });
}
function verifyStep(params, dependsOn = []) {
  return step2({
    key: "verify/cluster",
    phase: "verify",
    action: "verify-nodes",
    title: "Verify the cluster",
    host: null,
    describe: [
      `${params.present.join(", ")} registered and Ready${params.version ? ` with kubelet ${params.version}` : ""}`,
      ...params.absent?.length ? [`${params.absent.join(", ")} no longer registered`] : [],
      "every pod Running and Ready"
    ],
    params: { present: JSON.stringify(params.present), absent: JSON.stringify(params.absent ?? []), ...params.version ? { version: params.version } : {} },
    // Not when a host's part failed: that step says why; a verification would only wait and say it again.
    dependsOn,
    timeoutMs: 5 * MIN2
  });
}
function buildAddNodesPlan(def, runId, assets, names) {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const hosts = selectHosts2(all, names);
  const newMasters = hosts.filter((h) => h.role === "master");
  const running = all.filter((h) => h.role === "master" && !names.includes(h.name));
  if (!running.length) throw new PlanError("the cluster has no running master to join (every master is selected): bootstrap it instead");
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const d = deriveCluster(def);
  const before = d.etcdMembers.filter((m) => !names.includes(m.name)).map((m) => memberOf(d, m.name));
  const install = installPhases(def, runId, hosts, assets).filter((p2) => p2.id !== "kubelet");
  const kubeletPhase = {
    id: "kubelet",
    title: "Push the kubelet's unit, settings and credentials (a new master's etcd certificates, not yet its etcd pod); start it",
    steps: hosts.map(
      (h) => step2({
        key: `kubelet/${h.name}`,
        phase: "kubelet",
        action: "push-and-run",
        title: `Kubelet on ${h.name}`,
        host: h.name,
        // A new master's etcd pod waits until etcd has added it as a member (the etcd phase).
        files: filesOf2(kubeletFiles(caps, h).filter((f) => f.path !== ETCD_MANIFEST), assets),
        exec: [exec2("start", locked2(runId, KUBELET_START_SCRIPT, ["restart", "5"])), journal2()],
        timeoutMs: 3 * MIN2
      })
    )
  };
  const phases = [...hostPhases(def, new Set(names))];
  if (newMasters.length)
    phases.push({
      id: "guard",
      title: "etcd: every member healthy, the membership as the definition lists it (nothing is changed)",
      steps: [
        step2({
          key: "guard/cluster",
          phase: "guard",
          action: "etcd-guard",
          title: "etcd healthy before adding masters",
          host: null,
          exec: etcdStatusOn(running),
          params: { expected: JSON.stringify(before), joining: JSON.stringify(newMasters.map((m) => memberOf(d, m.name).peerUrl)) },
          timeoutMs: 2 * MIN2
        })
      ]
    });
  phases.push(...tokenPhase(def, hosts), ...install, kubeletPhase);
  const added = [...before];
  if (newMasters.length)
    phases.push({
      id: "etcd",
      title: "etcd: add each new master as a learner, start its member, promote it once caught up; one at a time, quorum checked before and after",
      steps: newMasters.map((m, i) => {
        const member = memberOf(d, m.name);
        added.push(member);
        return step2({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-join",
          title: `etcd member ${m.name}`,
          host: m.name,
          files: filesOf2([{ asset: `etcd/etcd-${m.name}.yaml`, path: ETCD_MANIFEST, mode: 420 }], assets),
          exec: [
            ...running.map((r2) => exec2("etcd-add", etcdctl(["add-learner", m.name, member.peerUrl]), { host: r2.name })),
            ...running.map((r2) => exec2("etcd-promote", etcdctl(["promote", member.peerUrl]), { host: r2.name })),
            ...etcdStatusOn(running)
          ],
          describe: [`wait until ${m.name}'s etcd runs and has caught up with the leader, then promote it (every 2 s, up to 5 min); then every member healthy`],
          params: { name: m.name, peerUrl: member.peerUrl, before: JSON.stringify(added.slice(0, -1)), after: JSON.stringify([...added]) },
          dependsOn: i > 0 ? [`etcd/${newMasters[i - 1].name}`] : [],
          timeoutMs: 10 * MIN2
        });
      })
    });
  const cpFiles = checkpointFiles(caps);
  phases.push({
    id: "join",
    title: "Join: nodes Ready with their roles; a new master's API server Ready and its checkpoint installed",
    steps: hosts.map(
      (h) => step2({
        key: `join/${h.name}`,
        phase: "join",
        action: "join",
        title: `Join ${h.role} ${h.name}`,
        host: h.name,
        dependsOn: h.role === "master" ? [`etcd/${h.name}`] : [],
        ...h.role === "master" && cpFiles.length ? { files: filesOf2(cpFiles, assets), exec: [exec2("checkpoint", locked2(runId, CHECKPOINT_ENABLE_SCRIPT, ["restart"]))] } : {},
        describe: [`${h.name} registered and Ready; its role's labels and taints${h.role === "master" ? "; its kube-apiserver pod Running and Ready" : ""}`],
        timeoutMs: (h.role === "master" ? 12 : 8) * MIN2
      })
    )
  });
  if (newMasters.length) {
    const apply2 = applyStep("control-plane/kube-apiserver", "API servers learn the new etcd members", APISERVER_FILES, { wait: "apiservers" });
    phases.push({
      id: "control-plane",
      title: "The self-hosted API servers and every master's checkpoint list the new etcd members (--etcd-servers)",
      steps: [apply2, ...checkpointSteps(runId, all.filter((h) => h.role === "master"), caps, assets, [apply2.key])]
    });
  }
  phases.push({ id: "verify", title: "Verify: nodes Ready, pods Running and Ready", steps: [verifyStep({ present: all.map((h) => h.name) }, hosts.map((h) => `join/${h.name}`))] });
  return { runType: "join", phases };
}
function buildRemovePlan(def, runId, assets, names, opts) {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const hosts = selectHosts2(all, names);
  const masters = hosts.filter((h) => h.role === "master");
  const remainingMasters = all.filter((h) => h.role === "master" && !names.includes(h.name));
  const remaining = all.filter((h) => !names.includes(h.name));
  if (!remainingMasters.length) throw new PlanError(`removing ${masters.map((m) => m.name).join(", ")} leaves no master: a cluster keeps at least one (its etcd data lives on the masters)`);
  const firstMaster = all.find((h) => h.role === "master");
  if (def.spec.apiEndpoint.type === "first-master" && firstMaster && names.includes(firstMaster.name))
    throw new PlanError(`${firstMaster.name} is the API endpoint (apiEndpoint type first-master): every kubeconfig points at it; move the cluster to a VIP or DNS endpoint before removing it`);
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const d = deriveCluster(def);
  const members = d.etcdMembers.map((m) => memberOf(d, m.name));
  const phases = [
    {
      id: "guard",
      title: "Quorum guard: etcd keeps a healthy majority without the masters removed (nothing is changed)",
      steps: [
        step2({
          key: "guard/cluster",
          phase: "guard",
          action: "remove-guard",
          title: "Quorum guard",
          host: null,
          exec: masters.length ? etcdStatusOn(remainingMasters) : [],
          describe: masters.length ? [`refuse when removing ${masters.map((m) => m.name).join(", ")} would leave etcd without a healthy majority (say which members are unhealthy)`] : ["workers only: etcd is not touched"],
          params: { removing: JSON.stringify(masters.map((m) => m.name)), expected: JSON.stringify(members) },
          timeoutMs: 2 * MIN2
        })
      ]
    }
  ];
  let left = [...members];
  if (masters.length)
    phases.push({
      id: "etcd",
      title: "etcd: remove each master's member, one at a time, members healthy after each; stop its etcd pod",
      steps: masters.map((m, i) => {
        const member = memberOf(d, m.name);
        left = left.filter((x) => x.name !== m.name);
        return step2({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-leave",
          title: `Remove etcd member ${m.name}`,
          host: m.name,
          exec: [
            ...remainingMasters.map((r2) => exec2("etcd-remove", etcdctl(["remove", member.peerUrl]), { host: r2.name })),
            ...etcdStatusOn(remainingMasters),
            exec2("stop-etcd", locked2(runId, REMOVE_SCRIPT, [ETCD_MANIFEST]), { when: "needed" })
          ],
          params: { name: m.name, peerUrl: member.peerUrl, after: JSON.stringify(left) },
          dependsOn: i > 0 ? [`etcd/${masters[i - 1].name}`] : [],
          timeoutMs: 5 * MIN2
        });
      })
    });
  phases.push(
    {
      id: "drain",
      title: `Cordon and drain (PodDisruptionBudgets respected; at most ${Math.round(opts.drainTimeoutMs / 1e3)} s, then what blocked is reported)`,
      steps: hosts.map(
        (h) => step2({
          key: `drain/${h.name}`,
          phase: "drain",
          action: "drain",
          title: `Drain ${h.name}`,
          host: h.name,
          describe: [`cordon ${h.name}; evict its pods but DaemonSet and static pods through the Eviction API, retrying refused evictions every 2 s; wait until they are gone`],
          params: { timeoutMs: String(opts.drainTimeoutMs) },
          timeoutMs: opts.drainTimeoutMs + 2 * MIN2
        })
      )
    },
    {
      id: "remove-node",
      title: "Stop each host's kubelet (and keepalived), then delete its Node",
      steps: hosts.map(
        (h) => step2({
          key: `remove-node/${h.name}`,
          phase: "remove-node",
          action: "remove-node",
          title: `Delete node ${h.name}`,
          host: h.name,
          exec: [exec2("stop", locked2(runId, STOP_NODE_SCRIPT, []))],
          describe: [`DELETE /api/v1/nodes/${h.name}; wait until it is gone`],
          dependsOn: [`drain/${h.name}`],
          timeoutMs: 3 * MIN2
        })
      )
    }
  );
  if (masters.length) {
    const apply2 = applyStep("control-plane/kube-apiserver", "API servers forget the removed etcd members", APISERVER_FILES, { wait: "apiservers" });
    phases.push({
      id: "control-plane",
      title: "The self-hosted API servers and the remaining masters' checkpoints no longer list the removed etcd members",
      steps: [apply2, ...checkpointSteps(runId, remainingMasters, caps, assets, [apply2.key])]
    });
  }
  if (opts.reset)
    phases.push({
      id: "reset",
      title: "Reset the removed hosts: stop their pods, remove Bootdeck's files, the kubelet's state and etcd's data",
      steps: hosts.map(
        (h) => step2({ key: `reset/${h.name}`, phase: "reset", action: "reset", title: `Reset ${h.name}`, host: h.name, exec: [exec2("reset", locked2(runId, RESET_SCRIPT, resetPaths(def, h, [...assets.keys()])))], dependsOn: [`remove-node/${h.name}`], timeoutMs: 3 * MIN2 })
      )
    });
  phases.push(
    {
      id: "record",
      title: "The cluster's definition forgets the removed hosts",
      steps: [
        step2({
          key: "record/cluster",
          phase: "record",
          action: "record-definition",
          title: "Update the cluster definition",
          host: null,
          describe: [`remove ${names.join(", ")} from the stored definition (refused if it was edited after this plan)`],
          params: { op: "remove-hosts", hosts: JSON.stringify([...names]), from: definitionSha(def) },
          // Only hosts that are out: every Node deleted (and reset, unless told not to).
          dependsOn: [...hosts.map((h) => `remove-node/${h.name}`), ...opts.reset ? hosts.map((h) => `reset/${h.name}`) : [], ...masters.length ? ["control-plane/kube-apiserver"] : []],
          timeoutMs: MIN2
        })
      ]
    },
    { id: "verify", title: "Verify: the other nodes Ready, the removed ones gone, pods Running and Ready", steps: [verifyStep({ present: remaining.map((h) => h.name), absent: [...names] }, ["record/cluster"])] }
  );
  return { runType: "remove", phases };
}
function stagedDownloads(defT) {
  const to = defT.spec.kubernetes.version;
  return binaryDownloads(defT).map((b) => {
    const file = `${STAGE_DIR}/${to}/${b.name}`;
    return { staged: { ...b, dest: file }, swap: { ...b, url: `file://${file}` } };
  });
}
function buildUpgradePlan(def, runId, assets, opts) {
  const from = def.spec.kubernetes.version;
  const to = opts.to;
  const refusal = upgradeRefusal(from, to);
  if (refusal) throw new PlanError(refusal);
  const defT = { ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: to } } };
  const capsT = capabilitiesFor(to);
  const imagesT = imagesFor(capsT, def.spec.images.registry);
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = all.filter((h) => h.role === "master");
  const workers = all.filter((h) => h.role === "worker");
  const d = deriveCluster(def);
  const members = d.etcdMembers.map((m) => memberOf(d, m.name));
  const downloads = stagedDownloads(defT);
  const kubelet = binaryDownloads(defT).find((b2) => b2.name === "kubelet");
  if (!kubelet) throw new PlanError(`${to} has no kubelet download`);
  const drainTimeoutMs = opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const masterImages = [imagesT.apiserver, imagesT.controllerManager, imagesT.scheduler, imagesT.etcd, imagesT.proxy, imagesT.coredns, imagesT.pause].filter((x) => !!x);
  const workerImages = [imagesT.proxy, imagesT.coredns, imagesT.pause].filter((x) => !!x);
  const [factsPhase] = hostPhases(def);
  if (!factsPhase) throw new PlanError("no facts phase");
  const phases = [
    factsPhase,
    {
      id: "preflight",
      title: `Preflight of ${to} on every host and the version skew policy (nothing is changed)`,
      steps: [
        ...all.map(
          (h) => step2({
            key: `preflight/${h.name}`,
            phase: "preflight",
            action: "upgrade-preflight",
            title: `Preflight of ${to} on ${h.name}`,
            host: h.name,
            exec: [exec2("preflight", shellScript(UPGRADE_PREFLIGHT_SCRIPT, [kubelet.url, kubelet.sumsUrl], "bootdeck-upgrade-preflight"))],
            params: { from, to, allowCgroupV1: String(def.spec.kubernetes.allowCgroupV1) },
            dependsOn: [`facts/${h.name}`],
            timeoutMs: MIN2
          })
        ),
        step2({
          key: "preflight/cluster",
          phase: "preflight",
          action: "upgrade-check",
          title: "Version skew, nodes and etcd",
          host: null,
          exec: etcdStatusOn(masters),
          describe: [`the API servers run ${from} (or ${to} from an earlier attempt), no kubelet is newer than an API server, every node is Ready, every etcd member healthy`],
          params: { from, to, expected: JSON.stringify(members) },
          timeoutMs: 2 * MIN2
        })
      ]
    },
    {
      id: "stage",
      title: `Stage ${to}: the kubelet and kubectl downloaded and verified beside the running ones; the new images pulled`,
      steps: all.map(
        (h) => step2({
          key: `stage/${h.name}`,
          phase: "stage",
          action: "run-execs",
          title: `Stage ${to} on ${h.name}`,
          host: h.name,
          exec: [
            ...downloads.map((x) => exec2(`stage ${x.staged.name}`, locked2(runId, DOWNLOAD_SCRIPT, downloadArgs(x.staged)))),
            exec2("pull", shellScript(PULL_IMAGES_SCRIPT, h.role === "master" ? masterImages : workerImages, "bootdeck-pull"))
          ],
          dependsOn: ["preflight/cluster", `preflight/${h.name}`],
          timeoutMs: 15 * MIN2,
          retries: 2
        })
      )
    },
    {
      id: "etcd",
      title: "etcd: each master's member on the new version, one at a time; every member healthy after each",
      steps: masters.map(
        (m, i) => step2({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-upgrade",
          title: `etcd on ${m.name}`,
          host: m.name,
          files: filesOf2([{ asset: `etcd/etcd-${m.name}.yaml`, path: ETCD_MANIFEST, mode: 420 }], assets),
          exec: etcdStatusOn([m, ...masters.filter((x) => x.name !== m.name)]),
          describe: [`wait until ${m.name}'s etcd pod is Running and Ready with ${imagesT.etcd} and every member healthy`],
          params: { member: m.name, image: imagesT.etcd, expected: JSON.stringify(members) },
          dependsOn: i > 0 ? [`etcd/${masters[i - 1].name}`] : [],
          timeoutMs: 10 * MIN2
        })
      )
    }
  ];
  const manifests = manifestFiles(assets);
  const cm = manifests.filter((f) => f.startsWith("manifests/kube-controller-manager"));
  const sched = manifests.filter((f) => f.startsWith("manifests/kube-scheduler"));
  const addons = manifests.filter((f) => !APISERVER_FILES.includes(f) && !cm.includes(f) && !sched.includes(f));
  const apiserver = applyStep("control-plane/kube-apiserver", `kube-apiserver ${to} on every master`, APISERVER_FILES, { wait: "apiservers", image: imagesT.apiserver });
  const cmStep = applyStep("control-plane/kube-controller-manager", `kube-controller-manager ${to}`, cm, { wait: "rollouts", dependsOn: [apiserver.key] });
  const schedStep = applyStep("control-plane/kube-scheduler", `kube-scheduler ${to}`, sched, { wait: "rollouts", dependsOn: [cmStep.key] });
  const checkpoints = checkpointSteps(runId, masters, capsT, assets, [schedStep.key]);
  const addonStep = applyStep("control-plane/add-ons", `Add-ons of ${to} (kube-proxy, CoreDNS, flannel, their settings)`, addons, { wait: "rollouts", dependsOn: [schedStep.key] });
  const record = step2({
    key: "record/cluster",
    phase: "control-plane",
    action: "record-definition",
    title: `The cluster's version is ${to}`,
    host: null,
    describe: [`set spec.kubernetes.version to ${to} in the stored definition (its control plane runs it; refused if the definition was edited after this plan)`],
    params: { op: "set-version", version: to, from: definitionSha(def) },
    dependsOn: [addonStep.key, ...checkpoints.map((c) => c.key)],
    timeoutMs: MIN2
  });
  phases.push({ id: "control-plane", title: `Control plane ${to}: API servers, controller-manager, scheduler, checkpoints, add-ons`, steps: [apiserver, cmStep, schedStep, ...checkpoints, addonStep, record] });
  const b = { ...DEFAULT_BATCHES, ...opts.batches };
  const batches = [...intoBatches(masters, b.masters), ...intoBatches(workers, b.workers)];
  const steps = [];
  let previous = [record.key];
  batches.forEach((batch, k) => {
    const gate = step2({
      key: `gate/batch-${k + 1}`,
      phase: "kubelets",
      action: "upgrade-gate",
      title: `Pause point before batch ${k + 1} of ${batches.length} (${batch.map((h) => h.name).join(", ")})`,
      host: null,
      describe: ["go on unless a pause was asked for; while paused, wait for resume (or abort)"],
      dependsOn: previous,
      timeoutMs: PAUSE_LIMIT_MS
    });
    steps.push(gate);
    for (const h of batch) {
      const files = kubeletFiles(capsT, h);
      steps.push(
        step2({
          key: `kubelet/${h.name}`,
          phase: "kubelets",
          action: "kubelet-upgrade",
          title: `Kubelet ${to} on ${h.name}`,
          host: h.name,
          files: filesOf2(files, assets),
          exec: [
            exec2("save", locked2(runId, KUBELET_SAVE_SCRIPT, [KUBELET_BIN, `${STAGE_DIR}/${to}/kubelet`, ...files.map((f) => f.path)])),
            ...downloads.map((x) => exec2(`swap ${x.swap.name}`, locked2(runId, DOWNLOAD_SCRIPT, downloadArgs(x.swap)))),
            exec2("start", locked2(runId, KUBELET_START_SCRIPT, ["restart", "5"])),
            exec2("rollback", locked2(runId, KUBELET_ROLLBACK_SCRIPT, [KUBELET_BIN]), { when: "needed" }),
            journal2()
          ],
          describe: [
            `before: cordon ${h.name} and drain it (disruption budgets respected, at most ${Math.round(drainTimeoutMs / 1e3)} s)`,
            `after: wait until ${h.name} is Ready with kubelet ${to} (at most ${KUBELET_READY_TIMEOUT_MS / 6e4} min), then uncordon it; otherwise roll it back to ${from} and stop the upgrade`
          ],
          params: { from, to, drainTimeoutMs: String(drainTimeoutMs), readyTimeoutMs: String(KUBELET_READY_TIMEOUT_MS) },
          dependsOn: [gate.key],
          timeoutMs: drainTimeoutMs + KUBELET_READY_TIMEOUT_MS * 2 + 5 * MIN2
        })
      );
    }
    previous = batch.map((h) => `kubelet/${h.name}`);
  });
  phases.push({ id: "kubelets", title: `Kubelets ${to} in batches (masters ${b.masters} at a time, then workers ${b.workers} at a time), each behind a pause point`, steps });
  phases.push({ id: "verify", title: `Verify: every node Ready with kubelet ${to}, pods Running and Ready`, steps: [verifyStep({ present: all.map((h) => h.name), version: to }, all.map((h) => `kubelet/${h.name}`))] });
  return { runType: "upgrade", phases };
}
var import_node_crypto12, MIN2, DEFAULT_DRAIN_TIMEOUT_MS, KUBELET_READY_TIMEOUT_MS, PAUSE_LIMIT_MS, ETCD_MANIFEST, exec2, locked2, etcdctl, journal2, definitionSha, memberOf, etcdStatusOn, manifestFiles, APISERVER_FILES, KUBELET_BIN;
var init_plans_day2 = __esm({
  "lib/engine/plans-day2.ts"() {
    "use strict";
    import_node_crypto12 = require("node:crypto");
    init_capabilities();
    init_kubelet_unit();
    init_derive();
    init_quote();
    init_day2_scripts();
    init_host_scripts();
    init_batches();
    init_skew();
    init_host_files();
    init_plans();
    MIN2 = 6e4;
    DEFAULT_DRAIN_TIMEOUT_MS = 5 * MIN2;
    KUBELET_READY_TIMEOUT_MS = 4 * MIN2;
    PAUSE_LIMIT_MS = 7 * 24 * 60 * MIN2;
    ETCD_MANIFEST = `${KUBELET_PATHS.staticPods}/etcd.yaml`;
    exec2 = (id, argv, opts = {}) => ({ id, argv, when: opts.when ?? "always", ...opts.host ? { host: opts.host } : {} });
    locked2 = (runId, script, args) => shellScript(script, [runId, "", ...args], "bootdeck");
    etcdctl = (args) => shellScript(ETCD_SCRIPT, args, "bootdeck-etcd");
    journal2 = () => exec2("journal", shellScript(JOURNAL_SCRIPT, ["60"], "bootdeck-journal"), { when: "needed" });
    definitionSha = (def) => (0, import_node_crypto12.createHash)("sha256").update(JSON.stringify(def)).digest("hex");
    memberOf = (d, name) => {
      const m = d.etcdMembers.find((x) => x.name === name);
      if (!m) throw new PlanError(`${name} is not an etcd member of the definition`);
      return { name: m.name, peerUrl: m.peerUrl, clientUrl: m.clientUrl };
    };
    etcdStatusOn = (masters) => masters.map((m) => exec2("etcd-status", etcdctl(["status"]), { host: m.name }));
    manifestFiles = (assets) => [...assets.keys()].filter((p2) => p2.startsWith("manifests/")).sort();
    APISERVER_FILES = ["manifests/kube-apiserver-secret.yaml", "manifests/kube-apiserver.yaml"];
    KUBELET_BIN = "/usr/local/bin/kubelet";
  }
});

// lib/engine/plan-run-day2.ts
async function runningAssetSet(clusterId2) {
  const db = getDb();
  const run4 = await db.run.findFirst({ where: { clusterId: clusterId2, type: { in: CHANGING }, status: { not: "planned" }, assetSetId: { not: null } }, orderBy: { createdAt: "desc" }, select: { assetSetId: true } });
  if (run4?.assetSetId) return run4.assetSetId;
  return (await db.assetSet.findFirst({ where: { clusterId: clusterId2 }, orderBy: { version: "desc" }, select: { id: true } }))?.id;
}
async function indexOf(setId) {
  const rows = await getDb().asset.findMany({ where: { assetSetId: setId }, select: { path: true, sha256: true, size: true } });
  return new Map(rows.map((r2) => [r2.path, { sha256: r2.sha256, size: r2.size }]));
}
function validated(def, why) {
  const v = validateClusterDefinition(def);
  if (!v.ok) throw new PlanError(`${why}, the definition would be invalid: ${v.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  return v.definition;
}
async function planDay2Run({ clusterId: clusterId2, body, id, createdById, by: by2 }) {
  const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId2 }, select: { definition: true } });
  const def = JSON.parse(cluster.definition);
  const fromSetId = await runningAssetSet(clusterId2);
  if (!fromSetId) throw unprocessable("this cluster has no rendered assets: bootstrap it first");
  try {
    let plan;
    let target;
    if (body.type === "join") {
      const masters = def.spec.hosts.filter((h) => body.hosts.includes(h.name) && h.role === "master").map((h) => h.name);
      const index2 = await indexOf(fromSetId);
      const caps = capabilitiesFor(def.spec.kubernetes.version);
      const needed = def.spec.hosts.filter((h) => body.hosts.includes(h.name)).flatMap((h) => kubeletFiles(caps, { name: h.name, role: effectiveHost(def, h).role }));
      if (caps.criRuntime) needed.push(...runtimeFiles(def, [...index2.keys()]));
      if (masters.length || missingAssets([...needed, ...endpointFiles(def)], new Set(index2.keys())).length) target = { definition: def, joining: masters };
      else {
        plan = buildJoinPlan(def, id, index2, body.hosts);
        return await save(plan, fromSetId);
      }
    } else if (body.type === "remove") {
      target = { definition: validated({ ...def, spec: { ...def.spec, hosts: def.spec.hosts.filter((h) => !body.hosts.includes(h.name)) } }, `without ${body.hosts.join(", ")}`) };
    } else {
      const refusal = upgradeRefusal(def.spec.kubernetes.version, body.version);
      if (refusal) throw new PlanError(refusal);
      target = { definition: validated({ ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: body.version } } }, `on ${body.version}`) };
    }
    const rendered = await renderKeepingPki({ clusterId: clusterId2, fromSetId, definition: target.definition, joiningMembers: target.joining });
    const index = assetIndexOf(rendered.assets);
    if (body.type === "join")
      plan = target.joining?.length ? buildAddNodesPlan(def, id, index, body.hosts) : buildJoinPlan(def, id, index, body.hosts);
    else if (body.type === "remove")
      plan = buildRemovePlan(def, id, index, body.hosts, { reset: body.reset !== false, drainTimeoutMs: (body.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_MS / 1e3) * 1e3 });
    else plan = buildUpgradePlan(def, id, index, { to: body.version, batches: body.batches, drainTimeoutMs: body.drainTimeoutSeconds ? body.drainTimeoutSeconds * 1e3 : void 0 });
    const set = await saveAssetSet({ clusterId: clusterId2, assets: rendered.assets, options: rendered.options });
    return await save(plan, set.id);
  } catch (err) {
    if (err instanceof PlanError || err instanceof NothingToKeepError) throw unprocessable(err.message);
    if (err instanceof RenderValidationError) throw unprocessable(err.message);
    throw err;
  }
  async function save(plan, assetSetId) {
    const runId = await createRun({ id, clusterId: clusterId2, type: body.type, plan, createdById, assetSetId });
    if (body.type === "join" && body.acceptWarnings) await acceptRunWarnings({ runId, by: by2 ?? "unknown" });
    return runId;
  }
}
var isDay2Body, CHANGING;
var init_plan_run_day2 = __esm({
  "lib/engine/plan-run-day2.ts"() {
    "use strict";
    init_keep();
    init_store();
    init_types();
    init_definition();
    init_derive();
    init_capabilities();
    init_client2();
    init_errors();
    init_skew();
    init_host_files();
    init_plans();
    init_plans_day2();
    init_plans_endpoint();
    init_runs();
    isDay2Body = (body) => body.type === "join" || body.type === "remove" || body.type === "upgrade";
    CHANGING = ["bootstrap", "join", "remove", "upgrade", "restore", "recover", "rotate-certs"];
  }
});

// lib/backups/schemas.ts
function scheduleHealth(p2, now = /* @__PURE__ */ new Date()) {
  if (!p2.enabled) return { state: "off", message: "no schedule: backups are taken on demand only" };
  const interval = p2.intervalMinutes * 6e4;
  if (p2.lastStatus === "failed" || p2.lastStatus === "skipped")
    return { state: "failing", message: `the last scheduled backup ${p2.lastStatus === "failed" ? "failed" : "could not start"}${p2.failures > 1 ? ` (${p2.failures} attempts in a row)` : ""}: ${p2.lastError ?? "no reason recorded"}` };
  const since = p2.lastSuccessAt ?? p2.enabledSince ?? null;
  if (since && now.getTime() - new Date(since).getTime() > 2 * interval)
    return { state: "failing", message: p2.lastSuccessAt ? `no backup has succeeded for ${span(now.getTime() - new Date(p2.lastSuccessAt).getTime())} (the schedule runs every ${span(interval)})` : `no scheduled backup has run for ${span(now.getTime() - new Date(since).getTime())}` };
  if (!p2.lastAttemptAt) return { state: "pending", message: `every ${span(interval)}; none taken yet` };
  return { state: "ok", message: `every ${span(interval)}; the last one succeeded` };
}
var import_zod5, backupIdParams, backupPolicyBody, defaultBackupPolicy, span;
var init_schemas = __esm({
  "lib/backups/schemas.ts"() {
    "use strict";
    import_zod5 = require("zod");
    backupIdParams = import_zod5.z.strictObject({ id: import_zod5.z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/), backupId: import_zod5.z.string().regex(/^bk_[A-Za-z0-9_-]{16}$/) });
    backupPolicyBody = import_zod5.z.strictObject({
      enabled: import_zod5.z.boolean(),
      /** Minutes between scheduled snapshots: from 15 minutes to a week. */
      intervalMinutes: import_zod5.z.number().int().min(15, "must be at least 15 minutes").max(7 * 24 * 60, "must be at most a week (10080 minutes)"),
      /** The newest N backups are always kept. */
      keepLast: import_zod5.z.number().int().min(1, "must keep at least one backup").max(1e3),
      /** Backups beyond the newest N are deleted once they are older than this many days. */
      keepDays: import_zod5.z.number().int().min(1).max(3650)
    });
    defaultBackupPolicy = { enabled: false, intervalMinutes: 360, keepLast: 14, keepDays: 30 };
    span = (ms) => ms >= 2 * 864e5 ? `${Math.round(ms / 864e5)} days` : ms >= 2 * 36e5 ? `${Math.round(ms / 36e5)} hours` : `${Math.max(1, Math.round(ms / 6e4))} minutes`;
  }
});

// lib/backups/sealed-file.ts
function openSealedWriter(file) {
  (0, import_node_fs2.mkdirSync)(import_node_path3.default.dirname(file), { recursive: true, mode: 448 });
  const key = (0, import_node_crypto13.randomBytes)(32);
  const nonce = (0, import_node_crypto13.randomBytes)(12);
  const cipher = (0, import_node_crypto13.createCipheriv)("aes-256-gcm", key, nonce);
  const hash2 = (0, import_node_crypto13.createHash)("sha256");
  let size2 = 0;
  let storedSize = 0;
  const part = `${file}.part`;
  const counter = new import_node_stream.Transform({
    transform(chunk, _enc, done) {
      hash2.update(chunk);
      size2 += chunk.length;
      done(null, chunk);
    }
  });
  const stored = new import_node_stream.Transform({
    transform(chunk, _enc, done) {
      storedSize += chunk.length;
      done(null, chunk);
    }
  });
  const out = (0, import_node_fs2.createWriteStream)(part, { mode: 384 });
  const input = new import_node_stream.PassThrough();
  const piped = (0, import_promises.pipeline)(input, counter, cipher, stored, out);
  piped.catch(() => void 0);
  return {
    stream: input,
    async finish() {
      input.end();
      await piped;
      (0, import_node_fs2.renameSync)(part, file);
      return { path: file, keyCipher: encryptSecret(key.toString("base64")), nonce: nonce.toString("base64"), tag: cipher.getAuthTag().toString("base64"), sha256: hash2.digest("hex"), size: size2, storedSize };
    },
    async abort() {
      input.destroy(new Error("aborted"));
      await piped.catch(() => void 0);
      out.destroy();
      await new Promise((resolve) => out.closed ? resolve() : out.once("close", () => resolve()));
      (0, import_node_fs2.rmSync)(part, { force: true });
    }
  };
}
function openSealedReader(ref) {
  const key = Buffer.from(decryptSecret(ref.keyCipher), "base64");
  const decipher = (0, import_node_crypto13.createDecipheriv)("aes-256-gcm", key, Buffer.from(ref.nonce, "base64"));
  decipher.setAuthTag(Buffer.from(ref.tag, "base64"));
  const source = (0, import_node_fs2.createReadStream)(ref.path);
  source.on("error", (err) => decipher.destroy(err));
  return source.pipe(decipher);
}
async function verifySealedFile(ref) {
  const hash2 = (0, import_node_crypto13.createHash)("sha256");
  let size2 = 0;
  await (0, import_promises.pipeline)(openSealedReader(ref), async function(source) {
    for await (const chunk of source) {
      hash2.update(chunk);
      size2 += chunk.length;
    }
  });
  return { sha256: hash2.digest("hex"), size: size2 };
}
var import_node_crypto13, import_node_fs2, import_node_path3, import_node_stream, import_promises;
var init_sealed_file = __esm({
  "lib/backups/sealed-file.ts"() {
    "use strict";
    import_node_crypto13 = require("node:crypto");
    import_node_fs2 = require("node:fs");
    import_node_path3 = __toESM(require("node:path"));
    import_node_stream = require("node:stream");
    import_promises = require("node:stream/promises");
    init_cipher();
  }
});

// lib/backups/store.ts
async function recordBackup(input, db = getDb()) {
  const data = {
    clusterId: input.clusterId,
    runId: input.runId,
    trigger: input.trigger,
    member: input.facts.member,
    file: import_node_path4.default.relative(getEnv().BOOTDECK_DATA_DIR, input.sealed.path),
    keyCipher: input.sealed.keyCipher,
    nonce: input.sealed.nonce,
    tag: input.sealed.tag,
    sha256: input.sealed.sha256,
    size: input.sealed.size,
    storedSize: input.sealed.storedSize,
    revision: input.facts.revision,
    totalKeys: input.facts.totalKeys,
    etcdVersion: input.facts.etcdVersion,
    createdById: input.createdById ?? null
  };
  const previous = input.runId ? await db.backup.findUnique({ where: { runId: input.runId }, select: { id: true, file: true } }) : null;
  if (previous && previous.id !== input.id) {
    await db.backup.delete({ where: { id: previous.id } });
    (0, import_node_fs3.rmSync)(dataPath(previous.file), { force: true });
  }
  await db.backup.upsert({ where: { id: input.id }, create: { id: input.id, ...data }, update: data });
}
function view(b, users) {
  return {
    id: b.id,
    trigger: b.trigger === "schedule" ? "schedule" : "manual",
    member: b.member,
    sha256: b.sha256,
    size: b.size,
    storedSize: b.storedSize,
    revision: b.revision,
    totalKeys: b.totalKeys,
    etcdVersion: b.etcdVersion,
    runId: b.runId,
    createdBy: b.createdById ? users.get(b.createdById) ?? "a deleted user" : null,
    createdAt: b.createdAt.toISOString()
  };
}
async function listBackups({ clusterId: clusterId2 }) {
  const rows = await getDb().backup.findMany({ where: { clusterId: clusterId2 }, orderBy: { createdAt: "desc" } });
  const ids = [...new Set(rows.map((r2) => r2.createdById).filter((x) => !!x))];
  const users = new Map((await getDb().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } })).map((u) => [u.id, u.username]));
  return rows.map((r2) => view(r2, users));
}
async function getBackupOrThrow({ clusterId: clusterId2, backupId }) {
  const b = await getDb().backup.findFirst({ where: { id: backupId, clusterId: clusterId2 } });
  if (!b) throw notFound("Backup");
  return b;
}
async function openVerifiedBackup(b) {
  const ref = sealedRef(b);
  const unusable = (message) => new AppError(409, "backup_unusable", message);
  if (!(0, import_node_fs3.existsSync)(ref.path)) throw unusable(`the file of backup ${b.id} is missing from the data directory (${b.file})`);
  let got;
  try {
    got = await verifySealedFile(ref);
  } catch (err) {
    throw unusable(`backup ${b.id} does not authenticate under its key (the file was changed or damaged): ${err instanceof Error ? err.message : String(err)}`);
  }
  if (got.sha256 !== b.sha256 || got.size !== b.size) throw unusable(`backup ${b.id} is not what was stored: sha256 ${got.sha256} (${got.size} bytes), expected ${b.sha256} (${b.size} bytes)`);
  return { stream: () => openSealedReader(ref), size: b.size };
}
function policyView(p2, now = /* @__PURE__ */ new Date()) {
  const base = {
    ...defaultBackupPolicy,
    ...p2 ? { enabled: p2.enabled, intervalMinutes: p2.intervalMinutes, keepLast: p2.keepLast, keepDays: p2.keepDays } : {},
    nextDueAt: p2?.nextDueAt?.toISOString() ?? null,
    lastAttemptAt: p2?.lastAttemptAt?.toISOString() ?? null,
    lastRunId: p2?.lastRunId ?? null,
    lastStatus: p2?.lastStatus ?? null,
    lastError: p2?.lastError ?? null,
    lastSuccessAt: p2?.lastSuccessAt?.toISOString() ?? null,
    failures: p2?.failures ?? 0
  };
  return { ...base, health: scheduleHealth({ ...base, enabledSince: p2?.updatedAt.toISOString() ?? null }, now) };
}
async function getBackupPolicy({ clusterId: clusterId2 }) {
  return policyView(await getDb().backupPolicy.findUnique({ where: { clusterId: clusterId2 } }));
}
async function listScheduleHealth() {
  const rows = await getDb().backupPolicy.findMany();
  return new Map(rows.map((r2) => [r2.clusterId, policyView(r2).health]));
}
async function setBackupPolicy({ clusterId: clusterId2, body, by: by2 }) {
  const db = getDb();
  if (!await db.cluster.findUnique({ where: { id: clusterId2 }, select: { id: true } })) throw notFound("Cluster");
  const old = await db.backupPolicy.findUnique({ where: { clusterId: clusterId2 } });
  const anchor = old?.lastSuccessAt ?? null;
  const nextDueAt = body.enabled ? new Date(Math.max(Date.now(), (anchor?.getTime() ?? 0) + body.intervalMinutes * 6e4)) : null;
  const changedSchedule = !old || old.enabled !== body.enabled || old.intervalMinutes !== body.intervalMinutes;
  const data = { ...body, updatedBy: by2, ...changedSchedule ? { nextDueAt, ...body.enabled && !old?.enabled ? { lastStatus: null, lastError: null, failures: 0 } : {} } : {} };
  const row = await db.backupPolicy.upsert({ where: { clusterId: clusterId2 }, create: { clusterId: clusterId2, ...data, nextDueAt }, update: data });
  return policyView(row);
}
async function applyRetention({ clusterId: clusterId2, now = /* @__PURE__ */ new Date() }) {
  const db = getDb();
  const policy = policyView(await db.backupPolicy.findUnique({ where: { clusterId: clusterId2 } }));
  const rows = await db.backup.findMany({ where: { clusterId: clusterId2 }, orderBy: { createdAt: "desc" }, select: { id: true, file: true, createdAt: true, revision: true } });
  const cutoff = now.getTime() - policy.keepDays * 864e5;
  const expired = rows.slice(Math.max(1, policy.keepLast)).filter((r2) => r2.createdAt.getTime() < cutoff);
  for (const r2 of expired) {
    await db.backup.delete({ where: { id: r2.id } });
    (0, import_node_fs3.rmSync)(dataPath(r2.file), { force: true });
    await recordAudit({ action: "backup.expire", target: r2.id, details: { clusterId: clusterId2, revision: r2.revision, createdAt: r2.createdAt.toISOString(), keepLast: policy.keepLast, keepDays: policy.keepDays } });
  }
  return expired.map((r2) => r2.id);
}
async function sweepOrphanBackupFiles() {
  const root = dataPath(BACKUPS_DIR);
  if (!(0, import_node_fs3.existsSync)(root)) return [];
  const known2 = new Set((await getDb().backup.findMany({ select: { file: true } })).map((b) => import_node_path4.default.normalize(b.file)));
  const clusters = new Set((await getDb().cluster.findMany({ select: { id: true } })).map((c) => c.id));
  const removed = [];
  const hourAgo = Date.now() - 36e5;
  for (const dir of (0, import_node_fs3.readdirSync)(root, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const abs = import_node_path4.default.join(root, dir.name);
    if (!clusters.has(dir.name)) {
      (0, import_node_fs3.rmSync)(abs, { recursive: true, force: true });
      removed.push(import_node_path4.default.join(BACKUPS_DIR, dir.name));
      continue;
    }
    for (const f of (0, import_node_fs3.readdirSync)(abs, { withFileTypes: true })) {
      const rel = import_node_path4.default.join(BACKUPS_DIR, dir.name, f.name);
      if (known2.has(rel)) continue;
      const { mtimeMs } = (0, import_node_fs3.statSync)(import_node_path4.default.join(abs, f.name));
      if (mtimeMs > hourAgo) continue;
      (0, import_node_fs3.rmSync)(import_node_path4.default.join(abs, f.name), { force: true });
      removed.push(rel);
    }
  }
  return removed;
}
async function backupFileName(b) {
  const c = await getDb().cluster.findUnique({ where: { id: b.clusterId }, select: { name: true } });
  const when = b.createdAt.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "Z");
  return `${c?.name ?? "cluster"}-etcd-${b.revision}-${when}.db`;
}
var import_node_fs3, import_node_path4, BACKUPS_DIR, backupRelPath, dataPath, sealedRef;
var init_store2 = __esm({
  "lib/backups/store.ts"() {
    "use strict";
    import_node_fs3 = require("node:fs");
    import_node_path4 = __toESM(require("node:path"));
    init_record();
    init_client2();
    init_env();
    init_errors();
    init_schemas();
    init_sealed_file();
    BACKUPS_DIR = "backups";
    backupRelPath = (clusterId2, backupId) => import_node_path4.default.join(BACKUPS_DIR, clusterId2, `${backupId}.snapshot`);
    dataPath = (rel) => import_node_path4.default.join(getEnv().BOOTDECK_DATA_DIR, rel);
    sealedRef = (b) => ({ path: dataPath(b.file), keyCipher: b.keyCipher, nonce: b.nonce, tag: b.tag });
  }
});

// lib/engine/dr-schemas.ts
var import_zod6, drRunTypes, drRunBodies, isDrRunType;
var init_dr_schemas = __esm({
  "lib/engine/dr-schemas.ts"() {
    "use strict";
    import_zod6 = require("zod");
    drRunTypes = ["backup", "restore", "recover", "rotate-certs"];
    drRunBodies = [
      /** An etcd snapshot now, stored encrypted with the cluster's backups. */
      import_zod6.z.strictObject({ type: import_zod6.z.literal("backup") }),
      /** Every master's etcd from a stored snapshot, then the control plane back; the API is down meanwhile. */
      import_zod6.z.strictObject({
        type: import_zod6.z.literal("restore"),
        backup: import_zod6.z.string().regex(/^bk_[A-Za-z0-9_-]{16}$/, "must be a backup's id (bk_\u2026)"),
        confirm: import_zod6.z.literal(true, { error: "restoring a cluster needs confirm: true (everything written since the snapshot is lost)" })
      }),
      /** A temporary control plane from etcd's current state, then the pivot again. */
      import_zod6.z.strictObject({ type: import_zod6.z.literal("recover"), confirm: import_zod6.z.literal(true, { error: "recovering the control plane needs confirm: true" }) }),
      /** Every leaf certificate issued again (same CAs and keys) and rolled out, the API kept up. */
      import_zod6.z.strictObject({
        type: import_zod6.z.literal("rotate-certs"),
        confirm: import_zod6.z.literal(true, { error: "rotating certificates needs confirm: true" }),
        /** Days the renewed certificates are valid (default: as the cluster's assets were rendered). */
        leafValidityDays: import_zod6.z.number().int().min(1).max(3650).optional()
      })
    ];
    isDrRunType = (type) => drRunTypes.includes(type);
  }
});

// lib/engine/actions/kube.ts
function nodeReady(node) {
  const c = node.status?.conditions?.find((x) => x.type === "Ready");
  if (!c) return { ready: false, why: "no Ready condition reported yet" };
  if (c.status === "True") return { ready: true, why: "Ready" };
  return { ready: false, why: `NotReady${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ""})` : ""}` };
}
function podReady(pod) {
  return pod.status?.phase === "Running" && pod.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
}
function podLine(pod) {
  const cs = pod.status?.containerStatuses ?? [];
  const waiting = cs.map((c) => c.state?.waiting?.reason).find(Boolean);
  return `${pod.metadata?.namespace}/${pod.metadata?.name} ${pod.status?.phase ?? "Pending"} ${cs.filter((c) => c.ready).length}/${cs.length || 1}${waiting ? ` (${waiting})` : ""}`;
}
function controlPlaneMissing(pods, components, opts = {}) {
  return components.filter(
    (c) => !pods.some(
      (p2) => p2.metadata?.namespace === "kube-system" && (p2.metadata?.name ?? "").startsWith(`${c}-`) && !(p2.metadata?.name ?? "").startsWith("bootstrap-") && (podReady(p2) || opts.beforePivot === true && c === "kube-apiserver" && p2.status?.phase === "Running")
    )
  );
}
function masterRole(caps) {
  return caps.selfLabelRole ? { labels: { "node-role.kubernetes.io/master": "" }, taint: { key: "node-role.kubernetes.io/master", effect: "NoSchedule" } } : { labels: { "node-role.kubernetes.io/control-plane": "" }, taint: { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" } };
}
function rolePatch(node, role, caps) {
  const wanted = role === "master" ? masterRole(caps) : { labels: { "node-role.kubernetes.io/worker": "" }, taint: void 0 };
  const labels2 = node.metadata?.labels ?? {};
  const missingLabels = Object.fromEntries(Object.entries(wanted.labels).filter(([k, v]) => labels2[k] !== v));
  const taints = node.spec?.taints ?? [];
  const needTaint = wanted.taint && !taints.some((t) => t.key === wanted.taint?.key && t.effect === wanted.taint.effect);
  if (Object.keys(missingLabels).length === 0 && !needTaint) return void 0;
  return {
    ...Object.keys(missingLabels).length ? { metadata: { labels: missingLabels } } : {},
    ...needTaint && wanted.taint ? { spec: { taints: [...taints, wanted.taint] } } : {}
  };
}
var isMirrorPod, CONTROL_PLANE_COMPONENTS;
var init_kube = __esm({
  "lib/engine/actions/kube.ts"() {
    "use strict";
    isMirrorPod = (pod) => pod.metadata?.ownerReferences?.some((o2) => o2.kind === "Node") === true || pod.metadata?.annotations?.["kubernetes.io/config.mirror"] !== void 0;
    CONTROL_PLANE_COMPONENTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];
  }
});

// lib/engine/actions/dr-scripts.ts
function parseSnapshotReport(stdout) {
  const status = /^bootdeck-snapshot-status (.*)$/m.exec(stdout)?.[1] ?? "";
  const file = /^bootdeck-snapshot-file ([0-9a-f]{64}) (\d+)$/m.exec(stdout);
  if (!file) throw new Error(`the snapshot's checksum and size were not reported (output: ${stdout.slice(0, 300)})`);
  const num = (name) => new RegExp(`"${name}"\\s*:\\s*(\\d+)`).exec(status)?.[1];
  const revision = num("revision");
  if (!revision) throw new Error(`etcdutl snapshot status did not report a revision (output: ${status.slice(0, 300) || "none"})`);
  return {
    sha256: file[1],
    size: Number(file[2]),
    revision,
    totalKeys: Number(num("totalKey") ?? 0),
    etcdVersion: /"version"\s*:\s*"([^"]*)"/.exec(status)?.[1] ?? ""
  };
}
function parseEtcdHealth(stdout) {
  const section = (name) => stdout.split(`--- ${name}
`)[1]?.split("\n--- ")[0]?.trim() ?? "";
  const errors = [];
  const members = /* @__PURE__ */ new Map();
  try {
    for (const e of JSON.parse(section("health") || "[]")) members.set(e.endpoint, { endpoint: e.endpoint, healthy: e.health, ...e.error ? { error: e.error } : {} });
  } catch {
    errors.push(`etcdctl endpoint health said: ${section("health").slice(0, 300) || "nothing"}`);
  }
  const status = section("status");
  for (const m of status.matchAll(/"Endpoint"\s*:\s*"([^"]+)"[^]*?"revision"\s*:\s*(\d+)/g)) {
    const row = members.get(m[1]);
    if (row) row.revision = m[2];
  }
  return { members: [...members.values()].sort((a, b) => a.endpoint.localeCompare(b.endpoint)), errors };
}
var ETCD_DIRS, RESTORE_DIR, ETCDCTL, SNAPSHOT_SAVE_SCRIPT, snapshotFetchArgv, snapshotDiscardArgv, SNAPSHOT_PROBE_SCRIPT, SNAPSHOT_UPLOAD_SCRIPT, STOP_CONTROL_PLANE_SCRIPT, ETCD_RESTORE_SCRIPT, KUBELET_UP_SCRIPT, ETCD_STATUS_SCRIPT, SELF_HOSTED_RUNNING_SCRIPT, TEMP_APISERVER_READY_SCRIPT, RESTART_CONTAINERS_SCRIPT, KUBELET_CERTS_SCRIPT;
var init_dr_scripts = __esm({
  "lib/engine/actions/dr-scripts.ts"() {
    "use strict";
    init_host_scripts();
    ETCD_DIRS = { certs: "/etc/kubernetes/etcd", data: "/var/lib/etcd" };
    RESTORE_DIR = "/var/lib/bootdeck/restore";
    ETCDCTL = `c=$(crictl ps -q --state running --label io.kubernetes.pod.namespace=kube-system --label io.kubernetes.container.name=etcd 2>/dev/null | head -n 1)
[ -n "$c" ] || { echo "no running etcd container on $(hostname)" >&2; exit 3; }
ctl() {
  crictl exec "$c" etcdctl --endpoints=https://127.0.0.1:2379 --cacert=${ETCD_DIRS.certs}/ca.crt --cert=${ETCD_DIRS.certs}/server.crt --key=${ETCD_DIRS.certs}/server.key --dial-timeout=3s "$@" 2>/tmp/bootdeck-etcdctl.$$
  rc=$?; grep -v '^{"level"' /tmp/bootdeck-etcdctl.$$ >&2; rm -f /tmp/bootdeck-etcdctl.$$; return $rc
}
`;
    SNAPSHOT_SAVE_SCRIPT = `set -u
f=$1
${ETCDCTL}ctl endpoint health --command-timeout=10s >/dev/null || { echo "the etcd member on $(hostname) is not healthy" >&2; exit 4; }
rm -f ${ETCD_DIRS.data}/bootdeck-snapshot-*.db ${ETCD_DIRS.data}/bootdeck-snapshot-*.db.part
ctl snapshot save "$f" --command-timeout=10m >/dev/null || { echo "etcdctl snapshot save failed on $(hostname)" >&2; rm -f "$f" "$f.part"; exit 1; }
echo "bootdeck-snapshot-status $(crictl exec "$c" etcdutl snapshot status "$f" -w json 2>/dev/null)"
echo "bootdeck-snapshot-file $(sha256sum "$f" | cut -d' ' -f1) $(stat -c %s "$f")"`;
    snapshotFetchArgv = (file) => ["cat", "--", file];
    snapshotDiscardArgv = (file) => ["rm", "-f", "--", file];
    SNAPSHOT_PROBE_SCRIPT = `[ -f "$1" ] && sha256sum "$1" | cut -d' ' -f1 || true`;
    SNAPSHOT_UPLOAD_SCRIPT = `${LOCK}f=$1; sum=$2; size=$3
mkdir -p "$(dirname "$f")" && chmod 0700 "$(dirname "$f")"
cat > "$f.part" || { echo "writing $f.part failed" >&2; rm -f "$f.part"; exit 1; }
got=$(sha256sum "$f.part" | cut -d' ' -f1); n=$(stat -c %s "$f.part")
if [ "$got" != "$sum" ] || [ "$n" != "$size" ]; then echo "the snapshot arrived changed: $n bytes, sha256 $got (expected $size bytes, $sum)" >&2; rm -f "$f.part"; exit 1; fi
chmod 0600 "$f.part" && mv -f "$f.part" "$f" && echo "bootdeck-snapshot uploaded $n bytes"`;
    STOP_CONTROL_PLANE_SCRIPT = `${LOCK}systemctl stop bootdeck-checkpoint 2>/dev/null || true
systemctl stop kubelet
for f in "$@"; do rm -f -- "$f"; done
crictl rmp --all --force >/dev/null 2>&1 || crictl rmp --all --force >/dev/null
left=$(crictl ps -q 2>/dev/null | wc -l)
[ "$left" = 0 ] || { echo "$left containers still run on $(hostname) after crictl rmp" >&2; exit 1; }
echo "bootdeck-stopped kubelet and every pod"`;
    ETCD_RESTORE_SCRIPT = `${LOCK}image=$1; name=$2; cluster=$3; token=$4; peer=$5; bump=$6
# The lock names the run holding it: this one.
run=$(cat "$lock")
dir=${RESTORE_DIR}; data=${ETCD_DIRS.data}; marker=$dir/restored-$run
if [ -f "$marker" ] && [ -d "$data/member" ]; then echo "bootdeck-etcd restored already by $run"; exit 0; fi
[ -f "$dir/snapshot.db" ] || { echo "no snapshot at $dir/snapshot.db" >&2; exit 1; }
if ! ctr -n k8s.io images ls -q "name==$image" | grep -q .; then crictl pull "$image" >/dev/null || { echo "the etcd image $image is not on $(hostname) and could not be pulled" >&2; exit 1; }; fi
rm -rf "$dir/data"
ctr -n k8s.io tasks kill -s KILL bootdeck-etcdutl >/dev/null 2>&1; ctr -n k8s.io containers rm bootdeck-etcdutl >/dev/null 2>&1
set -- etcdutl snapshot restore "$dir/snapshot.db" --name "$name" --initial-cluster "$cluster" --initial-cluster-token "$token" --initial-advertise-peer-urls "$peer" --data-dir "$dir/data"
[ "$bump" = bump ] && set -- "$@" --bump-revision 1000000000 --mark-compacted
ctr -n k8s.io run --rm --mount "type=bind,src=$dir,dst=$dir,options=rbind:rw" "$image" bootdeck-etcdutl "$@" > "$dir/etcdutl.log" 2>&1 || { echo "etcdutl snapshot restore failed on $(hostname):" >&2; grep -vE '"level":"info"|[[:space:]]info[[:space:]]' "$dir/etcdutl.log" | tail -n 8 >&2; exit 1; }
[ -d "$dir/data/member" ] || { echo "etcdutl left no member directory in $dir/data" >&2; exit 1; }
if [ -e "$data" ]; then rm -rf "$data.before-$run"; mv "$data" "$data.before-$run"; fi
mv "$dir/data" "$data" && chmod 0700 "$data" && echo "$run" > "$marker"
echo "bootdeck-etcd restored $name (the previous data is in $data.before-$run)"`;
    KUBELET_UP_SCRIPT = `${LOCK}systemctl enable kubelet >/dev/null 2>&1 || true
systemctl start kubelet
systemctl is-active --quiet kubelet || { echo "the kubelet did not start on $(hostname)" >&2; journalctl -u kubelet -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
echo "bootdeck-kubelet active"`;
    ETCD_STATUS_SCRIPT = `set -u
${ETCDCTL}echo "--- health"; ctl endpoint health --cluster -w json --command-timeout=5s; echo
echo "--- status"; ctl endpoint status --cluster -w json --command-timeout=5s; echo`;
    SELF_HOSTED_RUNNING_SCRIPT = `for app in "$@"; do
  n=0
  for pod in $(crictl pods -q --state ready --namespace kube-system --label "k8s-app=$app" 2>/dev/null); do
    crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && n=$((n + 1))
  done
  echo "$app=$n"
done`;
    TEMP_APISERVER_READY_SCRIPT = `ready=waiting
for pod in $(crictl pods -q --state ready --namespace kube-system --label k8s-app=bootstrap-kube-apiserver 2>/dev/null); do
  crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && ready=ready
done
echo "$ready"`;
    RESTART_CONTAINERS_SCRIPT = `${LOCK}for app in "$@"; do
  pods=$(crictl pods -q --namespace kube-system --label "k8s-app=$app" --state ready 2>/dev/null)
  [ -n "$pods" ] || { echo "no ready pod of $app on $(hostname)" >&2; exit 1; }
  for pod in $pods; do
    old=$(crictl ps -q --pod "$pod" --state running | head -n 1)
    [ -n "$old" ] && crictl stop "$old" >/dev/null
    i=0
    while :; do
      new=$(crictl ps -q --pod "$pod" --state running | head -n 1)
      ready=$(crictl pods -q --id "$pod" --state ready)
      [ -n "$new" ] && [ "$new" != "$old" ] && [ -n "$ready" ] && break
      i=$((i + 1)); [ "$i" -ge 120 ] && { echo "$app did not run again within 2 min on $(hostname)" >&2; exit 1; }
      sleep 1
    done
    echo "restarted $app ($old -> $new)"
  done
done`;
    KUBELET_CERTS_SCRIPT = `${LOCK}pki=/var/lib/kubelet/pki; stamp=$(date +%s)
for f in kubelet.crt kubelet.key; do [ -e "$pki/$f" ] && mv -f "$pki/$f" "$pki/$f.bootdeck-old"; done
if [ "$1" = client ] && [ -e "$pki/kubelet-client-current.pem" ]; then
  cp -L "$pki/kubelet-client-current.pem" "$pki/kubelet-client-$stamp.pem.bootdeck-old" && rm -f "$pki/kubelet-client-current.pem"
fi
systemctl restart kubelet
sleep 3
systemctl is-active --quiet kubelet || { echo "the kubelet did not restart on $(hostname)" >&2; journalctl -u kubelet -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
echo "bootdeck-kubelet restarted with new certificates to come"`;
  }
});

// lib/engine/plans-dr.ts
function buildBackupPlan(def, runId, input) {
  const masters = deriveCluster(def).masters;
  if (!masters.length) throw new PlanError("a backup needs a master");
  const file = snapshotPath(runId);
  return {
    runType: "backup",
    phases: [
      {
        id: "snapshot",
        title: "Snapshot etcd on a healthy member, stream it back, store it encrypted",
        steps: [
          step({
            key: "snapshot/cluster",
            phase: "snapshot",
            action: "etcd-snapshot",
            title: `Snapshot etcd (${masters.map((m) => m.name).join(", then ")})`,
            host: null,
            // The other masters are asked only when the ones before them could not give a snapshot.
            exec: masters.flatMap((m, i) => {
              const when = i === 0 ? "always" : "needed";
              return [exec("save", shellScript(SNAPSHOT_SAVE_SCRIPT, [file], "bootdeck-snapshot"), { host: m.name, when }), exec("fetch", snapshotFetchArgv(file), { host: m.name, when }), exec("discard", snapshotDiscardArgv(file), { host: m.name, when })];
            }),
            describe: [
              `the first master whose member is healthy saves the snapshot; its bytes are encrypted with a new data key into the data directory as ${input.backupId}`,
              `its SHA-256 and size must equal the host's; then retention: the newest ${input.retention.keepLast} backups stay, older ones go after ${input.retention.keepDays} days`
            ],
            params: { backupId: input.backupId, trigger: input.trigger },
            timeoutMs: 20 * MIN
          })
        ]
      }
    ]
  };
}
function checkProfile(def, what) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  if (!caps.criRuntime || caps.checkpoint !== "host") throw new PlanError(`${what} needs a profile with a container runtime (1.24 and later); ${def.spec.kubernetes.version} runs etcd and the control plane another way`);
}
function needAssets(def, assets, selfHosted) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const needed = [{ asset: "auth/kubeconfig", path: "", mode: 0 }];
  const named = (asset) => ({ asset, path: "", mode: 0 });
  if (selfHosted)
    needed.push(...["apiserver", "controller-manager", "scheduler"].map((c) => named(`bootstrap-manifests/bootstrap-${c}.yaml`)), ...controlPlaneFiles([...assets.keys()]), ...checkpointFiles(caps));
  const missing = missingAssets(needed, new Set(assets.keys()));
  if (missing.length) throw new PlanError(`the cluster's asset set lacks ${missing.slice(0, 5).join(", ")}: render the assets again`);
}
function controlPlaneBack(def, runId, assets, masters) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const first = masters[0];
  const leftovers = bootstrapLeftovers([...assets.keys()]);
  const apps = CONTROL_PLANE_COMPONENTS.map((c) => c);
  return [
    {
      id: "control-plane",
      title: "Temporary control plane on the first master, as in the bootstrap; wait for the API",
      steps: [
        step({
          key: `control-plane/${first.name}`,
          phase: "control-plane",
          action: "control-plane",
          title: `Temporary control plane on ${first.name}`,
          host: first.name,
          files: filesOf(controlPlaneFiles([...assets.keys()]), assets),
          exec: [journal()],
          describe: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 5 min)"],
          timeoutMs: 7 * MIN
        })
      ]
    },
    {
      id: "self-hosted-up",
      title: "The kubelets run the self-hosted control plane again (read from etcd through the temporary API server)",
      steps: [
        step({
          key: "self-hosted-up/cluster",
          phase: "self-hosted-up",
          action: "self-hosted-up",
          title: "Self-hosted control plane running on the masters",
          host: null,
          exec: masters.map((m) => exec("running", shellScript(SELF_HOSTED_RUNNING_SCRIPT, apps, "bootdeck-running"), { host: m.name })),
          describe: [`until a self-hosted kube-apiserver runs on every master and a kube-controller-manager and a kube-scheduler on one (deadline 10 min)`],
          timeoutMs: 12 * MIN
        })
      ]
    },
    {
      id: "pivot",
      title: "Pivot again: self-hosted control plane Ready, remove the temporary one, check the takeover",
      steps: [
        step({
          key: "pivot/cluster",
          phase: "pivot",
          action: "pivot",
          title: "Pivot to the self-hosted control plane",
          host: null,
          // The API server's checkpoint goes to the first master with the pivot, as in the bootstrap.
          files: filesOf(checkpointFiles(caps), assets).map((f) => ({ ...f, host: first.name })),
          exec: [exec("present", shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { host: first.name }), exec("remove", locked(runId, REMOVE_SCRIPT, leftovers), { host: first.name }), checkpointEnable(runId, caps, first.name)],
          timeoutMs: 16 * MIN
        })
      ]
    },
    ...masters.length > 1 ? [
      {
        id: "checkpoint",
        title: "The API server checkpoint on the other masters again",
        steps: masters.slice(1).map(
          (m) => step({ key: `checkpoint/${m.name}`, phase: "checkpoint", action: "checkpoint", title: `Checkpoint on ${m.name}`, host: m.name, files: filesOf(checkpointFiles(caps), assets), exec: [checkpointEnable(runId, caps)], timeoutMs: 3 * MIN })
        )
      }
    ] : []
  ];
}
function etcdHealthyStep(masters, minRevision) {
  return step({
    key: "etcd-healthy/cluster",
    phase: "etcd-healthy",
    action: "etcd-healthy",
    title: `etcd: all ${masters.length} members healthy`,
    host: null,
    // The others are asked only when the ones before them do not answer.
    exec: masters.map((m, i) => exec("status", shellScript(ETCD_STATUS_SCRIPT, [], "bootdeck-etcd-status"), { host: m.name, when: i === 0 ? "always" : "needed" })),
    describe: [`until every member answers healthy${minRevision ? ` at revision ${minRevision} or later` : ""} (asked on the first master that answers; deadline 8 min)`],
    params: { members: String(masters.length), ...minRevision ? { minRevision } : {} },
    timeoutMs: 10 * MIN
  });
}
function buildRestorePlan(def, runId, input) {
  checkProfile(def, "a restore");
  const selfHosted = !isStaticControlPlane(def);
  needAssets(def, input.assets, selfHosted);
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const derived = deriveCluster(def);
  const masters = derived.masters;
  const image = imagesFor(caps, def.spec.images.registry).etcd;
  const token = `bootdeck-restore-${runId.slice(4).toLowerCase().replace(/[^a-z0-9]/g, "")}`;
  const snapshot = `${RESTORE_DIR}/snapshot.db`;
  const b = input.backup;
  const cluster = initialCluster(def);
  const phases = [
    {
      id: "upload",
      title: `Copy backup ${b.id} (etcd revision ${b.revision}) to every master and check it; nothing is stopped yet`,
      steps: masters.map(
        (m) => step({
          key: `upload/${m.name}`,
          phase: "upload",
          action: "snapshot-upload",
          title: `Snapshot onto ${m.name}`,
          host: m.name,
          exec: [exec("probe", shellScript(SNAPSHOT_PROBE_SCRIPT, [snapshot], "bootdeck-probe")), exec("upload", locked(runId, SNAPSHOT_UPLOAD_SCRIPT, [snapshot, b.sha256, String(b.size)]))],
          describe: [`stdin of "upload": backup ${b.id} decrypted (${b.size} bytes, sha256 ${b.sha256}), unless the master holds it already`],
          params: { backupId: b.id },
          retries: 1,
          timeoutMs: 20 * MIN
        })
      )
    },
    {
      id: "stop",
      title: "Stop the control plane on every master (checkpoint watchdog, kubelet, every pod): the API is down from here",
      steps: masters.map((m) => step({ key: `stop/${m.name}`, phase: "stop", action: "host-script", title: `Stop ${m.name}`, host: m.name, exec: [exec("stop", locked(runId, STOP_CONTROL_PLANE_SCRIPT, [CHECKPOINT_PATHS.active]))], timeoutMs: 3 * MIN }))
    },
    {
      id: "etcd-restore",
      title: `Restore each member's data from the snapshot (same names and peer URLs, new cluster token ${token})`,
      steps: derived.etcdMembers.map(
        (em) => step({
          key: `etcd-restore/${em.name}`,
          phase: "etcd-restore",
          action: "host-script",
          title: `Restore etcd on ${em.name}`,
          host: em.name,
          exec: [exec("restore", locked(runId, ETCD_RESTORE_SCRIPT, [image, em.name, cluster, token, em.peerUrl, caps.etcdRestoreBumpsRevision ? "bump" : ""]))],
          timeoutMs: 10 * MIN
        })
      )
    },
    {
      id: "etcd-start",
      title: "Start the kubelets: etcd (a static pod) comes back from the restored data",
      steps: [
        ...masters.map((m) => step({ key: `kubelet-up/${m.name}`, phase: "etcd-start", action: "host-script", title: `Kubelet on ${m.name}`, host: m.name, exec: [exec("start", locked(runId, KUBELET_UP_SCRIPT, []))], timeoutMs: 2 * MIN }))
      ]
    },
    { id: "etcd-healthy", title: "etcd healthy on every member, at the snapshot's revision", steps: [etcdHealthyStep(masters, b.revision)] },
    ...selfHosted ? controlPlaneBack(def, runId, input.assets, masters) : [apiBackPhase()],
    verifyPhase(masters)
  ];
  return { runType: "restore", phases, lock: hostLock(runId, masters.map((m) => m.name)) };
}
function apiBackPhase() {
  return {
    id: "api",
    title: "The API servers answer again (static pods)",
    steps: [step({ key: "api/cluster", phase: "api", action: "api-healthy", title: "API answers", host: null, describe: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 8 min)"], timeoutMs: 10 * MIN })]
  };
}
function buildRecoverPlan(def, runId, input) {
  checkProfile(def, "a recovery");
  const selfHosted = !isStaticControlPlane(def);
  needAssets(def, input.assets, selfHosted);
  const masters = deriveCluster(def).masters;
  return {
    runType: "recover",
    phases: [
      {
        id: "kubelet",
        title: "The kubelet runs on every master (etcd and the static pods)",
        steps: masters.map((m) => step({ key: `kubelet-up/${m.name}`, phase: "kubelet", action: "host-script", title: `Kubelet on ${m.name}`, host: m.name, exec: [exec("start", locked(runId, KUBELET_UP_SCRIPT, []))], timeoutMs: 2 * MIN }))
      },
      { id: "etcd-healthy", title: "etcd healthy on every member (its current state is what comes back)", steps: [etcdHealthyStep(masters)] },
      ...selfHosted ? controlPlaneBack(def, runId, input.assets, masters) : [apiBackPhase()],
      verifyPhase()
    ],
    lock: hostLock(runId, masters.map((m) => m.name))
  };
}
var snapshotPath, initialCluster, verifyPhase;
var init_plans_dr = __esm({
  "lib/engine/plans-dr.ts"() {
    "use strict";
    init_capabilities();
    init_checkpoint();
    init_definition();
    init_derive();
    init_quote();
    init_kube();
    init_dr_scripts();
    init_host_scripts();
    init_host_files();
    init_plans();
    snapshotPath = (runId) => `${ETCD_DIRS.data}/bootdeck-snapshot-${runId}.db`;
    initialCluster = (def) => deriveCluster(def).etcdMembers.map((m) => `${m.name}=${m.peerUrl}`).join(",");
    verifyPhase = (restarted = []) => ({
      id: "verify",
      title: "Verify: every node's kubelet back (lease renewed) and Ready, pods Running and Ready",
      steps: [
        step({
          key: "verify/cluster",
          phase: "verify",
          action: "verify-recovered",
          title: "Verify the cluster",
          host: null,
          describe: [`until every node renews its lease and is Ready and every pod is Running and Ready${restarted.length ? ` (on ${restarted.map((h) => h.name).join(", ")}: Ready since the run began)` : ""} (deadline 5 min)`],
          params: { restartedHosts: restarted.map((h) => h.name).join(",") },
          timeoutMs: 6 * MIN
        })
      ]
    });
  }
});

// lib/certs/files.ts
function liveCertificateFiles(def, role) {
  const files = [
    { path: "/var/lib/kubelet/pki/kubelet.crt", what: "kubelet serving certificate (self-signed by the kubelet)" },
    { path: "/var/lib/kubelet/pki/kubelet-client-current.pem", what: "kubelet client certificate (through a CSR)" }
  ];
  if (role === "master") {
    const apiserver = isStaticControlPlane(def) ? `${STATIC_SECRETS_HOST_DIR}/apiserver.crt` : `${CHECKPOINT_PATHS.secrets}/apiserver.crt`;
    files.push(
      { path: "/etc/kubernetes/kubelet.conf", what: "kubelet client certificate (the master's kubeconfig)" },
      { path: "/etc/kubernetes/etcd/server.crt", what: "etcd serving certificate" },
      { path: "/etc/kubernetes/etcd/peer.crt", what: "etcd peer certificate" },
      { path: apiserver, what: isStaticControlPlane(def) ? "API server certificate (static control plane)" : "API server certificate (its checkpoint's copy)" }
    );
  }
  return files;
}
function parseCertFiles(out) {
  const found = /* @__PURE__ */ new Map();
  for (const part of out.split(/^--- /m).slice(1)) {
    const nl = part.indexOf("\n");
    const path22 = part.slice(0, nl).trim();
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(part.slice(nl + 1))?.[0];
    if (pem) found.set(path22, `${pem}
`);
  }
  return found;
}
var CERT_FILES_SCRIPT, certFilesArgv, liveCertificatesArgv;
var init_files = __esm({
  "lib/certs/files.ts"() {
    "use strict";
    init_checkpoint();
    init_bootstrap_manifests();
    init_definition();
    init_quote();
    CERT_FILES_SCRIPT = `for f in "$@"; do
  [ -f "$f" ] || continue
  echo "--- $f"
  case "$f" in
    *.conf) grep -m1 'client-certificate-data:' "$f" | awk '{print $2}' | base64 -d 2>/dev/null ;;
    *) sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' "$f" ;;
  esac
done
exit 0`;
    certFilesArgv = (paths) => shellScript(CERT_FILES_SCRIPT, [...paths], "bootdeck-certs");
    liveCertificatesArgv = (def, role) => certFilesArgv(liveCertificateFiles(def, role).map((f) => f.path));
  }
});

// lib/engine/plans-certs.ts
function tempApiserverFiles(assetPaths) {
  return [
    ...Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${BOOTSTRAP_SECRETS_HOST_DIR}/${rel}`, mode: SECRET2 })),
    { asset: "bootstrap-manifests/bootstrap-apiserver.yaml", path: `${KUBELET_PATHS.staticPods}/bootstrap-apiserver.yaml`, mode: 420 }
  ];
}
function buildRotationPlan(def, runId, input) {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  if (!caps.criRuntime || caps.checkpoint !== "host") throw new PlanError(`certificate rotation needs a profile with a container runtime (1.24 and later); ${def.spec.kubernetes.version} is not one`);
  const derived = deriveCluster(def);
  const masters = derived.masters;
  const hosts = [...masters, ...derived.workers];
  const paths = [...input.assets.keys()];
  const selfHosted = !isStaticControlPlane(def);
  const files = (list) => filesOf(list, input.assets);
  const chain = (items, make) => items.map((it, i) => make(it, i > 0 ? [items[i - 1].key] : []));
  const etcd = {
    id: "etcd",
    title: "etcd's serving and peer certificates, one member at a time (etcd reads them on every new connection)",
    steps: chain(
      masters.map((m) => ({ key: `etcd/${m.name}`, m })),
      ({ key, m }, after) => step({
        key,
        phase: "etcd",
        action: "etcd-certs",
        title: `etcd certificates on ${m.name}`,
        host: m.name,
        dependsOn: after,
        files: files(Object.entries(etcdMemberFiles(m.name)).map(([asset, path22]) => ({ asset, path: path22, mode: SECRET2 }))),
        exec: [exec("status", shellScript(ETCD_STATUS_SCRIPT, [], "bootdeck-etcd-status"))],
        describe: [`then until ${m.address}:2379 serves serial ${input.serials.etcd[m.name] ?? "?"} and every member is healthy`],
        params: { serial: input.serials.etcd[m.name] ?? "", members: String(masters.length) },
        timeoutMs: 6 * MIN
      })
    )
  };
  const secretsFiles = selfHosted ? Object.entries(checkpointSecretFiles({ caps })).map(([asset, path22]) => ({ asset, path: path22, mode: SECRET2 })) : staticControlPlaneFiles(paths).filter((f) => !f.asset.startsWith("static-manifests/"));
  const secrets = {
    id: "secrets",
    title: selfHosted ? "The API server's and controller-manager's Secrets, and every master's checkpoint copy" : "The control plane's certificates on every master",
    steps: [
      ...selfHosted ? [
        step({
          key: "secrets/cluster",
          phase: "secrets",
          action: "update-secrets",
          title: "Secrets kube-system/kube-apiserver and kube-controller-manager",
          host: null,
          describe: SECRET_MANIFESTS.map((a) => `PUT the Secret of ${a} (sha256 ${input.assets.get(a)?.sha256 ?? "?"}) through the API; the kubelets then refresh the files they mount`),
          params: { manifests: SECRET_MANIFESTS.join(",") },
          timeoutMs: 3 * MIN
        })
      ] : [],
      ...masters.map((m) => step({ key: `secrets/${m.name}`, phase: "secrets", action: "push-files", title: `${selfHosted ? "Checkpoint" : "Control-plane"} certificates on ${m.name}`, host: m.name, files: files(secretsFiles), timeoutMs: 3 * MIN }))
    ]
  };
  const serving = {
    id: "serving",
    title: "Every API server serves the renewed certificate (reloaded from disk, no restart)",
    steps: [
      step({
        key: "serving/cluster",
        phase: "serving",
        action: "apiserver-serial",
        title: "API servers serve the new certificate",
        host: null,
        describe: [`until ${masters.map((m) => `${m.address}:${def.spec.apiEndpoint.port}`).join(", ")} serve serial ${input.serials.apiserver}, the API probed meanwhile (deadline 5 min)`],
        params: { serial: input.serials.apiserver },
        timeoutMs: 7 * MIN
      })
    ]
  };
  const apps = selfHosted ? ["kube-apiserver"] : CONTROL_PLANE_COMPONENTS.map((c) => c);
  const temp = tempApiserverFiles(paths);
  const restart = {
    id: "restart",
    title: "One master at a time: a temporary API server beside it while its control plane restarts onto the new client certificates",
    steps: chain(
      masters.map((m) => ({ key: `restart/${m.name}`, m })),
      ({ key, m }, after) => step({
        key,
        phase: "restart",
        action: "apiserver-restart",
        title: `Restart the control plane on ${m.name}`,
        host: m.name,
        dependsOn: after,
        files: files(temp),
        exec: [
          exec("temp-ready", shellScript(TEMP_APISERVER_READY_SCRIPT, [], "bootdeck-temp")),
          exec("restart", locked(runId, RESTART_CONTAINERS_SCRIPT, apps)),
          exec("remove", locked(runId, REMOVE_SCRIPT, temp.map((f) => f.path).filter((p2) => p2.endsWith(".yaml")).concat([BOOTSTRAP_SECRETS_HOST_DIR])))
        ],
        describe: [`the files start the temporary API server; once it is ready, restart ${apps.join(", ")}; then remove it (the API probed meanwhile)`],
        timeoutMs: 8 * MIN
      })
    )
  };
  const kubelets = {
    id: "kubelets",
    title: "The kubelets, one at a time: masters' kubeconfig, new serving certificates, workers' client certificates through CSRs",
    steps: chain(
      hosts.map((h) => ({ key: `kubelets/${h.name}`, h })),
      ({ key, h }, after) => step({
        key,
        phase: "kubelets",
        action: "kubelet-certs",
        title: `Kubelet certificates on ${h.name}`,
        host: h.name,
        dependsOn: after,
        files: h.role === "master" ? files([{ asset: "auth/kubeconfig", path: KUBELET_PATHS.kubeconfig, mode: SECRET2 }]) : [],
        exec: [
          exec("renew", locked(runId, KUBELET_CERTS_SCRIPT, [h.role === "worker" ? "client" : "serving"])),
          // A worker's client certificate, read before and after: a new one comes through a CSR.
          ...h.role === "worker" ? [exec("client-cert", certFilesArgv([KUBELET_CLIENT_CERT]))] : []
        ],
        describe: [`then until ${h.name} renews its lease and is Ready${h.role === "worker" ? " with a client certificate from an approved CSR" : ""}`],
        timeoutMs: 5 * MIN
      })
    )
  };
  const verify = {
    id: "verify",
    title: "Read every certificate from the hosts again and compare with the renewed set",
    steps: [
      step({
        key: "verify/cluster",
        phase: "verify",
        action: "certs-verify",
        title: "Certificates on the hosts",
        host: null,
        exec: hosts.map((h) => exec("certs", liveCertificatesArgv(def, h.role), { host: h.name })),
        describe: ["what each host serves on the kubelet's port (and a master on the API server's and etcd's), read through a TLS handshake"],
        params: { apiserver: input.serials.apiserver },
        timeoutMs: 3 * MIN
      })
    ]
  };
  const missing = [...selfHosted ? SECRET_MANIFESTS : [], ...temp.map((f) => f.asset)].filter((a) => !input.assets.has(a));
  if (missing.length) throw new PlanError(`the renewed asset set lacks ${missing.join(", ")}`);
  return { runType: "rotate-certs", phases: [etcd, secrets, serving, restart, ...tokenPhase(def, hosts), kubelets, verify], lock: hostLock(runId, hosts.map((h) => h.name)) };
}
var SECRET2, KUBELET_CLIENT_CERT, SECRET_MANIFESTS;
var init_plans_certs = __esm({
  "lib/engine/plans-certs.ts"() {
    "use strict";
    init_checkpoint();
    init_capabilities();
    init_context();
    init_render();
    init_definition();
    init_derive();
    init_files();
    init_quote();
    init_dr_scripts();
    init_host_scripts();
    init_kube();
    init_host_files();
    init_plans();
    SECRET2 = 384;
    KUBELET_CLIENT_CERT = "/var/lib/kubelet/pki/kubelet-client-current.pem";
    SECRET_MANIFESTS = ["manifests/kube-apiserver-secret.yaml", "manifests/kube-controller-manager-secret.yaml"];
  }
});

// lib/assets/renew.ts
async function renderRenewed(input, previous, options) {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new RenderValidationError(v.errors);
  const def = v.definition;
  const plan = certificatePlan(def, deriveCluster(def), capabilitiesFor(def.spec.kubernetes.version));
  const need2 = (path22) => {
    const c = previous.get(path22);
    if (c === void 0) throw new RenewError(`the asset set has no ${path22}: a renewal keeps the cluster's keys, so the set must be whole (render it again only to start over)`);
    return c;
  };
  for (const e of plan.filter(isCertEntry)) {
    need2(`${e.stem}.key`);
    need2(`${e.stem}.crt`);
  }
  let keep;
  try {
    keep = { ...keptPkiFrom(previous), reissue: "leaves" };
  } catch (err) {
    if (err instanceof NothingToKeepError) throw new RenewError(err.message);
    throw err;
  }
  const keyType = new import_node_crypto14.X509Certificate(need2("tls/ca.crt")).publicKey.asymmetricKeyType === "ec" ? "ecdsa" : "rsa";
  const assets = await renderAssets(def, { keyType, keep, leafValidityDays: options.leafValidityDays, caValidityDays: options.caValidityDays, now: options.now });
  const report = { keptCas: plan.filter(isCertEntry).filter((e) => e.isCa).map((e) => e.name), renewed: [] };
  for (const e of plan.filter(isCertEntry)) {
    const path22 = `${e.stem}.crt`;
    const after = assets.find((a) => a.path === path22)?.content;
    if (!after) throw new RenewError(`the renewal did not render ${path22}`);
    if (e.isCa) {
      if (after !== previous.get(path22)) throw new RenewError(`the renewal changed the CA ${path22}`);
      continue;
    }
    const old = new import_node_crypto14.X509Certificate(need2(path22));
    const now = new import_node_crypto14.X509Certificate(after);
    report.renewed.push({ path: path22, oldSerial: old.serialNumber, newSerial: now.serialNumber, notAfter: new Date(now.validTo).toISOString() });
  }
  return { assets, report };
}
var import_node_crypto14, RenewError;
var init_renew = __esm({
  "lib/assets/renew.ts"() {
    "use strict";
    import_node_crypto14 = require("node:crypto");
    init_definition();
    init_derive();
    init_capabilities();
    init_certificates();
    init_keep();
    init_render();
    init_types();
    RenewError = class extends Error {
    };
  }
});

// lib/engine/plan-run-dr.ts
async function planDrRun(input) {
  const { clusterId: clusterId2, body, id } = input;
  const definition = input.definition.parsed;
  let plan;
  let assetSetId;
  try {
    if (body.type === "backup") {
      const policy = await getBackupPolicy({ clusterId: clusterId2 });
      plan = buildBackupPlan(definition, id, { backupId: newId("bk"), trigger: input.trigger ?? "manual", retention: { keepLast: policy.keepLast, keepDays: policy.keepDays } });
    } else if (body.type === "rotate-certs") {
      const renewed = await renewAssetSet(clusterId2, definition, body.leafValidityDays);
      assetSetId = renewed.id;
      plan = buildRotationPlan(definition, id, { assets: renewed.index, serials: renewed.serials });
    } else {
      const assets = await latestAssets(clusterId2);
      assetSetId = assets.id;
      if (body.type === "restore") {
        const b = await getBackupOrThrow({ clusterId: clusterId2, backupId: body.backup });
        plan = buildRestorePlan(definition, id, { backup: { id: b.id, sha256: b.sha256, size: b.size, revision: b.revision, createdAt: b.createdAt.toISOString() }, assets: assets.index });
      } else plan = buildRecoverPlan(definition, id, { assets: assets.index });
    }
  } catch (err) {
    if (err instanceof PlanError || err instanceof RenewError) throw unprocessable(err.message);
    if (err instanceof RenderValidationError) throw unprocessable(`the cluster's definition does not render: ${err.problems.map((p2) => `${p2.path}: ${p2.message}`).join("; ")}`);
    throw err;
  }
  return createRun({ id, clusterId: clusterId2, type: body.type, plan, createdById: input.createdById, assetSetId, definition: { json: input.definition.json, revision: input.definition.revision } });
}
async function latestAssets(clusterId2) {
  const setId = await runningAssetSet(clusterId2);
  if (!setId) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  const rows = await getDb().asset.findMany({ where: { assetSetId: setId }, select: { path: true, sha256: true, size: true } });
  return { id: setId, index: new Map(rows.map((r2) => [r2.path, { sha256: r2.sha256, size: r2.size }])) };
}
async function renewAssetSet(clusterId2, definition, leafValidityDays) {
  const db = getDb();
  const setId = await runningAssetSet(clusterId2);
  const set = setId ? await db.assetSet.findUnique({ where: { id: setId }, select: { id: true, version: true, options: true, assets: { select: { path: true, content: true, sensitive: true } } } }) : null;
  if (!set) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  const previous = new Map(set.assets.map((a) => [a.path, a.sensitive ? decryptSecret(a.content) : a.content]));
  const options = JSON.parse(set.options);
  const leaf = leafValidityDays ?? options.leafValidityDays ?? 365;
  const { assets } = await renderRenewed(definition, previous, { leafValidityDays: leaf, caValidityDays: options.caValidityDays ?? 3650 });
  const saved = await saveAssetSet({
    clusterId: clusterId2,
    assets,
    options: { keyType: options.keyType ?? "rsa", caValidityDays: options.caValidityDays ?? 3650, leafValidityDays: leaf, importedCa: options.importedCa ?? false, kubernetesVersion: definition.spec.kubernetes.version, keptPkiOf: set.version }
  });
  const content = new Map(assets.map((a) => [a.path, a.content]));
  const serial = (path22) => new import_node_crypto15.X509Certificate(content.get(path22) ?? "").serialNumber;
  return {
    id: saved.id,
    index: assetIndexOf(assets),
    serials: { apiserver: serial("tls/apiserver.crt"), etcd: Object.fromEntries(definition.spec.hosts.filter((h) => h.role === "master").map((m) => [m.name, serial(`tls/etcd/server-${m.name}.crt`)])) }
  };
}
var import_node_crypto15, isDrBody;
var init_plan_run_dr = __esm({
  "lib/engine/plan-run-dr.ts"() {
    "use strict";
    init_store2();
    init_client2();
    init_errors();
    init_ids();
    init_dr_schemas();
    init_plans_dr();
    init_plans_certs();
    init_renew();
    init_store();
    init_cipher();
    import_node_crypto15 = require("node:crypto");
    init_types();
    init_plans();
    init_plan_run_day2();
    init_runs();
    isDrBody = (body) => isDrRunType(body.type);
  }
});

// lib/engine/plan-run.ts
async function latestAssets2(clusterId2, renderIfNone, version) {
  const db = getDb();
  if (renderIfNone) await awaitRunningRender(clusterId2);
  const recent = await db.assetSet.findMany({ where: { clusterId: clusterId2 }, orderBy: { version: "desc" }, take: 20, select: { id: true, options: true } });
  let set = recent.find((s2) => [void 0, version].includes(JSON.parse(s2.options).kubernetesVersion));
  if (!set && renderIfNone) set = { id: (await renderAndSaveAssetSet({ clusterId: clusterId2, options: {} })).id };
  if (!set) return void 0;
  const rows = await db.asset.findMany({ where: { assetSetId: set.id }, select: { path: true, sha256: true, size: true } });
  return { id: set.id, index: new Map(rows.map((r2) => [r2.path, { sha256: r2.sha256, size: r2.size }])) };
}
async function planRun({ clusterId: clusterId2, body, createdById, by: by2 }) {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId2 }, select: { definition: true, revision: true } });
  if (!cluster) throw notFound("Cluster");
  const definition = JSON.parse(cluster.definition);
  const id = newId("run");
  if (isDay2Body(body)) return planDay2Run({ clusterId: clusterId2, body, id, createdById, by: by2 });
  if (isDrBody(body)) return planDrRun({ clusterId: clusterId2, definition: { parsed: definition, json: cluster.definition, revision: cluster.revision }, body, id, createdById });
  const assets = body.type === "check" ? void 0 : await latestAssets2(clusterId2, body.type !== "reset", definition.spec.kubernetes.version);
  let plan;
  try {
    if (body.type === "check") plan = buildCheckPlan(definition);
    else if (body.type === "bootstrap") plan = buildBootstrapPlan(definition, id, assets?.index ?? /* @__PURE__ */ new Map());
    else plan = buildResetPlan(definition, id, [...assets?.index.keys() ?? []], body.hosts);
  } catch (err) {
    if (err instanceof PlanError) throw unprocessable(err.message);
    throw err;
  }
  const runId = await createRun({ id, clusterId: clusterId2, type: body.type, plan, createdById, assetSetId: assets?.id, definition: { json: cluster.definition, revision: cluster.revision } });
  if ("acceptWarnings" in body && body.acceptWarnings) await acceptRunWarnings({ runId, by: by2 ?? "unknown" });
  return runId;
}
var init_plan_run = __esm({
  "lib/engine/plan-run.ts"() {
    "use strict";
    init_render_jobs();
    init_store();
    init_client2();
    init_errors();
    init_ids();
    init_plans();
    init_runs();
    init_plan_run_day2();
    init_plan_run_dr();
  }
});

// lib/db/storage.ts
function isDiskFull(err, depth = 0) {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err;
  if (e.code === "SQLITE_FULL") return true;
  if (typeof e.message === "string" && /database or disk is full|SQLITE_FULL/.test(e.message)) return true;
  if (e.meta && JSON.stringify(e.meta).includes("SQLITE_FULL")) return true;
  return isDiskFull(e.cause, depth + 1);
}
function noteDiskFull() {
  state.fullSince ??= /* @__PURE__ */ new Date();
}
function noteWriteOk() {
  const since = state.fullSince;
  state.fullSince = null;
  return since;
}
var holder3, state;
var init_storage = __esm({
  "lib/db/storage.ts"() {
    "use strict";
    init_errors();
    holder3 = globalThis;
    state = holder3.bootdeckStorage ??= { fullSince: null };
  }
});

// lib/ssh/backoff.ts
function backoffDelay(retry, opts, random = Math.random) {
  const raw2 = Math.min(opts.maxMs, opts.baseMs * 2 ** (retry - 1));
  return Math.round(raw2 * (1 - opts.jitter * random()));
}
async function withRetry(fn, opts) {
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.attempts || !opts.isRetryable(err) || opts.signal?.aborted) throw err;
      const delay = backoffDelay(attempt, opts);
      opts.onRetry?.(err, attempt, delay);
      await sleep(delay, opts.signal);
    }
  }
}
function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
var DEFAULT_BACKOFF;
var init_backoff = __esm({
  "lib/ssh/backoff.ts"() {
    "use strict";
    DEFAULT_BACKOFF = { attempts: 3, baseMs: 250, maxMs: 4e3, jitter: 0.2 };
  }
});

// lib/ssh/errors.ts
function isSshError(err) {
  return err instanceof SshError;
}
function describeError(d) {
  const at = d.host;
  switch (d.kind) {
    case "unreachable":
      return `${at}: host unreachable at ${d.address}${d.cause ? ` (${d.cause})` : ""}. Check that it is powered on, the address is right, and no firewall or routing drops SSH.`;
    case "refused":
      return `${at}: connection refused at ${d.address}. The host is up but nothing listens on the SSH port: check that sshd runs and the port is right.`;
    case "timeout":
      return d.phase === "connect" ? `${at}: no SSH handshake within ${d.afterMs} ms. The host may be down, overloaded, or a firewall drops packets; check the network path.` : `${at}: step ${d.step ?? "(none)"} timed out after ${d.afterMs} ms; the remote command was stopped. Check the host's load or raise the step's timeout.`;
    case "auth-failed":
      return `${at}: authentication failed for user "${d.user}"${d.methods.length ? ` (tried: ${d.methods.join(", ")})` : ""}. Check that the key is in ~${d.user}/.ssh/authorized_keys, or the password/passphrase.`;
    case "host-key-changed":
      return `${at}: host key changed \u2014 refusing to connect. Pinned ${d.pinned}, offered ${d.offered}. This can be a machine-in-the-middle. ${REPIN_HINT}`;
    case "sudo-needs-password":
      return `${at}: sudo asks user "${d.user}" for a password${d.step ? ` (step ${d.step})` : ""}. Bootdeck runs "sudo -n" and cannot type one: give the user NOPASSWD sudo (e.g. "${d.user} ALL=(ALL) NOPASSWD:ALL" in /etc/sudoers.d/) or connect as root.`;
    case "command-failed": {
      const how = d.exitCode === null ? `killed by signal ${d.signal ?? "?"}` : `exit code ${d.exitCode}`;
      const tail = d.stderrTail.length ? `
last stderr lines:
${d.stderrTail.join("\n")}` : "";
      return `${at}: step ${d.step ?? "(none)"} failed with ${how}: ${truncate(d.command, 200)}${tail}`;
    }
    case "cancelled":
      return `${at}: step ${d.step ?? "(none)"} cancelled; the remote command was stopped.`;
  }
}
function truncate(s2, n) {
  return s2.length <= n ? s2 : `${s2.slice(0, n)}\u2026 (${s2.length} chars)`;
}
function classifyConnectError(err, ctx) {
  if (err instanceof SshError) return err;
  const e = err ?? {};
  const msg = e.message ?? String(err);
  if (ctx.offeredKey && ctx.pinnedKey && ctx.offeredKey !== ctx.pinnedKey) {
    return new SshError({ kind: "host-key-changed", host: ctx.host, pinned: ctx.pinnedKey, offered: ctx.offeredKey }, { cause: err });
  }
  if (e.level === "client-authentication" || /All configured authentication methods failed/i.test(msg)) {
    return new SshError({ kind: "auth-failed", host: ctx.host, user: ctx.user, methods: [] }, { cause: err });
  }
  if (e.level === "client-timeout" || e.code === "ETIMEDOUT" || /Timed out while waiting for handshake/i.test(msg)) {
    return new SshError({ kind: "timeout", host: ctx.host, phase: "connect", afterMs: ctx.timeoutMs }, { cause: err });
  }
  if (e.code === "ECONNREFUSED" || /\bConnection refused\b/i.test(msg)) {
    return new SshError({ kind: "refused", host: ctx.host, address: ctx.address }, { cause: err });
  }
  return new SshError(
    { kind: "unreachable", host: ctx.host, address: ctx.address, cause: e.code ?? msg },
    { cause: err }
  );
}
function isSudoPasswordPrompt(stderr) {
  return /^sudo: (a password is required|a terminal is required)/m.test(stderr);
}
var RETRYABLE, SshError, REPIN_HINT;
var init_errors2 = __esm({
  "lib/ssh/errors.ts"() {
    "use strict";
    RETRYABLE = {
      unreachable: true,
      refused: true,
      timeout: true,
      "auth-failed": false,
      "host-key-changed": false,
      "sudo-needs-password": false,
      "command-failed": false,
      cancelled: false
    };
    SshError = class extends Error {
      detail;
      kind;
      host;
      retryable;
      constructor(detail, options) {
        super(describeError(detail), options);
        this.name = "SshError";
        this.detail = detail;
        this.kind = detail.kind;
        this.host = detail.host;
        this.retryable = RETRYABLE[detail.kind] && !(detail.kind === "timeout" && detail.phase === "command");
      }
    };
    REPIN_HINT = 'If the host was legitimately reinstalled, verify the new fingerprint out of band (on the host: `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`), then re-pin it: the host\'s page \u2192 "Re-pin host key", or `bootdeck host repin CLUSTER HOST`.';
  }
});

// lib/ssh/host-key.ts
function fingerprint(keyBlob) {
  return `SHA256:${(0, import_node_crypto16.createHash)("sha256").update(keyBlob).digest("base64").replace(/=+$/, "")}`;
}
function decideHostKey(policy, offered) {
  if (policy.pinned) {
    return normalise(policy.pinned) === offered ? { accept: true, firstContact: false } : { accept: false, reason: "changed" };
  }
  if (policy.requirePinned) return { accept: false, reason: "unpinned" };
  return { accept: true, firstContact: true };
}
function normalise(pin) {
  const body = pin.trim().replace(/^SHA256:/, "").replace(/=+$/, "");
  return `SHA256:${body}`;
}
var import_node_crypto16;
var init_host_key = __esm({
  "lib/ssh/host-key.ts"() {
    "use strict";
    import_node_crypto16 = require("node:crypto");
  }
});

// lib/ssh/connection.ts
function connectHost(host3, opts) {
  const address2 = `${host3.address}:${host3.port ?? 22}`;
  return new Promise((resolve, reject) => {
    const client = new import_ssh22.Client();
    let offered;
    let settled = false;
    let keyError;
    const finish = (err, ok) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      if (ok) return resolve(ok);
      client.end();
      reject(
        keyError ?? classifyConnectError(err, {
          host: host3.id,
          address: address2,
          user: host3.user,
          timeoutMs: opts.connectTimeoutMs,
          offeredKey: offered,
          pinnedKey: host3.hostKey.pinned
        })
      );
    };
    const onAbort = () => finish(new SshError({ kind: "cancelled", host: host3.id }));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const config2 = {
      host: host3.address,
      port: host3.port ?? 22,
      username: host3.user,
      readyTimeout: opts.connectTimeoutMs,
      keepaliveInterval: opts.keepaliveIntervalMs,
      keepaliveCountMax: opts.keepaliveCountMax,
      sock: opts.sock,
      hostVerifier: (key, verify) => {
        offered = fingerprint(key);
        const decision = decideHostKey(host3.hostKey, offered);
        if (!decision.accept) {
          keyError = decision.reason === "changed" ? new SshError({ kind: "host-key-changed", host: host3.id, pinned: host3.hostKey.pinned ?? "", offered }) : new SshError({ kind: "host-key-changed", host: host3.id, pinned: "(none: pinning required)", offered });
          return verify(false);
        }
        if (!decision.firstContact || !host3.hostKey.onFirstContact) return verify(true);
        Promise.resolve(host3.hostKey.onFirstContact(offered)).then(
          () => verify(true),
          (err) => {
            keyError = new SshError(
              { kind: "unreachable", host: host3.id, address: address2, cause: `recording the host key failed: ${String(err)}` },
              { cause: err }
            );
            verify(false);
          }
        );
      }
    };
    switch (host3.auth.kind) {
      case "key":
        config2.privateKey = host3.auth.privateKey;
        config2.passphrase = host3.auth.passphrase;
        break;
      case "password":
        config2.password = host3.auth.password;
        break;
      case "agent":
        config2.agent = host3.auth.socket ?? process.env.SSH_AUTH_SOCK;
        break;
    }
    client.once("ready", () => {
      client.setNoDelay(true);
      finish(void 0, client);
    });
    client.once("error", (err) => finish(err));
    client.once("close", () => finish(new Error("connection closed during handshake")));
    try {
      client.connect(config2);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      reject(new SshError({ kind: "auth-failed", host: host3.id, user: host3.user, methods: [`${host3.auth.kind}: ${msg}`] }, { cause: err }));
    }
  });
}
function forwardThrough(bastion2, target, bastionId) {
  const address2 = `${target.address}:${target.port ?? 22}`;
  return new Promise((resolve, reject) => {
    bastion2.forwardOut("127.0.0.1", 0, target.address, target.port ?? 22, (err, stream) => {
      if (err) {
        const refused = /refused/i.test(err.message);
        return reject(
          refused ? new SshError({ kind: "refused", host: target.id, address: address2 }, { cause: err }) : new SshError({ kind: "unreachable", host: target.id, address: address2, cause: `via bastion ${bastionId}: ${err.message}` }, { cause: err })
        );
      }
      resolve(stream);
    });
  });
}
var import_ssh22;
var init_connection = __esm({
  "lib/ssh/connection.ts"() {
    "use strict";
    import_ssh22 = require("ssh2");
    init_errors2();
    init_host_key();
  }
});

// lib/ssh/lines.ts
var LineSplitter;
var init_lines = __esm({
  "lib/ssh/lines.ts"() {
    "use strict";
    LineSplitter = class {
      constructor(emit) {
        this.emit = emit;
      }
      emit;
      partial = "";
      decoder = new TextDecoder("utf-8", { fatal: false });
      push(chunk) {
        const text = this.partial + (typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }));
        const parts = text.split("\n");
        this.partial = parts.pop() ?? "";
        for (const p2 of parts) this.emit(p2.endsWith("\r") ? p2.slice(0, -1) : p2);
      }
      flush() {
        const rest = this.partial + this.decoder.decode();
        this.partial = "";
        if (rest.length > 0) this.emit(rest);
      }
    };
  }
});

// lib/ssh/scripts.ts
var RUN_WRAPPER, UPLOAD_PROBE, UPLOAD_APPLY;
var init_scripts = __esm({
  "lib/ssh/scripts.ts"() {
    "use strict";
    RUN_WRAPPER = `echo "bootdeck-pid $$" >&2
exec 3<&0
setsid "$@" <&3 3<&- &
p=$!
exec 3<&-
stop() {
  kill -TERM "-$p" 2>/dev/null || exit 143
  i=0
  while [ "$i" -lt 10 ] && kill -0 "-$p" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "-$p" 2>/dev/null
  exit 143
}
trap stop TERM HUP INT
wait "$p"`;
    UPLOAD_PROBE = `n=$#
for f; do
  if [ -f "$f" ]; then set -- "$@" "$f"; printf y; else printf n; fi
done
echo
shift "$n"
if [ "$#" -gt 0 ]; then
  stat --printf '%a %U:%G\\n' -- "$@"
  sha256sum -z -- "$@"
fi`;
    UPLOAD_APPLY = `set -eu
sums=$1; want=$2; stage=$3; nd=$4; nt=$5; shift 5
on_dirs() { c=$1; shift; n=$#; i=0
  for a; do i=$((i + 1)); if [ "$i" -le "$nd" ]; then set -- "$@" "$a"; fi; done
  shift "$n"; "$c" "$@"; }
on_temps() { c=$1; shift; shift "$nd"; "$c" "$@"; }
mkstages() { for d; do mkdir -p -m 700 -- "$d/$stage"; done; }
rmstages() { for d; do rm -rf -- "$d/$stage"; done; }
movein() { for d; do find "$d/$stage" -mindepth 1 -maxdepth 1 -exec mv -f -t "$d" -- {} +; rmdir -- "$d/$stage"; done; }
syncfs_all() { sync -f -- "$@"; }
stat_all() { stat --printf '%a %U:%G\\n' -- "$@"; }
fail() { on_dirs rmstages "$@"; echo "bootdeck-upload: $msg" >&2; exit "$code"; }
on_dirs mkstages "$@"
if ! tar -x -f - -C / --same-owner --same-permissions; then msg="tar extraction failed"; code=90; fail "$@"; fi
if ! printf '%s' "$sums" | sha256sum -c --quiet --strict - >&2; then msg="checksum mismatch after transfer"; code=91; fail "$@"; fi
got=$(on_temps stat_all "$@")
if [ "$got" != "$want" ]; then msg="mode/owner not as requested: wanted [$want] got [$got] (does the owner exist on this host?)"; code=92; fail "$@"; fi
on_dirs syncfs_all "$@"
on_dirs movein "$@"
on_dirs syncfs_all "$@"
echo "bootdeck-upload: wrote $nt"`;
  }
});

// lib/ssh/exec.ts
function buildRemoteCommand(argv, user2) {
  if (argv.length === 0) throw new QuoteError("cannot run an empty command");
  const wrapped = ["sh", "-c", RUN_WRAPPER, "bootdeck-run", ...argv];
  const line2 = shellCommand(user2 === "root" ? wrapped : ["sudo", "-n", "--", ...wrapped]);
  if (Buffer.byteLength(line2) > MAX_COMMAND_BYTES) {
    throw new QuoteError(
      `command line too long: ${Buffer.byteLength(line2)} bytes once quoted, the remote shell accepts at most ${MAX_COMMAND_BYTES}; pass large data on stdin or upload it as a file`
    );
  }
  return line2;
}
function buildKillCommand(pid, user2) {
  if (!/^\d+$/.test(pid)) throw new Error(`not a pid: ${pid}`);
  const argv = ["kill", "-TERM", pid];
  return shellCommand(user2 === "root" ? argv : ["sudo", "-n", "--", ...argv]);
}
function sendSignal(ch, name) {
  const internals = ch;
  const id = internals.outgoing?.id;
  const st = internals.outgoing?.state;
  if (id === void 0 || st !== "open" && st !== "eof") return;
  try {
    internals._client?._protocol?.signal(id, name);
  } catch {
  }
}
async function execOnClient(ctx, argv, opts = {}) {
  const step4 = opts.step ?? "";
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? ctx.defaultTimeoutMs;
  if (opts.signal?.aborted) throw new SshError({ kind: "cancelled", host: ctx.hostId, step: step4 });
  const command = buildRemoteCommand(argv, ctx.user);
  return new Promise((resolve, reject) => {
    ctx.client.exec(command, { pty: false }, (err, ch) => {
      if (err) return reject(new ChannelOpenError(err));
      handleChannel(ch, resolve, reject);
    });
  });
  function handleChannel(ch, resolve, reject) {
    const stdout = [];
    let stdoutBytes = 0;
    const capture = opts.captureStdout ?? true;
    const stderrTail = [];
    let stderrText = "";
    let exitCode = null;
    let exitSignal;
    let stopped;
    let killTimer;
    let remotePid;
    const emit = (stream) => {
      const redact = ctx.redactor.forStream();
      return new LineSplitter((raw2) => {
        if (stream === "stderr" && !remotePid) {
          const m = /^bootdeck-pid (\d+)$/.exec(raw2);
          if (m) {
            remotePid = m[1];
            if (stopped) killRemote();
            return;
          }
        }
        const line2 = redact(raw2);
        if (stream === "stderr") {
          stderrTail.push(line2);
          if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
        }
        if (!opts.quiet) ctx.sink?.({ host: ctx.hostId, step: step4, stream, line: line2 });
      });
    };
    const outLines = emit("stdout");
    const errLines = emit("stderr");
    const stdoutTo = opts.stdoutTo;
    ch.on("data", (d) => {
      if (stdoutTo) {
        if (!stdoutTo.write(d)) {
          ch.pause();
          stdoutTo.once("drain", () => ch.resume());
        }
        return;
      }
      if (capture && stdoutBytes < MAX_CAPTURE_BYTES) {
        stdout.push(d);
        stdoutBytes += d.length;
      }
      outLines.push(d);
    });
    ch.stderr.on("data", (d) => {
      if (stderrText.length < 4096) stderrText += d.toString("utf8");
      errLines.push(d);
    });
    ch.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
    });
    const stop = (why) => {
      if (stopped) return;
      stopped = why;
      sendSignal(ch, "TERM");
      killRemote();
      killTimer = setTimeout(() => {
        ch.close();
        settle();
      }, KILL_GRACE_MS);
    };
    let killSent = false;
    const killRemote = () => {
      if (killSent || !remotePid) return;
      killSent = true;
      ctx.client.exec(buildKillCommand(remotePid, ctx.user), { pty: false }, (err, kch) => {
        if (err) return;
        kch.on("data", () => void 0);
        kch.stderr.on("data", () => void 0);
        kch.end();
      });
    };
    const timer = timeoutMs > 0 ? setTimeout(() => stop("timeout"), timeoutMs) : void 0;
    const onAbort = () => stop("cancelled");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      outLines.flush();
      errLines.flush();
      const base = { host: ctx.hostId, step: step4 };
      if (stopped === "timeout") {
        return reject(new SshError({ kind: "timeout", ...base, phase: "command", afterMs: timeoutMs }));
      }
      if (stopped === "cancelled") return reject(new SshError({ kind: "cancelled", ...base }));
      if (exitCode !== 0 && ctx.user !== "root" && isSudoPasswordPrompt(stderrText)) {
        return reject(new SshError({ kind: "sudo-needs-password", ...base, user: ctx.user }));
      }
      if (exitCode === null && exitSignal === void 0) {
        return reject(new SshError({ kind: "unreachable", host: ctx.hostId, address: ctx.address ?? ctx.hostId, cause: `the connection was lost while ${step4 ? `step ${step4}` : "a command"} ran; it may have run partly` }));
      }
      if (exitCode === 0 || opts.allowFailure && exitCode !== null) {
        return resolve({
          ...base,
          exitCode: exitCode ?? 0,
          stdout: Buffer.concat(stdout),
          stderrTail,
          durationMs: Date.now() - started
        });
      }
      reject(
        new SshError({
          kind: "command-failed",
          ...base,
          command: ctx.redactor.redact(shellCommand(argv)),
          exitCode,
          signal: exitSignal,
          stderrTail
        })
      );
    };
    ch.on("close", settle);
    if (opts.stdin === void 0) ch.end();
    else if (typeof opts.stdin === "string" || Buffer.isBuffer(opts.stdin)) ch.end(opts.stdin);
    else opts.stdin.pipe(ch);
  }
}
var STDERR_TAIL_LINES, MAX_CAPTURE_BYTES, KILL_GRACE_MS, MAX_COMMAND_BYTES, ChannelOpenError;
var init_exec = __esm({
  "lib/ssh/exec.ts"() {
    "use strict";
    init_errors2();
    init_lines();
    init_quote();
    init_scripts();
    STDERR_TAIL_LINES = 20;
    MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
    KILL_GRACE_MS = 2e3;
    MAX_COMMAND_BYTES = 128 * 1024 - 1;
    ChannelOpenError = class extends Error {
      constructor(cause) {
        super(`could not open an exec channel: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
      }
    };
  }
});

// lib/ssh/redact.ts
var REDACTED, PATTERNS, BASE64_PEM, isBase64PrivateKey, PEM_BLOCK, PEM_BEGIN, PEM_END, Redactor;
var init_redact = __esm({
  "lib/ssh/redact.ts"() {
    "use strict";
    REDACTED = "[REDACTED]";
    PATTERNS = [
      // Kubernetes bootstrap tokens: <6>.<16> lower-case alphanumerics, also glued to other text.
      /(?<![a-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![a-z0-9])/g,
      // Authorization headers and bearer tokens.
      /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
      // key=value / key: value forms of common secret names, in text, YAML and JSON: a kubeconfig's
      // `token:` and `client-key-data:` (its client-certificate-data is public and stays).
      /\b((?:password|passwd|passphrase|secret|token|api[_-]?key|client-key-data)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi
    ];
    BASE64_PEM = /LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}/g;
    isBase64PrivateKey = (b64) => /PRIVATE KEY/.test(Buffer.from(b64.slice(0, 64), "base64").toString("latin1"));
    PEM_BLOCK = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|(?![\s\S]))/g;
    PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----/;
    PEM_END = /-----END ((?:[A-Z0-9]+ )*PRIVATE KEY)-----/;
    Redactor = class {
      secrets = /* @__PURE__ */ new Set();
      /** Registers literal secrets; values shorter than 4 characters would redact noise, so they are ignored. */
      add(...values) {
        for (const v of values) {
          if (v && v.length >= 4) {
            this.secrets.add(v);
            for (const line2 of v.split("\n")) if (line2.trim().length >= 16) this.secrets.add(line2.trim());
          }
        }
        return this;
      }
      /** Redacts a whole text (possibly many lines): each PEM private-key block becomes one [REDACTED]. */
      redact(text) {
        return text.replace(PEM_BLOCK, REDACTED).split("\n").map((l) => this.redactLine(l)).join("\n");
      }
      forStream() {
        let inKey = false;
        return (line2) => {
          if (inKey) {
            if (PEM_END.test(line2)) inKey = false;
            return REDACTED;
          }
          const begin = PEM_BEGIN.exec(line2);
          if (begin) {
            inKey = !PEM_END.test(line2.slice(begin.index + begin[0].length));
            return line2.slice(0, begin.index) + `${REDACTED} (${begin[1]})`;
          }
          return this.redactLine(line2);
        };
      }
      redactLine(line2) {
        let out = line2;
        for (const s2 of [...this.secrets].sort((a, b) => b.length - a.length)) {
          if (out.includes(s2)) out = out.split(s2).join(REDACTED);
        }
        for (const re of PATTERNS) {
          out = out.replace(
            re,
            (match, prefix) => typeof prefix === "string" && /[:=]\s*["']?$/.test(prefix) ? `${prefix}${REDACTED}` : REDACTED
          );
        }
        return out.replace(BASE64_PEM, (m) => isBase64PrivateKey(m) ? REDACTED : m);
      }
    };
  }
});

// lib/ssh/semaphore.ts
var Semaphore;
var init_semaphore = __esm({
  "lib/ssh/semaphore.ts"() {
    "use strict";
    Semaphore = class {
      constructor(limit) {
        this.limit = limit;
        if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency limit must be a positive integer, got ${limit}`);
      }
      limit;
      active = 0;
      waiters = [];
      get inFlight() {
        return this.active;
      }
      async use(fn) {
        if (this.active >= this.limit) await new Promise((r2) => this.waiters.push(r2));
        else this.active++;
        try {
          return await fn();
        } finally {
          const next = this.waiters.shift();
          if (next) next();
          else this.active--;
        }
      }
    };
  }
});

// lib/ssh/upload.ts
function normaliseFiles(files) {
  const seen2 = /* @__PURE__ */ new Set();
  return files.map((f) => {
    if (!import_posix.default.isAbsolute(f.path)) throw new QuoteError(`upload target must be an absolute path, got "${f.path}"`);
    if (f.path.includes("\0")) throw new QuoteError("upload target path contains a NUL byte");
    const p2 = import_posix.default.normalize(f.path);
    if (p2.endsWith("/")) throw new QuoteError(`upload target must name a file, got "${f.path}"`);
    if (seen2.has(p2)) throw new QuoteError(`upload lists "${p2}" twice`);
    seen2.add(p2);
    const owner = f.owner ?? "root:root";
    if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]*:[A-Za-z0-9_.][A-Za-z0-9_.-]*$/.test(owner)) {
      throw new QuoteError(`owner must be "user:group" names, got "${owner}"`);
    }
    const content = typeof f.content === "string" ? Buffer.from(f.content) : f.content;
    return {
      path: p2,
      content,
      sha256: (0, import_node_crypto17.createHash)("sha256").update(content).digest("hex"),
      mode: (f.mode ?? 384).toString(8),
      owner
    };
  });
}
function probeArgs(files) {
  return ["sh", "-c", UPLOAD_PROBE, "bootdeck-probe", ...files.map((f) => f.path)];
}
function parseProbe(out, count2) {
  const text = out.toString("utf8");
  const nl = text.indexOf("\n");
  const flags = text.slice(0, nl);
  if (nl < 0 || flags.length !== count2 || /[^yn]/.test(flags)) {
    throw new Error(`unexpected upload probe output: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const existing = [...flags].filter((c) => c === "y").length;
  let rest = text.slice(nl + 1);
  const stats = [];
  for (let i = 0; i < existing; i++) {
    const e = rest.indexOf("\n");
    stats.push(rest.slice(0, e));
    rest = rest.slice(e + 1);
  }
  const sums = rest.split("\0").filter((r2) => r2.length > 0).map((r2) => r2.replace(/^\\/, "").slice(0, 64));
  if (sums.length !== existing || sums.some((s2) => !/^[0-9a-f]{64}$/.test(s2))) {
    throw new Error(`unexpected upload probe checksums: ${JSON.stringify(rest.slice(0, 200))}`);
  }
  let k = 0;
  return [...flags].map((c) => {
    if (c === "n") return { exists: false };
    const [mode = "", owner = ""] = (stats[k] ?? "").split(" ");
    const sha2563 = sums[k] ?? "";
    k++;
    return { exists: true, mode, owner, sha256: sha2563 };
  });
}
function needsWrite(f, remote) {
  return !remote.exists || remote.sha256 !== f.sha256 || remote.mode !== f.mode || remote.owner !== f.owner;
}
function tempPathFor(target, nonce) {
  return import_posix.default.join(import_posix.default.dirname(target), stageName(nonce), import_posix.default.basename(target));
}
function checksumLine(sha2563, file) {
  if (/[\\\n]/.test(file)) return `\\${sha2563}  ${file.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`;
  return `${sha2563}  ${file}`;
}
function planApply(files, nonce = (0, import_node_crypto17.randomBytes)(6).toString("hex")) {
  const temps = files.map((f) => tempPathFor(f.path, nonce));
  const dirs = [...new Set(files.map((f) => import_posix.default.dirname(f.path)))];
  const sums = files.map((f, i) => checksumLine(f.sha256, temps[i] ?? "")).join("\n") + "\n";
  const want = files.map((f) => `${f.mode} ${f.owner}`).join("\n");
  const argv = [
    "sh",
    "-c",
    UPLOAD_APPLY,
    "bootdeck-upload",
    sums,
    want,
    stageName(nonce),
    String(dirs.length),
    String(files.length),
    ...dirs,
    ...temps
  ];
  const tar = () => buildTar(files, temps);
  return { argv, temps, tar };
}
function buildTar(files, temps) {
  const p2 = (0, import_tar_stream2.pack)();
  const chunks = [];
  return new Promise((resolve, reject) => {
    p2.on("data", (c) => chunks.push(c));
    p2.on("end", () => resolve(Buffer.concat(chunks)));
    p2.on("error", reject);
    files.forEach((f, i) => {
      const [uname, gname] = f.owner.split(":");
      p2.entry(
        {
          name: (temps[i] ?? "").replace(/^\/+/, ""),
          size: f.content.length,
          mode: parseInt(f.mode, 8),
          uname,
          gname,
          uid: 0,
          gid: 0,
          mtime: /* @__PURE__ */ new Date(),
          type: "file"
        },
        f.content
      );
    });
    p2.finalize();
  });
}
var import_node_crypto17, import_posix, import_tar_stream2, stageName;
var init_upload = __esm({
  "lib/ssh/upload.ts"() {
    "use strict";
    import_node_crypto17 = require("node:crypto");
    import_posix = __toESM(require("node:path/posix"));
    import_tar_stream2 = require("tar-stream");
    init_quote();
    init_scripts();
    stageName = (nonce) => `.bootdeck-upload-${nonce}`;
  }
});

// lib/ssh/upload-sftp.ts
function openSftp(client) {
  return new Promise((resolve, reject) => client.sftp((err, sftp) => err ? reject(err) : resolve(sftp)));
}
function step3(fn) {
  return new Promise((resolve, reject) => fn((err, v) => err ? reject(err) : resolve(v)));
}
async function sftpWriteTemps(sftp, files, temps) {
  await Promise.all(
    files.map(async (f, i) => {
      const temp = temps[i] ?? "";
      const handle = await step3((cb) => sftp.open(temp, "w", { mode: parseInt(f.mode, 8) }, cb));
      try {
        if (f.content.length > 0) await step3((cb) => sftp.write(handle, f.content, 0, f.content.length, 0, cb));
        await step3((cb) => sftp.ext_openssh_fsync(handle, (err) => cb(err)));
      } finally {
        await step3((cb) => sftp.close(handle, cb));
      }
    })
  );
}
function dirsOf(paths) {
  return [...new Set(paths.map((p2) => import_posix2.default.dirname(p2)))];
}
var import_posix2, EMPTY_TAR;
var init_upload_sftp = __esm({
  "lib/ssh/upload-sftp.ts"() {
    "use strict";
    import_posix2 = __toESM(require("node:path/posix"));
    EMPTY_TAR = Buffer.alloc(1024);
  }
});

// lib/ssh/executor.ts
var Executor;
var init_executor = __esm({
  "lib/ssh/executor.ts"() {
    "use strict";
    init_backoff();
    init_connection();
    init_errors2();
    init_exec();
    init_redact();
    init_semaphore();
    init_upload();
    init_upload_sftp();
    Executor = class {
      redactor;
      pool = /* @__PURE__ */ new Map();
      commands;
      uploads;
      opts;
      sink;
      closed = false;
      constructor(options = {}) {
        this.opts = {
          concurrency: options.concurrency ?? 64,
          uploadConcurrency: options.uploadConcurrency ?? 16,
          perHostChannels: options.perHostChannels ?? 8,
          connectTimeoutMs: options.connectTimeoutMs ?? 15e3,
          commandTimeoutMs: options.commandTimeoutMs ?? 10 * 6e4,
          keepaliveIntervalMs: options.keepaliveIntervalMs ?? 5e3,
          keepaliveCountMax: options.keepaliveCountMax ?? 3,
          retry: { ...DEFAULT_BACKOFF, ...options.retry }
        };
        this.commands = new Semaphore(this.opts.concurrency);
        this.uploads = new Semaphore(this.opts.uploadConcurrency);
        this.sink = options.sink;
        this.redactor = options.redactor ?? new Redactor();
      }
      /** Runs argv (quoted through the one helper) on the host; throws a classified SshError on failure. */
      async run(host3, argv, opts = {}) {
        return this.commands.use(() => this.runNow(host3, argv, opts));
      }
      /** Uploads files idempotently: one probe exec, then (only if something differs) one tar stream. */
      async upload(host3, files, opts = {}) {
        const { changed, result } = await this.probeChanges(host3, files, opts);
        if (changed.length === 0) return result;
        const plan = planApply(changed);
        const tar = await plan.tar();
        await this.uploads.use(() => this.run(host3, plan.argv, { ...opts, stdin: tar, quiet: true }));
        return { ...result, bytes: tar.length, execs: 2 };
      }
      /** One probe exec: which of the files differ on the host (content, mode or owner). */
      async probeChanges(host3, files, opts) {
        const planned2 = normaliseFiles(files);
        const probe2 = await this.run(host3, probeArgs(planned2), { ...opts, quiet: true });
        const remote = parseProbe(probe2.stdout, planned2.length);
        const changed = planned2.filter((f, i) => needsWrite(f, remote[i] ?? { exists: false }));
        const result = { host: host3.id, step: opts.step ?? "", written: changed.length, skipped: planned2.length - changed.length, bytes: 0, execs: 1 };
        return { changed, result };
      }
      /**
       * The same upload over SFTP (root logins only). Kept to re-measure against the tar stream; see
       * docs/ssh.md. Costs one exec more (mkdir) plus four SFTP round trips per file.
       */
      async uploadViaSftp(host3, files, opts = {}) {
        if (host3.user !== "root") throw new Error("SFTP uploads need a root login (SFTP cannot use sudo); use upload()");
        const { changed, result } = await this.probeChanges(host3, files, opts);
        if (changed.length === 0) return result;
        const plan = planApply(changed);
        await this.run(host3, ["mkdir", "-p", "-m", "700", "--", ...dirsOf(plan.temps)], { ...opts, quiet: true });
        const client = await this.client(host3, opts.signal);
        const sftp = await openSftp(client);
        try {
          await this.uploads.use(() => sftpWriteTemps(sftp, changed, plan.temps));
        } finally {
          sftp.end();
        }
        await this.run(host3, plan.argv, { ...opts, stdin: EMPTY_TAR, quiet: true });
        return { ...result, bytes: changed.reduce((n, f) => n + f.content.length, 0), execs: 3 };
      }
      /** Runs fn for every host with the executor's bounds; collects each host's result or classified error. */
      async forEachHost(hosts, fn) {
        return Promise.all(
          hosts.map(async (h) => {
            try {
              return { host: h.id, ok: true, value: await fn(h) };
            } catch (err) {
              return { host: h.id, ok: false, error: err instanceof Error ? err : new Error(String(err)) };
            }
          })
        );
      }
      /**
       * A TCP stream from the host to address:port over the host's pooled connection (like ssh -L): how
       * the engine reaches a cluster's API without a route from the dashboard.
       */
      async forward(host3, address2, port2, signal) {
        const client = await this.client(host3, signal);
        return forwardThrough(client, { id: `${address2}:${port2} from ${host3.id}`, address: address2, port: port2 }, host3.id);
      }
      /** Opens (or reuses) the host's connection; useful to surface host-key/auth errors before a run. */
      async connect(host3, signal) {
        await this.client(host3, signal);
      }
      /** Drops a host's pooled connection (e.g. after a re-pin) so the next call reconnects. */
      disconnect(hostId) {
        const entry = this.pool.get(hostId);
        this.pool.delete(hostId);
        entry?.client.then((c) => c.end(), () => void 0);
      }
      async close() {
        this.closed = true;
        const entries = [...this.pool.entries()];
        this.pool.clear();
        await Promise.all(entries.map(([, e]) => e.client.then((c) => c.end(), () => void 0)));
      }
      get connectionCount() {
        return this.pool.size;
      }
      async runNow(host3, argv, opts) {
        this.registerSecrets(host3);
        for (let attempt = 1; ; attempt++) {
          const client = await this.client(host3, opts.signal);
          const entry = this.pool.get(host3.id);
          try {
            return await (entry?.channels ?? new Semaphore(1)).use(
              () => execOnClient(
                { client, hostId: host3.id, address: `${host3.address}:${host3.port ?? 22}`, user: host3.user, sink: this.sink, redactor: this.redactor, defaultTimeoutMs: this.opts.commandTimeoutMs },
                argv,
                opts
              )
            );
          } catch (err) {
            if (err instanceof ChannelOpenError) {
              this.disconnect(host3.id);
              if (attempt < 2) continue;
              throw new SshError({ kind: "unreachable", host: host3.id, address: host3.address, cause: err.message }, { cause: err });
            }
            throw err;
          }
        }
      }
      client(host3, signal) {
        if (this.closed) return Promise.reject(new Error("executor is closed"));
        const existing = this.pool.get(host3.id);
        if (existing) return existing.client;
        const client = withRetry(() => this.open(host3, signal), {
          ...this.opts.retry,
          signal,
          isRetryable: (err) => isSshError(err) && err.retryable
        });
        const entry = { client, channels: new Semaphore(this.opts.perHostChannels) };
        this.pool.set(host3.id, entry);
        client.then(
          (c) => {
            const drop = () => {
              if (this.pool.get(host3.id) === entry) this.pool.delete(host3.id);
            };
            c.once("close", drop);
            c.once("error", drop);
          },
          () => {
            if (this.pool.get(host3.id) === entry) this.pool.delete(host3.id);
          }
        );
        return client;
      }
      async open(host3, signal) {
        const base = {
          connectTimeoutMs: this.opts.connectTimeoutMs,
          keepaliveIntervalMs: this.opts.keepaliveIntervalMs,
          keepaliveCountMax: this.opts.keepaliveCountMax,
          signal
        };
        if (!host3.bastion) return connectHost(host3, base);
        const bastion2 = await this.client(host3.bastion, signal);
        const sock = await forwardThrough(bastion2, host3, host3.bastion.id);
        return connectHost(host3, { ...base, sock });
      }
      registerSecrets(host3) {
        for (let h = host3; h; h = h.bastion) {
          if (h.auth.kind === "password") this.redactor.add(h.auth.password);
          if (h.auth.kind === "key") this.redactor.add(h.auth.passphrase);
        }
      }
    };
  }
});

// lib/ssh/index.ts
var init_ssh = __esm({
  "lib/ssh/index.ts"() {
    "use strict";
    init_executor();
    init_errors2();
    init_host_key();
    init_quote();
    init_redact();
  }
});

// lib/engine/cluster-api.ts
function adminCredentialsFrom(kubeconfigYaml) {
  const doc = import_yaml3.default.parse(kubeconfigYaml);
  const cluster = doc.clusters?.[0]?.cluster ?? {};
  const user2 = doc.users?.[0]?.user ?? {};
  const b64 = (v, what) => {
    if (!v) throw new Error(`the admin kubeconfig has no ${what}; re-render the assets`);
    return Buffer.from(v, "base64").toString("utf8");
  };
  return {
    caPem: b64(cluster["certificate-authority-data"], "certificate-authority-data"),
    certPem: b64(user2["client-certificate-data"], "client-certificate-data"),
    keyPem: b64(user2["client-key-data"], "client-key-data")
  };
}
function apiMessage(body) {
  try {
    const parsed = JSON.parse(body);
    return parsed.message ?? body.slice(0, 300);
  } catch {
    return body.slice(0, 300);
  }
}
var import_node_https, import_node_net2, import_yaml3, ClusterApi;
var init_cluster_api = __esm({
  "lib/engine/cluster-api.ts"() {
    "use strict";
    import_node_https = __toESM(require("node:https"));
    import_node_net2 = __toESM(require("node:net"));
    import_yaml3 = __toESM(require("yaml"));
    ClusterApi = class {
      constructor(opts) {
        this.opts = opts;
      }
      opts;
      /** Why the last tunnelled connection could not be opened (shown in wait and failure messages). */
      lastTunnelError;
      sockets = /* @__PURE__ */ new Set();
      port = 0;
      server;
      /** Where the API is, as the hosts see it. */
      get endpoint() {
        const h = this.opts.endpoint.host;
        return `${h.includes(":") ? `[${h}]` : h}:${this.opts.endpoint.port}`;
      }
      async listen() {
        if (this.server) return this.port;
        const server = import_node_net2.default.createServer((socket) => void this.bridge(socket));
        this.server = server;
        await new Promise((resolve, reject) => {
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve());
        });
        this.port = server.address().port;
        return this.port;
      }
      async bridge(socket) {
        this.sockets.add(socket);
        socket.once("close", () => this.sockets.delete(socket));
        socket.on("error", () => void 0);
        const errors = [];
        for (const host3 of this.opts.via()) {
          try {
            const stream = await this.opts.executor.forward(host3, this.opts.endpoint.host, this.opts.endpoint.port);
            this.lastTunnelError = void 0;
            stream.on("error", () => socket.destroy());
            socket.pipe(stream).pipe(socket);
            socket.once("close", () => stream.destroy());
            return;
          } catch (err) {
            errors.push(`from ${host3.id}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        this.lastTunnelError = `cannot reach the API at ${this.endpoint} (${errors.join("; ") || "no master to tunnel through"})`;
        socket.destroy();
      }
      async kubeConfig() {
        const port2 = await this.listen();
        const { KubeConfig } = await import("@kubernetes/client-node");
        const kc = new KubeConfig();
        const b64 = (s2) => Buffer.from(s2, "utf8").toString("base64");
        kc.loadFromOptions({
          clusters: [{ name: "cluster", server: `https://127.0.0.1:${port2}`, caData: b64(this.opts.credentials.caPem), skipTLSVerify: false }],
          users: [{ name: "bootdeck-admin", certData: b64(this.opts.credentials.certPem), keyData: b64(this.opts.credentials.keyPem) }],
          contexts: [{ name: "bootdeck", cluster: "cluster", user: "bootdeck-admin" }],
          currentContext: "bootdeck"
        });
        return kc;
      }
      async core() {
        const { CoreV1Api } = await import("@kubernetes/client-node");
        return (await this.kubeConfig()).makeApiClient(CoreV1Api);
      }
      async objects() {
        const { KubernetesObjectApi } = await import("@kubernetes/client-node");
        return KubernetesObjectApi.makeApiClient(await this.kubeConfig());
      }
      /** One HTTPS request through the tunnel; resolves with any status, rejects only when nothing answered. */
      async request(path22, opts = {}) {
        const port2 = await this.listen();
        const payload = opts.body === void 0 ? void 0 : JSON.stringify(opts.body);
        return new Promise((resolve, reject) => {
          const req = import_node_https.default.request(
            {
              host: "127.0.0.1",
              port: port2,
              path: path22,
              method: opts.method ?? "GET",
              ca: this.opts.credentials.caPem,
              cert: this.opts.credentials.certPem,
              key: this.opts.credentials.keyPem,
              headers: { accept: "application/json", ...payload ? { "content-type": opts.contentType ?? "application/json" } : {} },
              timeout: opts.timeoutMs ?? 1e4,
              signal: opts.signal,
              agent: false
            },
            (res) => {
              const chunks = [];
              res.on("data", (c) => chunks.push(c));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
              res.on("error", reject);
            }
          );
          req.on("timeout", () => req.destroy(new Error(`no answer from the API at ${this.endpoint} within ${(opts.timeoutMs ?? 1e4) / 1e3} s`)));
          req.on("error", (err) => reject(this.lastTunnelError && /socket hang up|ECONNRESET/.test(err.message) ? new Error(this.lastTunnelError) : err));
          req.end(payload);
        });
      }
      /** GET a JSON object; undefined on 404; throws with the API's message otherwise. */
      async getJson(path22, signal) {
        const r2 = await this.request(path22, { signal });
        if (r2.status === 404) return void 0;
        if (r2.status < 200 || r2.status > 299) throw new Error(`GET ${path22}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
        return JSON.parse(r2.body);
      }
      async close() {
        for (const s2 of this.sockets) s2.destroy();
        const server = this.server;
        this.server = void 0;
        if (server) await new Promise((resolve) => server.close(() => resolve()));
      }
    };
  }
});

// lib/engine/actions/types.ts
function needHost(ctx) {
  if (!ctx.host) throw new Error(`step ${ctx.planned.key} needs a host`);
  return ctx.host;
}
function plannedExec2(ctx, id, host3) {
  const e = (ctx.planned.exec ?? []).find((x) => x.id === id && (host3 === void 0 || (x.host ?? ctx.planned.host) === host3));
  if (!e) throw new Error(`the plan of ${ctx.planned.key} has no "${id}" command${host3 ? ` for ${host3}` : ""}: it was made by another version of Bootdeck; plan the run again`);
  return e;
}
function execHost(ctx, e) {
  const name = e.host ?? ctx.planned.host;
  const h = ctx.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`${ctx.planned.key}: command "${e.id}" names host ${name ?? "(none)"}, which is not in the run`);
  return h;
}
var WaitAbandoned;
var init_types2 = __esm({
  "lib/engine/actions/types.ts"() {
    "use strict";
    WaitAbandoned = class extends Error {
    };
  }
});

// lib/engine/actions/bootstrap.ts
function runPlanned(ctx, e, opts = {}) {
  return ctx.executor.run(execHost(ctx, e).target, e.argv, {
    step: ctx.planned.key,
    signal: ctx.signal,
    timeoutMs: opts.timeoutMs ?? ctx.planned.timeoutMs,
    quiet: opts.quiet,
    allowFailure: opts.allowFailure,
    ...opts.stdin ? { stdin: opts.stdin() } : {},
    ...opts.stdoutTo ? { stdoutTo: opts.stdoutTo } : {}
  });
}
async function runLocked(ctx, e, opts = {}) {
  const host3 = execHost(ctx, e);
  const exec3 = () => runPlanned(ctx, e, { ...opts, allowFailure: true });
  let r2 = await exec3();
  if (r2.exitCode === LOCKED_EXIT) {
    const holder7 = r2.stderrTail.join("\n").match(/bootdeck-locked-by (run_\S+)/)?.[1] ?? "";
    const other = holder7 ? await getDb().run.findUnique({ where: { id: holder7 }, select: { status: true } }) : null;
    if (other && !["running", "planned"].includes(other.status)) {
      await ctx.executor.run(host3.target, releaseLockArgv(holder7), { step: ctx.planned.key, signal: ctx.signal, quiet: true, timeoutMs: 6e4 });
      await ctx.emit("host.lock-taken-over", { key: ctx.planned.key, host: host3.name, from: holder7, status: other.status });
      r2 = await exec3();
    }
    if (r2.exitCode === LOCKED_EXIT) {
      const now = r2.stderrTail.join("\n").match(/bootdeck-locked-by (.+)/)?.[1] ?? holder7;
      throw new Error(
        other && holder7 && now.startsWith(holder7) ? `${host3.name} is locked by run ${holder7}, which is ${other.status}: wait for it or cancel it` : `${host3.name} is locked by ${now.startsWith("run_") ? `run ${now}, which this dashboard does not know (another Bootdeck?); if nothing else manages the host, empty /var/lib/bootdeck/run.lock on it` : now}`
      );
    }
  }
  if (r2.exitCode !== 0) {
    const tail = r2.stderrTail.filter((l) => !l.startsWith("journal: ")).slice(-6).join("; ");
    const err = new Error(`${ctx.planned.title} failed on ${host3.name} (exit ${r2.exitCode})${tail ? `: ${tail}` : ""}`);
    err.exitCode = r2.exitCode;
    err.journal = r2.stderrTail.filter((l) => l.startsWith("journal: ")).map((l) => l.slice(9));
    throw err;
  }
  return r2;
}
async function journalTail(ctx) {
  try {
    const r2 = await runPlanned(ctx, plannedExec2(ctx, "journal"), { quiet: true, timeoutMs: 15e3 });
    return r2.stdout.toString("utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}
function failure(error, extra = {}) {
  const message = error instanceof Error ? error.message : String(error);
  const journal3 = error.journal;
  return { ok: false, error: message, data: { ...extra, ...journal3?.length ? { journal: journal3 } : {} } };
}
function plannedFiles(ctx, host3 = ctx.planned.host, secrets = {}) {
  return ctx.planned.files.filter((f) => (f.host ?? ctx.planned.host) === host3).map((f) => {
    if (f.credential) {
      const content2 = secrets[f.path];
      if (content2 === void 0) throw new Error(`${ctx.planned.key}: no content for ${f.path} (from credential "${f.credential}")`);
      return { path: f.path, content: content2, mode: f.mode };
    }
    if (!f.asset) throw new Error(`the plan of ${ctx.planned.key} does not name the asset of ${f.path}: it was made by another version of Bootdeck; plan the run again`);
    const content = ctx.resources.asset(f.asset);
    const sha2563 = (0, import_node_crypto18.createHash)("sha256").update(content).digest("hex");
    if (sha2563 !== f.sha256) throw new Error(`${f.asset} in the run's asset set does not match the plan (sha256 ${sha2563.slice(0, 12)}, planned ${f.sha256.slice(0, 12)}): plan the run again`);
    return { path: f.path, content, mode: f.mode };
  });
}
async function listNodes(ctx) {
  return (await ctx.resources.api().getJson("/api/v1/nodes", ctx.signal))?.items ?? [];
}
async function listPods(ctx) {
  return (await ctx.resources.api().getJson("/api/v1/pods", ctx.signal))?.items ?? [];
}
async function waitForApi(ctx, what, timeoutMs = API_WAIT_MS) {
  const api = ctx.resources.api();
  await ctx.wait(what, { timeoutMs, intervalMs: 1e3 }, async () => {
    const health = await api.request("/healthz", { timeoutMs: 5e3, signal: ctx.signal });
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status} ${health.body.slice(0, 120)}` };
    const ns = await api.request("/api/v1/namespaces/kube-system", { timeoutMs: 5e3, signal: ctx.signal });
    if (ns.status !== 200) return { ok: false, why: `kube-system not readable yet (HTTP ${ns.status} ${apiMessage(ns.body)})` };
    return { ok: true, value: void 0 };
  });
}
function selfHostedObjects(ctx) {
  const files = ctx.resources.assetPaths.filter((p2) => p2.startsWith("manifests/")).map((path22) => ({ path: path22, objects: import_yaml4.default.parseAllDocuments(ctx.resources.asset(path22)).map((d) => d.toJSON()).filter((o2) => o2 && o2.kind) }));
  return selfHostedObjectsInOrder(files);
}
async function objectPath(api, object) {
  const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const cache = discovered.get(api) ?? discovered.set(api, /* @__PURE__ */ new Map()).get(api);
  let list = cache.get(base);
  if (!list?.resources?.some((r3) => r3.kind === object.kind)) {
    list = await api.getJson(base) ?? {};
    cache.set(base, list);
  }
  const r2 = list.resources?.find((x) => x.kind === object.kind && !x.name.includes("/"));
  if (!r2) throw new Error(`the API does not serve ${object.apiVersion} ${object.kind}`);
  const ns = r2.namespaced ? `/namespaces/${pathSegment(object.metadata.namespace ?? "default")}` : "";
  return `${base}${ns}/${r2.name}/${pathSegment(object.metadata.name)}`;
}
async function ensureObject(api, client, object) {
  const path22 = await objectPath(api, object).catch((e) => {
    throw new Error(`reading ${objectName(object)}: ${describeApiError(e)}`);
  });
  const exists = async () => {
    try {
      return await api.getJson(path22) !== void 0;
    } catch (e) {
      throw new Error(`reading ${objectName(object)}: ${describeApiError(e)}`);
    }
  };
  if (await exists()) return "present";
  try {
    await client.create(object);
    return "created";
  } catch (e) {
    if (await exists().catch(() => false)) return "present";
    throw new Error(`creating ${objectName(object)}: ${describeApiError(e)}`);
  }
}
async function livenessMark(ctx, node) {
  const api = ctx.resources.api();
  if (ctx.resources.caps.minor >= 14) {
    const lease = await api.getJson(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(node)}`, ctx.signal);
    return lease?.spec?.renewTime;
  }
  const n = await api.getJson(`/api/v1/nodes/${encodeURIComponent(node)}`, ctx.signal);
  const hb = n?.status?.conditions?.find((c) => c.type === "Ready")?.lastHeartbeatTime;
  return hb === void 0 || hb === null ? void 0 : String(hb);
}
async function proveAlive(ctx, nodes2) {
  const pending = new Set(nodes2.map((n) => n.host.name));
  let polls = 0;
  await ctx.wait(`${heartbeatName(ctx)} of ${nodes2.map((n) => n.host.name).join(", ")} renewed after this step began`, { timeoutMs: RENEWAL_WAIT_MS, intervalMs: 1e3 }, async () => {
    if (polls++ % 5 === 0) await Promise.all(nodes2.map((n) => assertReachable(ctx, n.host)));
    for (const n of nodes2) {
      if (!pending.has(n.host.name)) continue;
      const now = await livenessMark(ctx, n.host.name);
      if (now !== void 0 && now !== n.before) pending.delete(n.host.name);
    }
    return pending.size ? { ok: false, why: `not renewed since the step began: ${[...pending].join(", ")}` } : { ok: true, value: void 0 };
  });
  await Promise.all(nodes2.map((n) => assertReachable(ctx, n.host)));
}
async function installCheckpoint(ctx, host3) {
  const enable = (ctx.planned.exec ?? []).find((e) => e.id === "checkpoint" && (e.host ?? ctx.planned.host) === host3.name);
  if (!enable) return "";
  const files = plannedFiles(ctx, host3.name);
  const up = await ctx.executor.upload(host3.target, files, { step: ctx.planned.key, signal: ctx.signal });
  await runLocked(ctx, enable);
  return `; API server checkpoint on ${host3.name} (${up.written} of ${files.length} files changed)`;
}
async function waitForTokens(ctx, accounts) {
  await ctx.wait(`service accounts${ctx.resources.caps.legacyServiceAccountTokens ? " and their tokens" : ""} made by the controller-manager (${accounts.map((a) => a.metadata.name).join(", ")})`, { timeoutMs: 3 * 6e4, intervalMs: 1e3 }, async () => {
    for (const a of accounts) {
      const sa = await ctx.resources.api().getJson(`/api/v1/namespaces/${a.metadata.namespace ?? "default"}/serviceaccounts/${a.metadata.name}`, ctx.signal);
      if (!sa) return { ok: false, why: `${a.metadata.namespace}/${a.metadata.name} does not exist yet (is kube-controller-manager running?)` };
      if (ctx.resources.caps.legacyServiceAccountTokens && !sa.secrets?.length) return { ok: false, why: `${a.metadata.namespace}/${a.metadata.name} has no token yet (is kube-controller-manager running?)` };
    }
    return { ok: true, value: void 0 };
  });
}
async function assertReachable(ctx, host3) {
  try {
    await runPlanned(ctx, plannedExec2(ctx, "alive", host3.name), { quiet: true, timeoutMs: 1e4 });
  } catch (err) {
    if (isSshError(err) && ["unreachable", "timeout", "refused"].includes(err.detail.kind)) throw new WaitAbandoned(`${host3.name} stopped answering over SSH: ${err.message}`);
  }
}
async function setRole(ctx, name, role) {
  const api = ctx.resources.api();
  let patch;
  await ctx.wait(`${name} registered, to set its role`, { timeoutMs: 3 * 6e4, intervalMs: 2e3 }, async () => {
    const node = await api.getJson(`/api/v1/nodes/${encodeURIComponent(name)}`, ctx.signal);
    if (!node) return { ok: false, why: `${name} has not registered yet` };
    patch = rolePatch(node, role, ctx.resources.caps);
    return { ok: true, value: void 0 };
  });
  if (!patch) return false;
  const r2 = await api.request(`/api/v1/nodes/${encodeURIComponent(name)}`, { method: "PATCH", body: patch, contentType: "application/merge-patch+json" });
  if (r2.status !== 200) throw new Error(`setting the ${role} role on ${name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
  return true;
}
function apiStatus(err) {
  const code = err?.code;
  return err instanceof Error && typeof code === "number" && code >= 100 && code < 600 ? code : void 0;
}
function describeApiError(err) {
  const status = apiStatus(err);
  if (status !== void 0) {
    const body = err.body;
    return `HTTP ${status} ${typeof body === "string" ? apiMessage(body) : JSON.stringify(body ?? "").slice(0, 300)}`;
  }
  return err instanceof Error ? err.message : String(err);
}
var import_node_crypto18, import_yaml4, API_WAIT_MS, objectName, pathSegment, discovered, heartbeatName, RENEWAL_WAIT_MS, bootstrapActions;
var init_bootstrap = __esm({
  "lib/engine/actions/bootstrap.ts"() {
    "use strict";
    import_node_crypto18 = require("node:crypto");
    import_yaml4 = __toESM(require("yaml"));
    init_render();
    init_token();
    init_client2();
    init_ssh();
    init_cluster_api();
    init_host_scripts();
    init_kube();
    init_types2();
    API_WAIT_MS = 5 * 6e4;
    objectName = (o2) => `${o2.kind} ${o2.metadata.namespace ? `${o2.metadata.namespace}/` : ""}${o2.metadata.name}`;
    pathSegment = (s2) => encodeURIComponent(s2).replace(/%3A/g, ":").replace(/%40/g, "@");
    discovered = /* @__PURE__ */ new WeakMap();
    heartbeatName = (ctx) => ctx.resources.caps.minor >= 14 ? "kubelet Lease" : "node status heartbeat";
    RENEWAL_WAIT_MS = 9e4;
    bootstrapActions = {
      /** Phase 3: install the kubelet's host packages that are missing. */
      async packages(ctx) {
        try {
          const r2 = await runLocked(ctx, plannedExec2(ctx, "packages"));
          const out = r2.stdout.toString("utf8");
          return { ok: true, summary: out.includes("bootdeck-packages present") ? "all host packages present" : `installed ${out.match(/installing:(.*)/)?.[1]?.trim() ?? "missing packages"}` };
        } catch (err) {
          return failure(err);
        }
      },
      /** Phase 4: kubelet (or hyperkube) and kubectl from the mirror, checksum-verified, executable. */
      async binaries(ctx) {
        const done = [];
        try {
          for (const e of (ctx.planned.exec ?? []).filter((x) => x.id.startsWith("download "))) {
            const r2 = await runLocked(ctx, e);
            done.push(`${e.id.slice("download ".length)} ${r2.stdout.toString("utf8").includes("present") ? "already in place" : "installed"}`);
          }
          return { ok: true, summary: done.join(", ") };
        } catch (err) {
          return failure(err);
        }
      },
      /** Phase 5: the kubelet's files (and etcd's on masters), then start it and check it keeps running. */
      async kubelet(ctx) {
        const host3 = needHost(ctx);
        try {
          const up = await ctx.executor.upload(host3.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
          const r2 = await runLocked(ctx, plannedExec2(ctx, "start"));
          const state3 = r2.stdout.toString("utf8").match(/bootdeck-kubelet (.*)/)?.[1] ?? "";
          return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; kubelet ${state3}`, data: { filesWritten: up.written } };
        } catch (err) {
          const journal3 = err.journal?.length ? void 0 : await journalTail(ctx);
          return failure(err, journal3 ? { journal: journal3 } : {});
        }
      },
      /** Phase 6: the bootstrap control plane's secrets and static pods on the first master; wait for the API. */
      async "control-plane"(ctx) {
        const host3 = needHost(ctx);
        try {
          const up = await ctx.executor.upload(host3.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
          const started = Date.now();
          await waitForApi(ctx, `kube-apiserver (healthz, kube-system) at ${ctx.resources.api().endpoint} via ${host3.name}`);
          return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; API healthy after ${((Date.now() - started) / 1e3).toFixed(1)} s` };
        } catch (err) {
          return failure(err, { journal: await journalTail(ctx) });
        }
      },
      /** Phase 7: create the self-hosted objects (Namespaces, CRDs until served, then the rest); each is read first. */
      async "self-hosted"(ctx) {
        const objects = selfHostedObjects(ctx);
        const client = await ctx.resources.api().objects();
        let created = 0;
        let present = 0;
        let crdsPending = [];
        await waitForTokens(ctx, [{ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "kube-system" } }]);
        const groups = [];
        for (const { object } of objects) {
          const last = groups[groups.length - 1];
          if (last && last[0]?.kind === object.kind) last.push(object);
          else groups.push([object]);
        }
        for (const group of groups) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          const kind = group[0]?.kind;
          if (kind !== "CustomResourceDefinition" && kind !== "Namespace" && crdsPending.length) {
            const pending = crdsPending;
            await ctx.wait(`custom resource definitions served (${pending.join(", ")})`, { timeoutMs: 6e4, intervalMs: 1e3 }, async () => {
              for (const name of pending) {
                const crd = await ctx.resources.api().getJson(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, ctx.signal);
                if (crd?.status?.conditions?.find((c) => c.type === "Established")?.status !== "True") return { ok: false, why: `${name} not Established yet` };
              }
              return { ok: true, value: void 0 };
            });
            crdsPending = [];
          }
          const applied = group.map((object) => isBootstrapTokenSecret(object) ? withExpiration(object, /* @__PURE__ */ new Date()) : object);
          const results = await Promise.all(applied.map((object) => ensureObject(ctx.resources.api(), client, object).catch((e) => e instanceof Error ? e : new Error(String(e)))));
          const error = results.find((r2) => r2 instanceof Error);
          if (error) return failure(error);
          const made = results.filter((r2) => r2 === "created").length;
          created += made;
          present += results.length - made;
          if (kind === "CustomResourceDefinition") crdsPending = group.map((o2) => o2.metadata.name);
          await ctx.emit("step.progress", { key: ctx.planned.key, message: `${kind}: ${made} created, ${results.length - made} already present` });
          if (kind === "ServiceAccount" && ctx.resources.caps.legacyServiceAccountTokens) await waitForTokens(ctx, group);
        }
        const first = ctx.resources.firstMaster.name;
        await setRole(ctx, first, "master");
        return { ok: true, summary: `${created} objects created, ${present} already present (of ${objects.length}); ${first} labelled as master` };
      },
      /**
       * Before workers join a running cluster: the kubelet bootstrap token's Secret is there and valid for
       * a while yet — created again when the tokencleaner removed it after it expired, renewed when it has
       * less than BOOTSTRAP_TOKEN_RENEW_MS left.
       */
      async "bootstrap-token"(ctx) {
        const secret = selfHostedObjects(ctx).map((o2) => o2.object).find(isBootstrapTokenSecret);
        if (!secret) return { ok: true, summary: "this profile's kubelets join without a bootstrap token" };
        const api = ctx.resources.api();
        const path22 = `/api/v1/namespaces/kube-system/secrets/${encodeURIComponent(secret.metadata.name)}`;
        const now = /* @__PURE__ */ new Date();
        const renewed = withExpiration(secret, now);
        const until = renewed.stringData?.expiration ?? "";
        try {
          const current = await api.getJson(path22, ctx.signal);
          if (!current) {
            await (await api.objects()).create(renewed);
            return { ok: true, summary: `${secret.metadata.name} was gone (expired and cleaned up): created again, valid until ${until}` };
          }
          const expiration = current.data?.expiration ? Buffer.from(current.data.expiration, "base64").toString("utf8") : void 0;
          const left = expiration ? Date.parse(expiration) - now.getTime() : Number.POSITIVE_INFINITY;
          if (left >= BOOTSTRAP_TOKEN_RENEW_MS) return { ok: true, summary: `${secret.metadata.name} valid until ${expiration ?? "it is removed (no expiration)"}` };
          const r2 = await api.request(path22, { method: "PATCH", body: { stringData: { expiration: until } }, contentType: "application/merge-patch+json" });
          if (r2.status !== 200) throw new Error(`renewing ${secret.metadata.name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
          return { ok: true, summary: `${secret.metadata.name} renewed: valid until ${until} (was ${expiration})` };
        } catch (err) {
          return failure(new Error(describeApiError(err)));
        }
      },
      /**
       * Phase 8: wait for the self-hosted control plane (Running and Ready), every registered node Ready,
       * then remove the bootstrap control plane and check the self-hosted API server answers with the same
       * objects. The gap — how long the API did not answer — is measured when this attempt removed the
       * bootstrap control plane; an attempt that began after an earlier one removed it reports it unknown.
       */
      async pivot(ctx) {
        const first = ctx.resources.firstMaster;
        const api = ctx.resources.api();
        const marker = `bootdeck-pivot-${(0, import_node_crypto18.createHash)("sha256").update(ctx.runId).digest("hex").slice(0, 16)}`;
        try {
          const probe2 = await runPlanned(ctx, plannedExec2(ctx, "present"), { quiet: true, timeoutMs: 3e4 });
          const bootstrapGone = !probe2.stdout.toString("utf8").includes("present");
          if (!bootstrapGone) {
            await ctx.wait(`self-hosted control plane started (${CONTROL_PLANE_COMPONENTS.join(", ")}) and ${first.name} Ready`, { timeoutMs: 8 * 6e4, intervalMs: 2e3 }, async () => {
              const pods = await listPods(ctx);
              const missing = controlPlaneMissing(pods, CONTROL_PLANE_COMPONENTS, { beforePivot: !ctx.resources.caps.apiserverPortSharing });
              if (missing.length) {
                const seen2 = pods.filter((p2) => missing.some((m) => (p2.metadata?.name ?? "").startsWith(`${m}-`))).map(podLine);
                return { ok: false, why: `not yet Running and Ready: ${missing.join(", ")}${seen2.length ? ` (seen: ${seen2.join("; ")})` : ""}` };
              }
              const node = (await listNodes(ctx)).find((n) => n.metadata?.name === first.name);
              const ready = node ? nodeReady(node) : { ready: false, why: "not registered" };
              if (!ready.ready) return { ok: false, why: `${first.name} ${ready.why} \u2014 is the pod network (CNI) up?` };
              return { ok: true, value: void 0 };
            });
            const put = await api.request(`/api/v1/namespaces/kube-system/configmaps`, { method: "POST", body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: marker }, data: { run: ctx.runId } } });
            if (put.status !== 201 && put.status !== 409) throw new Error(`writing the pivot marker: HTTP ${put.status} ${apiMessage(put.body)}`);
          }
          const rm2 = await runLocked(ctx, plannedExec2(ctx, "remove"));
          await ctx.emit("step.progress", { key: ctx.planned.key, message: `removed the bootstrap control plane from ${first.name}: ${rm2.stdout.toString("utf8").trim()}` });
          const removedAt = Date.now();
          let firstDown;
          let lastDown;
          await ctx.wait(`the self-hosted kube-apiserver to take over on ${first.name}`, { timeoutMs: 6 * 6e4, intervalMs: 1e3 }, async () => {
            let health;
            try {
              health = await api.request("/healthz", { timeoutMs: 3e3, signal: ctx.signal });
            } catch (e) {
              health = { status: 0, body: e instanceof Error ? e.message : String(e) };
            }
            if (health.status !== 200) {
              firstDown ??= Date.now();
              lastDown = Date.now();
              return { ok: false, why: `API not answering (${health.status || health.body})` };
            }
            const pods = await listPods(ctx);
            if (pods.some((p2) => (p2.metadata?.name ?? "").startsWith("bootstrap-kube-apiserver"))) return { ok: false, why: "the bootstrap kube-apiserver's pod is still listed" };
            const missing = controlPlaneMissing(pods, CONTROL_PLANE_COMPONENTS);
            if (missing.length) return { ok: false, why: `waiting for ${missing.join(", ")} to be Running and Ready again` };
            const cm = await api.request(`/api/v1/namespaces/kube-system/configmaps/${marker}`, { timeoutMs: 3e3 });
            if (cm.status === 404 && bootstrapGone) return { ok: true, value: void 0 };
            if (cm.status !== 200) return { ok: false, why: `the pivot marker is not readable (HTTP ${cm.status})` };
            return { ok: true, value: void 0 };
          });
          await api.request(`/api/v1/namespaces/kube-system/configmaps/${marker}`, { method: "DELETE" }).catch(() => void 0);
          const checkpoint = await installCheckpoint(ctx, first);
          if (bootstrapGone)
            return {
              ok: true,
              summary: `self-hosted control plane answering; API gap unknown: an earlier attempt removed the bootstrap control plane before this one began${checkpoint}`,
              data: { apiGapS: null }
            };
          const gapS = firstDown && lastDown ? (lastDown - firstDown) / 1e3 : 0;
          return { ok: true, summary: `self-hosted control plane took over ${((Date.now() - removedAt) / 1e3).toFixed(1)} s after the bootstrap one was removed; API gap ${gapS.toFixed(1)} s${checkpoint}`, data: { apiGapS: gapS } };
        } catch (err) {
          return failure(err);
        }
      },
      /**
       * Phase 9: the host's node registered and Ready (its kubelet joined with the bootstrap token), then its
       * role; and alive now: the host answers, and its kubelet renewed its Lease after the step began (a
       * node the API still shows Ready within its grace period is not enough).
       */
      async join(ctx) {
        const host3 = needHost(ctx);
        let polls = 0;
        try {
          await assertReachable(ctx, host3);
          const before = await livenessMark(ctx, host3.name).catch(() => void 0);
          await ctx.wait(`${host3.name} to register and be Ready`, { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
            if (polls++ % 5 === 4) await assertReachable(ctx, host3);
            const node = (await listNodes(ctx)).find((n) => n.metadata?.name === host3.name);
            if (!node) return { ok: false, why: `${host3.name} has not registered (is its kubelet running and can it reach ${ctx.resources.api().endpoint}?)` };
            const r2 = nodeReady(node);
            return r2.ready ? { ok: true, value: void 0 } : { ok: false, why: `${host3.name} ${r2.why}` };
          });
          const patched = await setRole(ctx, host3.name, host3.role);
          if (host3.role === "master") {
            await ctx.wait(`the control plane on ${host3.name} Running and Ready`, { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
              const pods = (await listPods(ctx)).filter((p2) => p2.spec?.nodeName === host3.name);
              const missing = controlPlaneMissing(pods, ["kube-apiserver"]);
              return missing.length ? { ok: false, why: `${missing.join(", ")} not Running and Ready on ${host3.name}` } : { ok: true, value: void 0 };
            });
          }
          await proveAlive(ctx, [{ host: host3, before }]);
          const checkpoint = host3.role === "master" && host3.name !== ctx.resources.firstMaster.name ? await installCheckpoint(ctx, host3) : "";
          return { ok: true, summary: `${host3.name} Ready and alive (${heartbeatName(ctx)} renewed, host answering)${patched ? `, role ${host3.role} set` : ""}${checkpoint}` };
        } catch (err) {
          return failure(err, { journal: await journalTail(ctx) });
        }
      },
      /** Phase 10: every joined node Ready and alive now, every pod Running and Ready; a summary. */
      async verify(ctx) {
        let summary = "";
        const joinSteps = await getDb().step.findMany({ where: { runId: ctx.runId, phase: "join" }, select: { status: true, host: { select: { name: true } } } });
        const joined = joinSteps.length ? joinSteps.filter((s2) => s2.status === "done").map((s2) => s2.host?.name ?? "") : ctx.hosts.map((h) => h.name);
        const hosts = ctx.hosts.filter((h) => joined.includes(h.name));
        try {
          const before = await Promise.all(hosts.map(async (host3) => ({ host: host3, before: await livenessMark(ctx, host3.name).catch(() => void 0) })));
          await ctx.wait("every node Ready and every pod Running and Ready", { timeoutMs: 3 * 6e4, intervalMs: 2e3 }, async () => {
            const [nodes2, pods] = await Promise.all([listNodes(ctx), listPods(ctx)]);
            const notReady = joined.filter((n) => {
              const node = nodes2.find((x) => x.metadata?.name === n);
              return !node || !nodeReady(node).ready;
            });
            const bad = pods.filter((p2) => !podReady(p2) && p2.status?.phase !== "Succeeded");
            if (notReady.length) return { ok: false, why: `not Ready: ${notReady.join(", ")}` };
            if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 8).map(podLine).join("; ")}${bad.length > 8 ? ` and ${bad.length - 8} more` : ""}` };
            const mirrors = pods.filter(isMirrorPod).length;
            summary = `${nodes2.length} nodes Ready, ${pods.length} pods Running and Ready (${mirrors} static)`;
            return { ok: true, value: void 0 };
          });
          await proveAlive(ctx, before);
          return { ok: true, summary: `${summary}; ${hosts.length} hosts answering, ${heartbeatName(ctx)}s renewed` };
        } catch (err) {
          return failure(err);
        }
      },
      /** Reset: stop the kubelet and its pods, remove what Bootdeck installed. */
      async reset(ctx) {
        const host3 = needHost(ctx);
        try {
          const r2 = await runLocked(ctx, plannedExec2(ctx, "reset"));
          let node = "";
          if (ctx.resources.hasAsset("auth/kubeconfig")) {
            try {
              const del = await ctx.resources.api().request(`/api/v1/nodes/${encodeURIComponent(host3.name)}`, { method: "DELETE", timeoutMs: 5e3, signal: ctx.signal });
              node = del.status === 200 || del.status === 202 ? "; Node object deleted" : del.status === 404 ? "" : `; Node object not deleted (HTTP ${del.status})`;
            } catch (e) {
              node = `; Node object not deleted (${e instanceof Error ? e.message : String(e)})`;
            }
          }
          return { ok: true, summary: `${r2.stdout.toString("utf8").trim() || "reset"}${node}` };
        } catch (err) {
          if (isSshError(err)) throw err;
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/actions/runtime.ts
async function credentialFiles(ctx) {
  const out = {};
  const def = ctx.resources.definition;
  const auth = def.spec.images.auth;
  const registry = def.spec.images.registry;
  for (const f of ctx.planned.files.filter((x) => x.credential)) {
    if (!auth || !registry || f.credential !== auth.credential) throw new Error(`${f.path}: the run's definition has no image registry credential "${f.credential}"`);
    const run4 = await getDb().run.findUnique({ where: { id: ctx.runId }, select: { clusterId: true } });
    const cred = run4 ? await getDb().credential.findFirst({ where: { clusterId: run4.clusterId, name: auth.credential } }) : null;
    if (!cred?.secretCipher) throw new Error(`the image registry's credential "${auth.credential}" has no stored password: edit the cluster and give it`);
    await recordSecretUse({ credentialId: cred.id, credentialName: cred.name, clusterId: run4?.clusterId ?? "", runId: ctx.runId, purpose: "image registry" });
    out[f.path] = registryAuthConfig(registry, auth.username, decryptSecret(cred.secretCipher));
  }
  return out;
}
var runtimeActions;
var init_runtime2 = __esm({
  "lib/engine/actions/runtime.ts"() {
    "use strict";
    init_runtime();
    init_record();
    init_client2();
    init_cipher();
    init_bootstrap();
    init_types2();
    runtimeActions = {
      async runtime(ctx) {
        const host3 = needHost(ctx);
        try {
          const notes = [];
          const packages = (ctx.planned.exec ?? []).find((e) => e.id === "packages");
          if (packages) {
            const r3 = await runLocked(ctx, packages);
            notes.push(r3.stdout.toString("utf8").includes("present") ? "containerd and runc present" : "installed containerd and runc from packages");
          }
          const downloads = (ctx.planned.exec ?? []).filter((e) => e.id.startsWith("download "));
          let installed = 0;
          for (const d of downloads) {
            const r3 = await runLocked(ctx, d);
            if (r3.stdout.toString("utf8").includes("installed")) installed++;
          }
          const files = plannedFiles(ctx, host3.name, await credentialFiles(ctx));
          const up = await ctx.executor.upload(host3.target, files, { step: ctx.planned.key, signal: ctx.signal });
          const r2 = await runLocked(ctx, plannedExec2(ctx, "start"));
          const out = r2.stdout.toString("utf8");
          const version = out.match(/bootdeck-runtime (\S*) ready/)?.[1];
          notes.push(`${installed} of ${downloads.length} downloads new`, `${up.written} of ${files.length} files changed`, out.includes("(restarted)") ? "restarted" : "kept running");
          return { ok: true, summary: `containerd ${version || "(version unknown)"} ready; ${notes.join(", ")}` };
        } catch (err) {
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/day2/etcd.ts
function parseJsonWithIds(text) {
  return JSON.parse(text.replace(/"(ID|member_id|cluster_id|leader|revision|raft_term)":\s*(\d+)/g, '"$1":"$2"'));
}
function parseEtcdStatusOutput(stdout) {
  const sections = /* @__PURE__ */ new Map();
  let current = "";
  for (const line2 of stdout.split("\n")) {
    const m = /^--- (\w+)$/.exec(line2);
    if (m) {
      current = m[1] ?? "";
      sections.set(current, []);
    } else if (current) sections.get(current)?.push(line2);
  }
  const errors = [];
  const body = (name) => {
    const lines = sections.get(name) ?? [];
    for (const l of lines) if (l.startsWith("error: ")) errors.push(l.slice(7));
    return lines.filter((l) => !l.startsWith("error: ")).join("\n").trim();
  };
  const members = [];
  const list = body("members");
  if (list) {
    const doc = parseJsonWithIds(list);
    for (const m of doc.members ?? []) members.push({ id: hex(m.ID), name: m.name ?? "", peerUrls: m.peerURLs ?? [], clientUrls: m.clientURLs ?? [], learner: m.isLearner === true });
  }
  const statuses = [];
  const st = body("status");
  if (st) {
    for (const s2 of parseJsonWithIds(st))
      statuses.push({
        endpoint: s2.Endpoint,
        memberId: hex(s2.Status.header?.member_id),
        version: s2.Status.version ?? "",
        leader: hex(s2.Status.leader),
        raftIndex: Number(s2.Status.raftIndex ?? 0),
        raftAppliedIndex: Number(s2.Status.raftAppliedIndex ?? 0),
        learner: s2.Status.isLearner === true,
        errors: s2.Status.errors ?? []
      });
  }
  const health = /* @__PURE__ */ new Map();
  const h = body("health");
  if (h) for (const e of JSON.parse(h)) health.set(e.endpoint, { healthy: e.health, ...e.error ? { error: e.error } : {} });
  return { members, statuses, health, errors };
}
function memberStates(view2) {
  return view2.members.map((m) => {
    const name = m.name || `(unstarted ${m.peerUrls.join(",")})`;
    const status = view2.statuses.find((s2) => s2.memberId === m.id) ?? view2.statuses.find((s2) => m.clientUrls.includes(s2.endpoint));
    if (!status) {
      const err = view2.errors.find((e) => m.clientUrls.some((u) => e.includes(u)));
      return { name, healthy: false, learner: m.learner, why: m.clientUrls.length ? `does not answer${err ? ` (${err})` : ""}` : "has not started" };
    }
    if (status.errors.length) return { name, healthy: false, learner: m.learner, why: `reports ${status.errors.join("; ")}` };
    if (!status.leader || status.leader === "0") return { name, healthy: false, learner: m.learner, why: "knows no leader" };
    if (m.learner) return { name, healthy: true, learner: true };
    const h = m.clientUrls.map((u) => view2.health.get(u)).find(Boolean);
    if (h && !h.healthy) return { name, healthy: false, learner: false, why: `fails its health check${h.error ? ` (${h.error})` : ""}` };
    return { name, healthy: true, learner: false };
  });
}
function membershipProblem(view2, expected, opts = {}) {
  const states = memberStates(view2);
  const beingAdded = (i) => view2.members[i]?.learner === true && opts.allowLearner !== void 0 && view2.members[i].peerUrls.includes(opts.allowLearner);
  const unhealthy = states.filter((s2, i) => !s2.healthy && !beingAdded(i));
  if (unhealthy.length) return `etcd is not healthy: ${unhealthy.map((s2) => `${s2.name} ${s2.why}`).join("; ")}`;
  const learners = view2.members.filter((m) => m.learner && m.name !== opts.allowLearner && !(opts.allowLearner && m.peerUrls.includes(opts.allowLearner)));
  if (learners.length) return `etcd has a learner that is not being added: ${learners.map((m) => m.name || m.peerUrls.join(",")).join(", ")}; finish or undo that change first`;
  const unknown = view2.members.filter((m) => !expected.some((e) => m.peerUrls.includes(e.peerUrl)) && !(opts.allowLearner && m.peerUrls.includes(opts.allowLearner)));
  if (unknown.length) return `etcd has members the cluster definition does not list: ${unknown.map((m) => `${m.name || "(unstarted)"} ${m.peerUrls.join(",")}`).join("; ")}`;
  const missing = expected.filter((e) => !view2.members.some((m) => m.peerUrls.includes(e.peerUrl)));
  if (missing.length) return `etcd lacks members the cluster definition lists: ${missing.map((e) => e.name).join(", ")}`;
  return void 0;
}
function removalRefusal(view2, removing) {
  const states = memberStates(view2).filter((s2) => !s2.learner);
  const voters = states.length;
  const healthy = states.filter((s2) => s2.healthy);
  const sick = states.filter((s2) => !s2.healthy);
  const sickText = sick.length ? ` (${sick.map((s2) => `${s2.name} ${s2.why}`).join("; ")})` : "";
  if (healthy.length < quorumOf(voters)) return `etcd has ${healthy.length} healthy of ${voters} members${sickText}: it needs ${quorumOf(voters)} to commit any change; bring members back first`;
  const left = states.filter((s2) => !removing.includes(s2.name));
  if (left.length === 0) return "removing every etcd member would destroy the cluster's data; keep at least one master";
  const leftHealthy = left.filter((s2) => s2.healthy).length;
  if (leftHealthy < quorumOf(left.length))
    return `removing ${removing.join(", ")} leaves ${left.length} member${left.length === 1 ? "" : "s"} of which ${leftHealthy} ${leftHealthy === 1 ? "is" : "are"} healthy${sickText}: a majority of ${left.length} needs ${quorumOf(left.length)}; remove the unhealthy member first or bring it back`;
  return void 0;
}
function learnerLag(view2, peerUrl) {
  const m = view2.members.find((x) => x.peerUrls.includes(peerUrl));
  if (!m) return void 0;
  const own = view2.statuses.find((s2) => s2.memberId === m.id);
  const leader = view2.statuses.find((s2) => s2.memberId === own?.leader) ?? view2.statuses.find((s2) => s2.memberId && s2.memberId === s2.leader);
  if (!own || !leader) return void 0;
  return Math.max(0, leader.raftIndex - own.raftAppliedIndex);
}
var hex, quorumOf;
var init_etcd = __esm({
  "lib/engine/day2/etcd.ts"() {
    "use strict";
    hex = (dec) => {
      if (dec === void 0 || dec === "") return "";
      try {
        return BigInt(String(dec)).toString(16);
      } catch {
        return String(dec);
      }
    };
    quorumOf = (voters) => Math.floor(voters / 2) + 1;
  }
});

// lib/engine/day2/drain.ts
function chooseEvictions(pods, node) {
  const evict = [];
  const stay = [];
  for (const p2 of pods) {
    if (p2.spec?.nodeName !== node) continue;
    const owner = p2.metadata?.ownerReferences?.find((o2) => o2.controller !== false) ?? p2.metadata?.ownerReferences?.[0];
    if (p2.metadata?.annotations?.["kubernetes.io/config.mirror"] !== void 0 || owner?.kind === "Node") stay.push({ pod: podName(p2), why: "a static pod (its kubelet runs it from a file)" });
    else if (owner?.kind === "DaemonSet") stay.push({ pod: podName(p2), why: "a DaemonSet's pod" });
    else if (p2.metadata?.deletionTimestamp) stay.push({ pod: podName(p2), why: "already terminating" });
    else if (p2.status?.phase === "Succeeded" || p2.status?.phase === "Failed") stay.push({ pod: podName(p2), why: `finished (${p2.status.phase})` });
    else evict.push(p2);
  }
  return { evict, stay };
}
function evictionRefusal(status, body) {
  try {
    const s2 = JSON.parse(body);
    const causes = (s2.details?.causes ?? []).map((c) => c.message).filter(Boolean);
    return `${s2.message ?? `HTTP ${status}`}${causes.length ? ` (${causes.join("; ")})` : ""}`;
  } catch {
    return `HTTP ${status} ${body.slice(0, 200)}`;
  }
}
var podName, unmanaged;
var init_drain = __esm({
  "lib/engine/day2/drain.ts"() {
    "use strict";
    podName = (p2) => `${p2.metadata?.namespace ?? "default"}/${p2.metadata?.name ?? "?"}`;
    unmanaged = (pods) => pods.filter((p2) => !p2.metadata?.ownerReferences?.length).map(podName);
  }
});

// lib/engine/actions/day2-kube.ts
function plannedExec3(ctx, id, host3) {
  const e = (ctx.planned.exec ?? []).find((x) => x.id === id && (host3 === void 0 || (x.host ?? ctx.planned.host) === host3));
  if (!e) throw new Error(`the plan of ${ctx.planned.key} has no "${id}" command${host3 ? ` for ${host3}` : ""}: it was made by another version of Bootdeck; plan the run again`);
  return e;
}
function execHost2(ctx, e) {
  const name = e.host ?? ctx.planned.host;
  const h = ctx.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`${ctx.planned.key}: command "${e.id}" names host ${name ?? "(none)"}, which is not in the run`);
  return h;
}
async function runPlanned2(ctx, e, opts = {}) {
  const host3 = execHost2(ctx, e);
  const exec3 = (argv) => ctx.executor.run(host3.target, argv, { step: ctx.planned.key, signal: ctx.signal, timeoutMs: opts.timeoutMs ?? ctx.planned.timeoutMs, quiet: opts.quiet, allowFailure: true });
  let r2 = await exec3(e.argv);
  if (r2.exitCode === LOCKED_EXIT && isLocked(e.argv)) {
    const holder7 = r2.stderrTail.join("\n").match(/bootdeck-locked-by (\S+)/)?.[1] ?? "";
    const other = holder7 ? await getDb().run.findUnique({ where: { id: holder7 }, select: { status: true } }) : null;
    if (other && !["running", "planned"].includes(other.status)) r2 = await exec3(e.argv.map((a, i) => i === TAKEOVER_SLOT ? holder7 : a));
    else
      throw new Error(
        other ? `${host3.name} is locked by run ${holder7}, which is ${other.status}: wait for it or cancel it` : `${host3.name} is locked by run ${holder7 || "(unknown)"}, which this dashboard does not know (another Bootdeck?); if nothing else manages the host, remove /var/lib/bootdeck/run.lock on it`
      );
  }
  if (r2.exitCode !== 0 && !opts.allowFailure) {
    const tail = r2.stderrTail.filter((l) => !l.startsWith("journal: ")).slice(-6).join("; ");
    const err = new Error(`${e.id} on ${host3.name} failed (exit ${r2.exitCode})${tail ? `: ${tail}` : ""}`);
    err.journal = r2.stderrTail.filter((l) => l.startsWith("journal: ")).map((l) => l.slice(9));
    throw err;
  }
  return r2;
}
async function pushPlannedFiles(ctx, host3, files = ctx.planned.files) {
  if (!files.length) return { written: 0, total: 0 };
  const specs = files.map((f) => {
    if (!f.asset) throw new Error(`the plan of ${ctx.planned.key} does not say which asset ${f.path} comes from: plan the run again`);
    return { path: f.path, content: ctx.resources.asset(f.asset), mode: f.mode };
  });
  const up = await ctx.executor.upload(host3.target, specs, { step: ctx.planned.key, signal: ctx.signal });
  return { written: up.written, total: specs.length };
}
async function assertAnswers(ctx, host3, what) {
  try {
    await ctx.executor.run(host3.target, ["true"], { step: ctx.planned.key, quiet: true, timeoutMs: 1e4, signal: ctx.signal });
  } catch (err) {
    if (isSshError(err) && ["unreachable", "timeout", "refused"].includes(err.detail.kind)) throw new WaitAbandoned(`${host3.name} stopped answering ${what}: ${err.message}`);
  }
}
async function readNode(ctx, name) {
  const node = await ctx.resources.api().getJson(`/api/v1/nodes/${encodeURIComponent(name)}`, ctx.signal);
  if (!node) return void 0;
  const r2 = nodeReady(node);
  return { name, ready: r2.ready, why: r2.why, kubeletVersion: node.status?.nodeInfo?.kubeletVersion ?? "", unschedulable: node.spec?.unschedulable === true };
}
async function setUnschedulable(ctx, name, value) {
  const node = await readNode(ctx, name);
  if (!node) throw new Error(`node ${name} is not registered`);
  if (node.unschedulable === value) return false;
  const r2 = await ctx.resources.api().request(`/api/v1/nodes/${encodeURIComponent(name)}`, { method: "PATCH", body: { spec: { unschedulable: value ? true : null } }, contentType: "application/merge-patch+json", signal: ctx.signal });
  if (r2.status !== 200) throw new Error(`${value ? "cordoning" : "uncordoning"} ${name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
  return true;
}
async function drainNode(ctx, name, timeoutMs) {
  const api = ctx.resources.api();
  await setUnschedulable(ctx, name, true);
  const list = async () => (await api.getJson(`/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`, ctx.signal))?.items ?? [];
  const first = chooseEvictions(await list(), name);
  const lost = unmanaged(first.evict);
  const evicted = /* @__PURE__ */ new Set();
  const blocked = /* @__PURE__ */ new Map();
  await ctx.wait(`${name} drained (pods evicted, disruption budgets respected)`, { timeoutMs, intervalMs: 2e3 }, async () => {
    const { evict } = chooseEvictions(await list(), name);
    for (const p2 of evict) {
      const ns = p2.metadata?.namespace ?? "default";
      const podN = p2.metadata?.name ?? "";
      if (evicted.has(p2.metadata?.uid ?? podName(p2))) continue;
      const r2 = await api.request(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(podN)}/eviction`, {
        method: "POST",
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: podN, namespace: ns } },
        signal: ctx.signal
      });
      if (r2.status === 200 || r2.status === 201 || r2.status === 404) {
        evicted.add(p2.metadata?.uid ?? podName(p2));
        blocked.delete(podName(p2));
      } else blocked.set(podName(p2), evictionRefusal(r2.status, r2.body));
    }
    const left = chooseEvictions(await list(), name).evict.filter((p2) => !p2.metadata?.deletionTimestamp);
    const alive2 = (await readNode(ctx, name))?.ready === true;
    const terminating = alive2 ? (await list()).filter((p2) => p2.metadata?.deletionTimestamp && !p2.metadata.ownerReferences?.some((o2) => o2.kind === "DaemonSet" || o2.kind === "Node")) : [];
    if (left.length === 0 && terminating.length === 0) return { ok: true, value: void 0 };
    const why = [...blocked.entries()].map(([pod, reason]) => `${pod}: ${reason}`);
    return { ok: false, why: why.length ? `blocked: ${why.join("; ")}` : `${left.length + terminating.length} pods still leaving: ${[...left, ...terminating].slice(0, 6).map(podName).join(", ")}` };
  });
  return `${name} drained: ${evicted.size} pod${evicted.size === 1 ? "" : "s"} evicted${first.stay.length ? `, ${first.stay.length} left in place (DaemonSet and static pods)` : ""}${lost.length ? `; ${lost.length} unmanaged pod${lost.length === 1 ? "" : "s"} not recreated elsewhere: ${lost.join(", ")}` : ""}`;
}
async function deleteNode(ctx, name) {
  const api = ctx.resources.api();
  const r2 = await api.request(`/api/v1/nodes/${encodeURIComponent(name)}`, { method: "DELETE", signal: ctx.signal });
  if (r2.status === 404) return false;
  if (r2.status !== 200 && r2.status !== 202) throw new Error(`deleting node ${name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
  await ctx.wait(`node ${name} deleted`, { timeoutMs: 6e4, intervalMs: 1e3 }, async () => await readNode(ctx, name) ? { ok: false, why: `${name} is still listed` } : { ok: true, value: void 0 });
  return true;
}
function objectPath2(o2, withName = true) {
  const r2 = RESOURCES[o2.kind];
  if (!r2) throw new Error(`Bootdeck does not apply ${o2.kind} objects`);
  const ns = r2.namespaced ? `/namespaces/${encodeURIComponent(o2.metadata.namespace ?? "default")}` : "";
  return `${r2.base}${ns}/${r2.plural}${withName ? `/${encodeURIComponent(o2.metadata.name)}` : ""}`;
}
async function applyObject(ctx, o2) {
  const api = ctx.resources.api();
  const sha = renderedSha(o2);
  const annotated = { ...o2, metadata: { ...o2.metadata, annotations: { ...o2.metadata.annotations, [APPLIED_ANNOTATION]: sha } } };
  const live = await api.getJson(objectPath2(o2), ctx.signal);
  if (!live) {
    const r3 = await api.request(objectPath2(o2, false), { method: "POST", body: annotated, signal: ctx.signal });
    if (r3.status === 201 || r3.status === 200) return "created";
    if (r3.status !== 409) throw new Error(`creating ${o2.kind} ${o2.metadata.name}: HTTP ${r3.status} ${apiMessage(r3.body)}`);
    return applyObject(ctx, o2);
  }
  if (live.metadata.annotations?.[APPLIED_ANNOTATION] === sha) return "unchanged";
  const r2 = await api.request(objectPath2(o2), { method: "PUT", body: { ...annotated, metadata: { ...annotated.metadata, resourceVersion: live.metadata.resourceVersion } }, signal: ctx.signal });
  if (r2.status === 409) return applyObject(ctx, o2);
  if (r2.status !== 200) throw new Error(`replacing ${o2.kind} ${o2.metadata.name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
  return "replaced";
}
function rolloutPending(kind, w) {
  const s2 = w.status ?? {};
  if ((s2.observedGeneration ?? 0) < (w.metadata.generation ?? 0)) return "its controller has not seen the change yet";
  if (kind === "DaemonSet") {
    const want2 = s2.desiredNumberScheduled ?? 0;
    if ((s2.updatedNumberScheduled ?? 0) < want2) return `${s2.updatedNumberScheduled ?? 0} of ${want2} pods updated`;
    if ((s2.numberAvailable ?? 0) < want2 || (s2.numberUnavailable ?? 0) > 0) return `${s2.numberAvailable ?? 0} of ${want2} pods available`;
    return void 0;
  }
  const want = w.spec?.replicas ?? 1;
  if ((s2.updatedReplicas ?? 0) < want) return `${s2.updatedReplicas ?? 0} of ${want} replicas updated`;
  if ((s2.replicas ?? 0) > want) return `${(s2.replicas ?? 0) - want} old replicas still terminating`;
  if ((s2.availableReplicas ?? 0) < want) return `${s2.availableReplicas ?? 0} of ${want} replicas available`;
  return void 0;
}
async function waitRollout(ctx, o2, timeoutMs) {
  await ctx.wait(`${o2.kind} ${o2.metadata.namespace}/${o2.metadata.name} rolled out`, { timeoutMs, intervalMs: 2e3 }, async () => {
    const w = await ctx.resources.api().getJson(objectPath2(o2), ctx.signal);
    if (!w) return { ok: false, why: "it does not exist" };
    const why = rolloutPending(o2.kind, w);
    return why ? { ok: false, why } : { ok: true, value: void 0 };
  });
}
var import_node_crypto19, plannedExecs, TAKEOVER_SLOT, isLocked, param, RESOURCES, APPLIED_ANNOTATION, renderedSha;
var init_day2_kube = __esm({
  "lib/engine/actions/day2-kube.ts"() {
    "use strict";
    import_node_crypto19 = require("node:crypto");
    init_client2();
    init_ssh();
    init_cluster_api();
    init_drain();
    init_host_scripts();
    init_kube();
    init_types2();
    plannedExecs = (ctx, id) => (ctx.planned.exec ?? []).filter((x) => x.id === id);
    TAKEOVER_SLOT = 5;
    isLocked = (argv) => argv[0] === "sh" && argv[1] === "-c" && (argv[2] ?? "").startsWith("lock=");
    param = (ctx, name) => {
      const v = ctx.planned.params?.[name];
      if (v === void 0) throw new Error(`the plan of ${ctx.planned.key} lacks "${name}": plan the run again`);
      return v;
    };
    RESOURCES = {
      Namespace: { base: "/api/v1", plural: "namespaces", namespaced: false },
      ServiceAccount: { base: "/api/v1", plural: "serviceaccounts", namespaced: true },
      Secret: { base: "/api/v1", plural: "secrets", namespaced: true },
      ConfigMap: { base: "/api/v1", plural: "configmaps", namespaced: true },
      Service: { base: "/api/v1", plural: "services", namespaced: true },
      DaemonSet: { base: "/apis/apps/v1", plural: "daemonsets", namespaced: true },
      Deployment: { base: "/apis/apps/v1", plural: "deployments", namespaced: true },
      PodDisruptionBudget: { base: "/apis/policy/v1", plural: "poddisruptionbudgets", namespaced: true },
      ClusterRole: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterroles", namespaced: false },
      ClusterRoleBinding: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterrolebindings", namespaced: false },
      Role: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "roles", namespaced: true },
      RoleBinding: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "rolebindings", namespaced: true }
    };
    APPLIED_ANNOTATION = "bootdeck.io/applied-sha256";
    renderedSha = (o2) => (0, import_node_crypto19.createHash)("sha256").update(JSON.stringify(o2)).digest("hex");
  }
});

// lib/engine/actions/membership.ts
async function etcdView(ctx) {
  const tried = [];
  for (const e of plannedExecs(ctx, "etcd-status")) {
    const host3 = execHost2(ctx, e).name;
    try {
      const r2 = await runPlanned2(ctx, e, { allowFailure: true, quiet: true, timeoutMs: 6e4 });
      if (r2.exitCode === 0) return { view: parseEtcdStatusOutput(r2.stdout.toString("utf8")), on: host3 };
      tried.push(`${host3}: ${r2.stderrTail.slice(-2).join("; ") || `exit ${r2.exitCode}`}`);
    } catch (err) {
      if (!isSshError(err)) throw err;
      tried.push(`${host3}: ${err.message}`);
    }
  }
  throw new Error(`no master answered for etcd (${tried.join(" \xB7 ")})`);
}
async function etcdCommand(ctx, id, preferred) {
  const execs = plannedExecs(ctx, id).sort((a, b) => Number((b.host ?? "") === preferred) - Number((a.host ?? "") === preferred));
  const errors = [];
  for (const e of execs) {
    try {
      const r2 = await runPlanned2(ctx, e, { allowFailure: true, timeoutMs: 6e4 });
      if (r2.exitCode === 0) return r2.stdout.toString("utf8").trim();
      errors.push(`${execHost2(ctx, e).name}: ${r2.stderrTail.slice(-3).join("; ") || `exit ${r2.exitCode}`}`);
      if (r2.exitCode !== 3) break;
    } catch (err) {
      if (!isSshError(err)) throw err;
      errors.push(`${execHost2(ctx, e).name}: ${err.message}`);
    }
  }
  throw new Error(errors.join(" \xB7 "));
}
async function etcdGuard(ctx) {
  const expected = json(ctx, "expected");
  const joining = json(ctx, "joining");
  const { view: view2, on } = await etcdView(ctx);
  const known2 = [...expected, ...joining.filter((u) => view2.members.some((m) => m.peerUrls.includes(u))).map((u) => ({ name: "", peerUrl: u, clientUrl: "" }))];
  const problem = membershipProblem(view2, known2, { allowLearner: joining.find((u) => view2.members.some((m) => m.learner && m.peerUrls.includes(u))) });
  if (problem) return { ok: false, error: `refusing to add masters: ${problem}`, hint: "bring the unhealthy member back (its host, its etcd pod's log), then retry" };
  return { ok: true, summary: `etcd (asked on ${on}): ${healthLine(view2)}` };
}
async function etcdJoin(ctx) {
  const host3 = needHost(ctx);
  const name = param(ctx, "name");
  const peerUrl = param(ctx, "peerUrl");
  const before = json(ctx, "before");
  const after = json(ctx, "after");
  const started = Date.now();
  let { view: view2, on } = await etcdView(ctx);
  const existing = view2.members.find((m) => m.peerUrls.includes(peerUrl));
  let added = "already a member";
  if (!existing) {
    const problem = membershipProblem(view2, before);
    if (problem) return { ok: false, error: `refusing to add ${name} to etcd: ${problem}` };
    added = await etcdCommand(ctx, "etcd-add", on);
  }
  const up = await pushPlannedFiles(ctx, host3);
  let lag;
  let promoted = !(existing?.learner ?? true);
  if (!promoted)
    await ctx.wait(`${name}'s etcd to catch up with the leader, then its promotion`, { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
      ({ view: view2, on } = await etcdView(ctx));
      const m = view2.members.find((x) => x.peerUrls.includes(peerUrl));
      if (!m) return { ok: false, why: `${name} is no longer a member (removed meanwhile?)` };
      if (!m.learner) return { ok: true, value: void 0 };
      if (!m.name) return { ok: false, why: `${name}'s etcd has not started yet (its pod on ${host3.name})` };
      lag = learnerLag(view2, peerUrl);
      try {
        await etcdCommand(ctx, "etcd-promote", on);
        return { ok: true, value: void 0 };
      } catch (err) {
        return { ok: false, why: `not promoted yet${lag !== void 0 ? ` (${lag} entries behind)` : ""}: ${err instanceof Error ? err.message : String(err)}` };
      }
    });
  promoted = true;
  await ctx.wait(`every etcd member healthy with ${name}`, { timeoutMs: 2 * 6e4, intervalMs: 2e3 }, async () => {
    ({ view: view2, on } = await etcdView(ctx));
    const problem = membershipProblem(view2, after);
    return problem ? { ok: false, why: problem } : { ok: true, value: void 0 };
  });
  return {
    ok: true,
    summary: `${name}: ${added.replace(/^bootdeck-etcd /, "")}; etcd pod ${up.written ? "started" : "in place"}; promoted after ${((Date.now() - started) / 1e3).toFixed(1)} s; ${healthLine(view2)}`,
    data: { promoted }
  };
}
async function removeGuard(ctx) {
  const removing = json(ctx, "removing");
  if (!removing.length) return { ok: true, summary: "workers only: etcd is not touched" };
  const { view: view2, on } = await etcdView(ctx);
  const expected = json(ctx, "expected");
  const present = expected.filter((e) => view2.members.some((m) => m.peerUrls.includes(e.peerUrl)));
  const problem = membershipProblem(view2, present);
  const stranger = problem && /does not list|learner/.test(problem) ? problem : void 0;
  if (stranger) return { ok: false, error: `refusing to remove masters: ${stranger}` };
  const refusal = removalRefusal(
    view2,
    removing.filter((n) => view2.members.some((m) => m.name === n))
  );
  if (refusal) return { ok: false, error: `quorum guard: ${refusal}`, hint: "remove the unhealthy member on its own first (it is the one that cannot vote), or bring it back" };
  return { ok: true, summary: `etcd (asked on ${on}): ${healthLine(view2)}; removing ${removing.join(", ")} keeps a healthy majority` };
}
async function etcdLeave(ctx) {
  const host3 = needHost(ctx);
  const name = param(ctx, "name");
  const peerUrl = param(ctx, "peerUrl");
  const after = json(ctx, "after");
  let { view: view2, on } = await etcdView(ctx);
  let removed = "already removed";
  if (view2.members.some((m) => m.peerUrls.includes(peerUrl))) {
    const refusal = removalRefusal(view2, [name]);
    if (refusal) return { ok: false, error: `quorum guard: ${refusal}` };
    removed = (await etcdCommand(ctx, "etcd-remove", on)).replace(/^bootdeck-etcd /, "");
  }
  await ctx.wait(`every etcd member healthy without ${name}`, { timeoutMs: 2 * 6e4, intervalMs: 2e3 }, async () => {
    ({ view: view2, on } = await etcdView(ctx));
    const problem = membershipProblem(view2, after);
    return problem ? { ok: false, why: problem } : { ok: true, value: void 0 };
  });
  let stopped = "its etcd pod stopped";
  try {
    await runPlanned2(ctx, plannedExec3(ctx, "stop-etcd"), { timeoutMs: 3e4 });
  } catch (err) {
    stopped = `its etcd pod not stopped (${err instanceof Error ? err.message : String(err)}); the reset removes it`;
  }
  return { ok: true, summary: `${name} ${removed}; ${stopped}; ${healthLine(view2)} on ${after.map((m) => m.name).join(", ")}`, data: { host: host3.name } };
}
async function drain(ctx) {
  const host3 = needHost(ctx);
  const node = await readNode(ctx, host3.name);
  if (!node) return { ok: true, summary: `${host3.name} is not registered: nothing to drain` };
  try {
    return { ok: true, summary: await drainNode(ctx, host3.name, Number(param(ctx, "timeoutMs"))) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: message,
      hint: /disruption budget/.test(message) ? "a PodDisruptionBudget keeps these pods where they are: give the workload room elsewhere (more replicas, other nodes), relax the budget, or allow a longer drain; then retry" : "pods did not leave in time: see which above; retry once they can"
    };
  }
}
async function removeNode(ctx) {
  const host3 = needHost(ctx);
  let stopped = "kubelet stopped";
  try {
    await runPlanned2(ctx, plannedExec3(ctx, "stop"), { timeoutMs: 6e4 });
  } catch (err) {
    if (!isSshError(err)) throw err;
    stopped = `kubelet not stopped (${err.message}): the host does not answer`;
  }
  const deleted = await deleteNode(ctx, host3.name);
  return { ok: true, summary: `${stopped}; node ${host3.name} ${deleted ? "deleted" : "was not registered"}` };
}
function objectsOf(ctx, files) {
  const parsed = files.map((path22) => ({ path: path22, objects: import_yaml5.default.parseAllDocuments(ctx.resources.asset(path22)).map((d) => d.toJSON()).filter((o2) => o2 && o2.kind) }));
  return selfHostedObjectsInOrder(parsed).map((x) => x.object);
}
async function listPods2(ctx, selector) {
  return (await ctx.resources.api().getJson(`/api/v1/namespaces/kube-system/pods?labelSelector=${encodeURIComponent(selector)}`, ctx.signal))?.items ?? [];
}
async function waitApiServers(ctx, image, timeoutMs) {
  const masters = ctx.resources.masters.map((m) => m.name);
  let line2 = "";
  await ctx.wait(`the API server on every master Running and Ready${image ? ` with ${image}` : ""}`, { timeoutMs, intervalMs: 2e3 }, async () => {
    const pods = await listPods2(ctx, "k8s-app=kube-apiserver");
    const nodes2 = (await ctx.resources.api().getJson("/api/v1/nodes", ctx.signal))?.items ?? [];
    const registered = masters.filter((m) => nodes2.some((n) => n.metadata?.name === m));
    const missing = registered.filter((m) => !pods.some((p2) => p2.spec?.nodeName === m && podReady(p2) && (!image || p2.spec?.containers?.[0]?.image === image)));
    if (missing.length) {
      const seen2 = pods.filter((p2) => missing.includes(p2.spec?.nodeName ?? "")).map((p2) => `${podLine(p2)} ${p2.spec?.containers?.[0]?.image ?? ""}`);
      return { ok: false, why: `not yet on ${missing.join(", ")}${seen2.length ? ` (seen: ${seen2.join("; ")})` : ""}` };
    }
    line2 = `API server Ready on ${registered.join(", ")}`;
    return { ok: true, value: void 0 };
  });
  return line2;
}
async function applyObjects(ctx) {
  const files = json(ctx, "files");
  const wait = param(ctx, "wait");
  const image = ctx.planned.params?.image;
  const objects = objectsOf(ctx, files);
  const results = [];
  const rolled = [];
  for (const o2 of objects) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (isBootstrapTokenSecret(o2)) continue;
    const name = `${o2.kind} ${o2.metadata.namespace ? `${o2.metadata.namespace}/` : ""}${o2.metadata.name}`;
    const r2 = REPLACEABLE.has(o2.kind) ? await applyObject(ctx, o2) : await createOnly(ctx, o2);
    if (r2 !== "unchanged") results.push(`${name} ${r2}`);
    if (o2.kind === "DaemonSet" || o2.kind === "Deployment") rolled.push(o2);
  }
  for (const o2 of rolled) await waitRollout(ctx, o2, 10 * 6e4);
  let health = "";
  if (wait === "apiservers") {
    health = await waitApiServers(ctx, image, 10 * 6e4);
    if (plannedExecs(ctx, "etcd-status").length) {
      const { view: view2 } = await etcdView(ctx);
      health += `; etcd: ${healthLine(view2)}`;
    }
  }
  return { ok: true, summary: `${results.length ? results.join(", ") : `${objects.length} objects unchanged`}${rolled.length ? `; ${rolled.length} workload${rolled.length === 1 ? "" : "s"} rolled out` : ""}${health ? `; ${health}` : ""}` };
}
async function createOnly(ctx, o2) {
  const api = ctx.resources.api();
  if (await api.getJson(objectPath2(o2), ctx.signal)) return "unchanged";
  const r2 = await api.request(objectPath2(o2, false), { method: "POST", body: o2, signal: ctx.signal });
  if (r2.status !== 201 && r2.status !== 200 && r2.status !== 409) throw new Error(`creating ${o2.kind} ${o2.metadata.name}: HTTP ${r2.status}`);
  return "created";
}
async function recordDefinition(ctx) {
  const op = param(ctx, "op");
  const run4 = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
  const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: run4.clusterId }, select: { definition: true, kubernetesVersion: true } });
  const def = JSON.parse(cluster.definition);
  let next;
  let what;
  if (op === "set-version") {
    const version = param(ctx, "version");
    if (def.spec.kubernetes.version === version) return { ok: true, summary: `the definition says ${version} already` };
    next = { ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version } } };
    what = `version ${def.spec.kubernetes.version} \u2192 ${version}`;
  } else if (op === "remove-hosts") {
    const hosts = json(ctx, "hosts");
    if (!def.spec.hosts.some((h) => hosts.includes(h.name))) return { ok: true, summary: `the definition no longer lists ${hosts.join(", ")}` };
    next = { ...def, spec: { ...def.spec, hosts: def.spec.hosts.filter((h) => !hosts.includes(h.name)) } };
    what = `${hosts.join(", ")} removed`;
  } else throw new Error(`unknown definition change ${op}`);
  if (definitionSha(def) !== param(ctx, "from")) return { ok: false, error: "the cluster's definition was edited after this run was planned: the change is not recorded; edit it by hand or plan again" };
  const valid = validateClusterDefinition(next);
  if (!valid.ok) return { ok: false, error: `the updated definition would be invalid: ${valid.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` };
  const r2 = await getDb().cluster.updateMany({
    where: { id: run4.clusterId, definition: cluster.definition },
    data: { definition: JSON.stringify(valid.definition), kubernetesVersion: valid.definition.spec.kubernetes.version }
  });
  if (r2.count !== 1) return { ok: false, error: "the cluster's definition changed while it was being updated; retry" };
  await ctx.emit("cluster.definition-changed", { change: what });
  await recordAudit({ action: "cluster.update", username: `run:${ctx.runId}`, target: run4.clusterId, details: { change: what, runId: ctx.runId } });
  return { ok: true, summary: `definition updated: ${what}` };
}
async function verifyNodes(ctx) {
  const present = json(ctx, "present");
  const absent = json(ctx, "absent");
  const version = ctx.planned.params?.version;
  let summary = "";
  await ctx.wait(`${present.length} nodes Ready${version ? ` with ${version}` : ""}${absent.length ? `, ${absent.join(", ")} gone` : ""}, every pod Running and Ready`, { timeoutMs: 4 * 6e4, intervalMs: 2e3 }, async () => {
    const nodes2 = (await ctx.resources.api().getJson("/api/v1/nodes", ctx.signal))?.items ?? [];
    const pods = (await ctx.resources.api().getJson("/api/v1/pods", ctx.signal))?.items ?? [];
    const problems = [];
    for (const n of present) {
      const node = nodes2.find((x) => x.metadata?.name === n);
      if (!node) problems.push(`${n} not registered`);
      else if (!nodeReady(node).ready) problems.push(`${n} ${nodeReady(node).why}`);
      else if (version && node.status?.nodeInfo?.kubeletVersion !== version) problems.push(`${n} runs kubelet ${node.status?.nodeInfo?.kubeletVersion}`);
    }
    for (const n of absent) if (nodes2.some((x) => x.metadata?.name === n)) problems.push(`${n} still registered`);
    const bad = pods.filter((p2) => !podReady(p2) && p2.status?.phase !== "Succeeded");
    if (problems.length) return { ok: false, why: problems.join("; ") };
    if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 8).map(podLine).join("; ")}${bad.length > 8 ? ` and ${bad.length - 8} more` : ""}` };
    summary = `${nodes2.length} nodes Ready${version ? ` (kubelet ${version})` : ""}, ${pods.length} pods Running and Ready (${pods.filter(isMirrorPod).length} static)${absent.length ? `; ${absent.join(", ")} gone` : ""}`;
    return { ok: true, value: void 0 };
  });
  return { ok: true, summary };
}
async function pushAndRun(ctx) {
  const host3 = needHost(ctx);
  const up = await pushPlannedFiles(ctx, host3);
  const out = [];
  try {
    for (const e of (ctx.planned.exec ?? []).filter((x) => x.when === "always")) {
      const r2 = await runPlanned2(ctx, e);
      const last = r2.stdout.toString("utf8").trim().split("\n").pop() ?? "";
      if (last) out.push(last.replace(/^bootdeck-/, ""));
    }
  } catch (err) {
    return failure(err, { journal: await neededLines(ctx, "journal") });
  }
  return { ok: true, summary: `${up.written} of ${up.total} files changed${out.length ? `; ${out.join("; ")}` : ""}` };
}
async function neededLines(ctx, id) {
  const e = (ctx.planned.exec ?? []).find((x) => x.id === id);
  if (!e) return [];
  try {
    const r2 = await runPlanned2(ctx, e, { allowFailure: true, quiet: true, timeoutMs: 15e3 });
    return r2.stdout.toString("utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}
async function endpoint(ctx) {
  const host3 = needHost(ctx);
  try {
    const pkg = await runPlanned2(ctx, plannedExec3(ctx, "package"), { timeoutMs: 15 * 6e4 });
    const up = await pushPlannedFiles(ctx, host3);
    const r2 = await runPlanned2(ctx, plannedExec3(ctx, "start"));
    const installed = pkg.stdout.toString("utf8").includes("present") ? "keepalived present" : "keepalived installed";
    return { ok: true, summary: `${installed}; ${up.written} of ${up.total} files changed; ${r2.stdout.toString("utf8").trim().split("\n").pop()?.replace(/^bootdeck-endpoint /, "") ?? ""}` };
  } catch (err) {
    return failure(err);
  }
}
var import_yaml5, json, healthLine, REPLACEABLE, membershipActions;
var init_membership = __esm({
  "lib/engine/actions/membership.ts"() {
    "use strict";
    import_yaml5 = __toESM(require("yaml"));
    init_render();
    init_token();
    init_definition();
    init_record();
    init_client2();
    init_ssh();
    init_etcd();
    init_plans_day2();
    init_bootstrap();
    init_day2_kube();
    init_kube();
    init_types2();
    json = (ctx, name) => JSON.parse(param(ctx, name));
    healthLine = (view2) => {
      const states = memberStates(view2);
      const voters = states.filter((s2) => !s2.learner);
      return `${voters.filter((s2) => s2.healthy).length} of ${voters.length} members healthy (quorum ${quorumOf(voters.length)})${states.some((s2) => s2.learner) ? `, ${states.filter((s2) => s2.learner).length} learner` : ""}`;
    };
    REPLACEABLE = /* @__PURE__ */ new Set(["DaemonSet", "Deployment", "ConfigMap", "Secret", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "PodDisruptionBudget"]);
    membershipActions = {
      "etcd-guard": etcdGuard,
      "etcd-join": etcdJoin,
      "remove-guard": removeGuard,
      "etcd-leave": etcdLeave,
      drain,
      "remove-node": removeNode,
      "apply-objects": applyObjects,
      "record-definition": recordDefinition,
      "verify-nodes": verifyNodes,
      "push-and-run": pushAndRun,
      endpoint,
      /** Runs the step's planned commands in order (staging downloads, image pulls). */
      async "run-execs"(ctx) {
        needHost(ctx);
        const out = [];
        try {
          for (const e of (ctx.planned.exec ?? []).filter((x) => x.when === "always")) {
            const r2 = await runPlanned2(ctx, e);
            const lines = r2.stdout.toString("utf8").trim().split("\n").filter(Boolean);
            out.push(`${e.id}: ${lines.length > 1 ? `${lines.length} done` : (lines[0] ?? "done").replace(/^bootdeck-/, "")}`);
          }
          return { ok: true, summary: out.join("; ") };
        } catch (err) {
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/actions/upgrade.ts
async function upgradePreflight(ctx) {
  const host3 = needHost(ctx);
  const to = param(ctx, "to");
  const r2 = await runPlanned2(ctx, plannedExec3(ctx, "preflight"), { quiet: true });
  const kv = Object.fromEntries(
    r2.stdout.toString("utf8").split("\n").map((l) => l.split("=")).filter((x) => x.length >= 2)
  );
  const errors = [];
  const notes = [];
  if (kv.binary !== "ok") errors.push(`the binary mirror does not serve kubelet ${to}`);
  if (kv.sums !== "ok") errors.push(`the binary mirror publishes no checksum for kubelet ${to}`);
  if (Number(kv.free_kb) < MIN_FREE_KB || Number(kv.stage_free_kb) < MIN_FREE_KB) errors.push(`less than ${MIN_FREE_KB / 1024} MiB free for the new binaries (${Math.round(Number(kv.free_kb) / 1024)} MiB)`);
  if (kv.cgroup === "tmpfs" && capabilitiesFor(to).cgroupV1Refused) {
    if (param(ctx, "allowCgroupV1") === "true") notes.push("cgroup v1: allowed by the definition (kubelet told failCgroupV1: false)");
    else errors.push(`${host3.name} runs cgroup v1, which the kubelet of ${to} refuses; move the host to cgroup v2 or set spec.kubernetes.allowCgroupV1`);
  }
  if (errors.length) return { ok: false, error: `preflight of ${to} failed on ${host3.name}: ${errors.join("; ")}` };
  return { ok: true, summary: `kubelet ${kv.kubelet || "(none)"} now; ${to} served by the mirror; ${Math.round(Number(kv.free_kb) / 1024)} MiB free${notes.length ? `; ${notes.join("; ")}` : ""}` };
}
async function upgradeCheck(ctx) {
  const from = param(ctx, "from");
  const to = param(ctx, "to");
  const api = ctx.resources.api();
  const pods = (await api.getJson(`/api/v1/namespaces/kube-system/pods?labelSelector=${encodeURIComponent("k8s-app=kube-apiserver")}`, ctx.signal))?.items ?? [];
  const nodes2 = (await api.getJson("/api/v1/nodes", ctx.signal))?.items ?? [];
  const apiservers = Object.fromEntries(pods.map((p2) => [p2.spec?.nodeName ?? p2.metadata?.name ?? "?", tagOf(p2.spec?.containers?.[0]?.image ?? "")]));
  const kubelets = Object.fromEntries(nodes2.map((n) => [n.metadata?.name ?? "?", n.status?.nodeInfo?.kubeletVersion ?? ""]));
  const skew = runningSkewProblem({ from, to, apiservers, kubelets });
  if (skew) return { ok: false, error: `version skew: ${skew}` };
  const hosts = ctx.hosts.map((h) => h.name);
  const notReady = hosts.filter((h) => {
    const n = nodes2.find((x) => x.metadata?.name === h);
    return !n || n.status?.conditions?.find((c) => c.type === "Ready")?.status !== "True";
  });
  if (notReady.length) return { ok: false, error: `not every node is Ready (${notReady.join(", ")}): an upgrade drains nodes one batch at a time and needs the others to take their pods; fix them first` };
  const { view: view2, on } = await etcdView(ctx);
  const problem = membershipProblem(view2, JSON.parse(param(ctx, "expected")));
  if (problem) return { ok: false, error: `refusing to upgrade: ${problem}` };
  const versions = [...new Set(Object.values(apiservers))].join(", ");
  return { ok: true, summary: `API servers ${versions}; kubelets ${[...new Set(Object.values(kubelets))].join(", ")}; ${nodes2.length} nodes Ready; etcd (asked on ${on}) ${memberStates(view2).length} members healthy` };
}
async function etcdUpgrade(ctx) {
  const host3 = needHost(ctx);
  const image = param(ctx, "image");
  const expected = JSON.parse(param(ctx, "expected"));
  const wanted = tagOf(image).replace(/-\d+$/, "");
  const started = Date.now();
  try {
    const up = await pushPlannedFiles(ctx, host3);
    await ctx.wait(`etcd on ${host3.name} Running and Ready with ${image}`, { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
      const pod = await ctx.resources.api().getJson(`/api/v1/namespaces/kube-system/pods/etcd-${encodeURIComponent(host3.name)}`, ctx.signal);
      if (!pod) return { ok: false, why: `no etcd pod of ${host3.name} listed yet` };
      if (pod.spec?.containers?.[0]?.image !== image) return { ok: false, why: `${host3.name}'s etcd pod still runs ${pod.spec?.containers?.[0]?.image}` };
      return podReady(pod) ? { ok: true, value: void 0 } : { ok: false, why: podLine(pod) };
    });
    let line2 = "";
    await ctx.wait(`every etcd member healthy, ${host3.name}'s on ${wanted}`, { timeoutMs: 3 * 6e4, intervalMs: 2e3 }, async () => {
      const { view: view2 } = await etcdView(ctx);
      const problem = membershipProblem(view2, expected);
      if (problem) return { ok: false, why: problem };
      const m = view2.members.find((x) => x.name === host3.name);
      const st = view2.statuses.find((s2) => s2.memberId === m?.id);
      if (st?.version !== wanted) return { ok: false, why: `${host3.name}'s etcd reports ${st?.version ?? "no version"}` };
      line2 = view2.statuses.map((s2) => `${view2.members.find((x) => x.id === s2.memberId)?.name ?? s2.endpoint} ${s2.version}`).join(", ");
      return { ok: true, value: void 0 };
    });
    return { ok: true, summary: `${up.written ? "etcd pod replaced" : "etcd pod in place"}; healthy after ${((Date.now() - started) / 1e3).toFixed(1)} s; members: ${line2}` };
  } catch (err) {
    return failure(err);
  }
}
async function pausedBy(runId) {
  const last = await getDb().runEvent.findFirst({ where: { runId, type: { in: ["run.pause-requested", "run.resumed"] } }, orderBy: { seq: "desc" }, select: { type: true, data: true, createdAt: true } });
  if (last?.type !== "run.pause-requested") return void 0;
  const data = JSON.parse(last.data ?? "{}");
  return { by: data.by ?? "someone", at: last.createdAt };
}
async function upgradeGate(ctx) {
  const paused = await pausedBy(ctx.runId);
  if (!paused) return { ok: true, summary: "no pause asked for" };
  const since = Date.now();
  await ctx.wait(
    `the upgrade to be resumed (paused by ${paused.by})`,
    { timeoutMs: Math.max(6e4, ctx.planned.timeoutMs - 6e4), intervalMs: 2e3 },
    async () => await pausedBy(ctx.runId) ? { ok: false, why: "paused" } : { ok: true, value: void 0 }
  );
  return { ok: true, summary: `paused by ${paused.by}, resumed after ${((Date.now() - since) / 6e4).toFixed(1)} min` };
}
async function kubeletUpgrade(ctx) {
  const host3 = needHost(ctx);
  const to = param(ctx, "to");
  const from = param(ctx, "from");
  const readyTimeoutMs = Number(param(ctx, "readyTimeoutMs"));
  const started = Date.now();
  const node = await readNode(ctx, host3.name);
  if (!node) return { ok: false, error: `${host3.name} is not registered: it cannot be upgraded in place` };
  if (node.kubeletVersion === to && node.ready) {
    const up = await pushPlannedFiles(ctx, host3);
    if (up.written === 0) {
      const uncordoned = await setUnschedulable(ctx, host3.name, false);
      return { ok: true, summary: `${host3.name} runs kubelet ${to} already${uncordoned ? "; uncordoned" : ""}` };
    }
  }
  let drained = "";
  try {
    drained = await drainNode(ctx, host3.name, Number(param(ctx, "drainTimeoutMs")));
    await runPlanned2(ctx, plannedExec3(ctx, "save"));
    for (const e of (ctx.planned.exec ?? []).filter((x) => x.id.startsWith("swap "))) await runPlanned2(ctx, e);
    await pushPlannedFiles(ctx, host3);
  } catch (err) {
    return failure(err);
  }
  let reason;
  try {
    await runPlanned2(ctx, plannedExec3(ctx, "start"));
  } catch (err) {
    reason = `kubelet ${to} did not keep running on ${host3.name}: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!reason) {
    let polls = 0;
    try {
      await ctx.wait(`${host3.name} Ready with kubelet ${to}`, { timeoutMs: readyTimeoutMs, intervalMs: 2e3 }, async () => {
        if (polls++ % 5 === 4) await assertAnswers(ctx, host3, "while its kubelet restarted");
        const n = await readNode(ctx, host3.name);
        if (!n) return { ok: false, why: `${host3.name} is not registered` };
        if (n.kubeletVersion !== to) return { ok: false, why: `${host3.name} reports kubelet ${n.kubeletVersion}` };
        return n.ready ? { ok: true, value: void 0 } : { ok: false, why: `${host3.name} ${n.why}` };
      });
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
  }
  if (reason) return rollback(ctx, reason, from);
  await setUnschedulable(ctx, host3.name, false);
  return { ok: true, summary: `${from} \u2192 ${to} in ${((Date.now() - started) / 1e3).toFixed(1)} s: ${drained}; kubelet swapped and Ready; uncordoned`, data: { upgradeS: (Date.now() - started) / 1e3 } };
}
async function rollback(ctx, reason, from) {
  const host3 = needHost(ctx);
  const journal3 = await neededLines(ctx, "journal");
  try {
    const r2 = await runPlanned2(ctx, plannedExec3(ctx, "rollback"));
    let version = "";
    await ctx.wait(`${host3.name} Ready again with its previous kubelet`, { timeoutMs: 3 * 6e4, intervalMs: 2e3 }, async () => {
      const n = await readNode(ctx, host3.name);
      if (!n?.ready || n.kubeletVersion === param(ctx, "to")) return { ok: false, why: n ? `${host3.name} ${n.ready ? `reports ${n.kubeletVersion}` : n.why}` : "not registered" };
      version = n.kubeletVersion;
      return { ok: true, value: void 0 };
    });
    await setUnschedulable(ctx, host3.name, false);
    return {
      ok: false,
      error: `${reason}; rolled back (${r2.stdout.toString("utf8").trim().split("\n").pop() ?? ""}): ${host3.name} is Ready with kubelet ${version || from} and uncordoned; the upgrade stops here`,
      hint: "read the kubelet's journal below; fix the cause, then retry the run: it goes on from this node",
      data: { journal: journal3, rolledBack: true }
    };
  } catch (err) {
    return { ok: false, error: `${reason}; the rollback failed too: ${err instanceof Error ? err.message : String(err)} (${host3.name} stays cordoned)`, data: { journal: journal3 } };
  }
}
var MIN_FREE_KB, tagOf, upgradeActions;
var init_upgrade = __esm({
  "lib/engine/actions/upgrade.ts"() {
    "use strict";
    init_client2();
    init_capabilities();
    init_etcd();
    init_skew();
    init_bootstrap();
    init_day2_kube();
    init_kube();
    init_membership();
    init_types2();
    MIN_FREE_KB = 400 * 1024;
    tagOf = (image) => image.slice(image.lastIndexOf(":") + 1);
    upgradeActions = {
      "upgrade-preflight": upgradePreflight,
      "upgrade-check": upgradeCheck,
      "etcd-upgrade": etcdUpgrade,
      "upgrade-gate": upgradeGate,
      "kubelet-upgrade": kubeletUpgrade
    };
  }
});

// lib/engine/actions/backup.ts
function plannedMembers(ctx) {
  return (ctx.planned.exec ?? []).filter((e) => e.id === "save").map((e) => e.host ?? "");
}
async function snapshotFrom(ctx, member, clusterId2, backupId) {
  const send = (id, extra = {}) => runPlanned(ctx, plannedExec2(ctx, id, member), { allowFailure: true, quiet: true, ...extra });
  const saved = await send("save");
  if (saved.exitCode !== 0) throw new Error(saved.stderrTail.slice(-4).join("; ") || `exit ${saved.exitCode}`);
  const report = parseSnapshotReport(saved.stdout.toString("utf8"));
  await ctx.emit("step.progress", { key: ctx.planned.key, message: `snapshot saved on ${member}: revision ${report.revision}, ${formatBytes(report.size)}; streaming it back` });
  let writer = openSealedWriter(dataPath(backupRelPath(clusterId2, backupId)));
  const started = Date.now();
  try {
    const fetched = await send("fetch", { stdoutTo: writer.stream });
    if (fetched.exitCode !== 0) throw new Error(`reading the snapshot failed: ${fetched.stderrTail.slice(-3).join("; ")}`);
    const sealed = await writer.finish();
    writer = void 0;
    if (sealed.sha256 !== report.sha256 || sealed.size !== report.size)
      throw new Error(`the snapshot arrived changed: ${sealed.size} bytes with sha256 ${sealed.sha256}, the host has ${report.size} bytes with sha256 ${report.sha256}`);
    await send("discard");
    const run0 = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { createdById: true } });
    const trigger = ctx.planned.params?.trigger === "schedule" ? "schedule" : "manual";
    await ctx.store((tx) => recordBackup({ id: backupId, clusterId: clusterId2, runId: ctx.runId, trigger, createdById: run0.createdById, sealed, facts: { member, revision: report.revision, totalKeys: report.totalKeys, etcdVersion: report.etcdVersion } }, tx));
    const expired = await applyRetention({ clusterId: clusterId2 });
    const seconds = (Date.now() - started) / 1e3;
    return {
      summary: `backup ${backupId} from ${member}: etcd revision ${report.revision}, ${report.totalKeys} keys, ${formatBytes(report.size)} (sha256 ${report.sha256.slice(0, 12)}\u2026), streamed in ${seconds.toFixed(1)} s, stored encrypted${expired.length ? `; retention removed ${expired.length} older backup${expired.length === 1 ? "" : "s"}` : ""}`,
      data: { backupId, member, revision: report.revision, size: report.size, sha256: report.sha256, totalKeys: report.totalKeys, fetchSeconds: seconds, expired }
    };
  } catch (err) {
    await writer?.abort();
    await send("discard").catch(() => void 0);
    throw err;
  }
}
var MiB, formatBytes, backupActions;
var init_backup = __esm({
  "lib/engine/actions/backup.ts"() {
    "use strict";
    init_store2();
    init_sealed_file();
    init_client2();
    init_dr_scripts();
    init_bootstrap();
    init_types2();
    MiB = 1024 * 1024;
    formatBytes = (n) => n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
    backupActions = {
      /** Snapshot etcd on the first healthy master of the planned ones, stream it back, store it encrypted, apply retention. */
      async "etcd-snapshot"(ctx) {
        const backupId = ctx.planned.params?.backupId;
        if (!backupId) return { ok: false, error: "the plan names no backup id; plan the run again" };
        const { clusterId: clusterId2 } = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
        const errors = [];
        for (const member of plannedMembers(ctx)) {
          if (ctx.signal.aborted) break;
          try {
            const r2 = await snapshotFrom(ctx, member, clusterId2, backupId);
            return { ok: true, summary: `${r2.summary}${errors.length ? ` (skipped: ${errors.join("; ")})` : ""}`, data: r2.data };
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            errors.push(`${member}: ${message}`);
            await ctx.emit("step.progress", { key: ctx.planned.key, message: `no snapshot from ${member}: ${message}` });
          }
        }
        return {
          ok: false,
          error: `no master could take a snapshot: ${errors.join("; ") || "cancelled"}`,
          hint: "a snapshot needs one healthy etcd member; check the etcd pods on the masters (crictl ps --name etcd) and their logs"
        };
      }
    };
  }
});

// lib/engine/targets.ts
async function loadEngineHosts(params) {
  const db = getDb();
  const [rows, credentials] = await Promise.all([
    db.host.findMany({ where: { clusterId: params.clusterId }, orderBy: { position: "asc" } }),
    db.credential.findMany({ where: { clusterId: params.clusterId } })
  ]);
  const effective = params.definition.spec.hosts.map((h) => effectiveHost(params.definition, h));
  const forSsh = new Set(effective.flatMap((e) => [e.credential, e.bastion ? e.bastion.credential ?? e.credential : void 0]).filter((n) => !!n));
  const auth = /* @__PURE__ */ new Map();
  for (const c of credentials.filter((x) => forSsh.has(x.name))) {
    if (c.secretCipher && params.auditSecretUse !== false) await recordSecretUse({ credentialId: c.id, credentialName: c.name, clusterId: params.clusterId, runId: params.runId, purpose: params.purpose ?? "ssh" });
    if (c.kind === "agent") auth.set(c.name, { kind: "agent" });
    else if (c.kind === "password" && c.secretCipher) auth.set(c.name, { kind: "password", password: decryptSecret(c.secretCipher) });
    else if (c.secretCipher)
      auth.set(c.name, { kind: "key", privateKey: decryptSecret(c.secretCipher), ...c.passphraseCipher ? { passphrase: decryptSecret(c.passphraseCipher) } : {} });
  }
  const authFor = (name, host3) => {
    const a = name ? auth.get(name) : void 0;
    if (!a) throw new Error(`host ${host3} has no usable credential${name ? ` ("${name}" has no stored secret)` : ""}: edit the cluster and give one`);
    return a;
  };
  const byName = new Map(rows.map((r2) => [r2.name, r2]));
  return params.definition.spec.hosts.map((h) => {
    const e = effectiveHost(params.definition, h);
    const row = byName.get(e.name);
    if (!row) throw new Error(`host ${e.name} is in the definition but not in the database; save the cluster again`);
    const hostKey = {
      pinned: row.hostKeyFingerprint ?? void 0,
      onFirstContact: (fp) => params.onPinned({ id: row.id, name: row.name }, fp)
    };
    const bastion2 = e.bastion ? {
      id: `${e.name}-bastion`,
      address: e.bastion.address,
      port: e.bastion.port,
      user: e.bastion.user ?? e.user,
      auth: authFor(e.bastion.credential ?? e.credential, `${e.name}'s bastion`),
      // The bastion's key is trusted on first use per run; pinning bastions is a follow-up.
      hostKey: {}
    } : void 0;
    return {
      id: row.id,
      name: e.name,
      role: e.role,
      address: e.address,
      target: { id: e.name, address: e.address, port: e.port, user: e.user, auth: authFor(e.credential, e.name), hostKey, ...bastion2 ? { bastion: bastion2 } : {} }
    };
  });
}
var init_targets = __esm({
  "lib/engine/targets.ts"() {
    "use strict";
    init_derive();
    init_client2();
    init_cipher();
    init_record();
  }
});

// lib/certs/schemas.ts
var EXPIRY_WARNING_DAYS, expiryText;
var init_schemas2 = __esm({
  "lib/certs/schemas.ts"() {
    "use strict";
    EXPIRY_WARNING_DAYS = 30;
    expiryText = (daysLeft) => daysLeft < 0 ? `expired ${-daysLeft} days ago` : daysLeft === 0 ? "expires today" : `expires in ${daysLeft} day${daysLeft === 1 ? "" : "s"}`;
  }
});

// lib/certs/expiry.ts
var expiry_exports = {};
__export(expiry_exports, {
  assetCertificates: () => assetCertificates,
  certificateRow: () => certificateRow,
  clusterAlerts: () => clusterAlerts,
  readHostCertificates: () => readHostCertificates,
  readLiveCertificates: () => readLiveCertificates,
  servedCertificate: () => servedCertificate
});
function certificateRow(pem, at, now = /* @__PURE__ */ new Date()) {
  const c = new import_node_crypto20.X509Certificate(pem);
  const notAfter = new Date(c.validTo);
  const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / 864e5);
  const dn = (s2) => s2.split("\n").filter(Boolean).join(", ");
  return { ...at, subject: dn(c.subject), issuer: dn(c.issuer), serial: c.serialNumber, notAfter: notAfter.toISOString(), daysLeft, warn: daysLeft < EXPIRY_WARNING_DAYS };
}
async function latestCertificateAssets(clusterIds) {
  const db = getDb();
  const sets = await db.assetSet.findMany({ where: { clusterId: { in: clusterIds } }, orderBy: { version: "desc" }, select: { id: true, clusterId: true, version: true } });
  const newest = /* @__PURE__ */ new Map();
  for (const s2 of sets) if (!newest.has(s2.clusterId)) newest.set(s2.clusterId, s2);
  const rows = await db.asset.findMany({ where: { assetSetId: { in: [...newest.values()].map((s2) => s2.id) }, path: { endsWith: ".crt" }, sensitive: false }, select: { assetSetId: true, path: true, purpose: true, content: true } });
  const out = /* @__PURE__ */ new Map();
  for (const [clusterId2, s2] of newest) out.set(clusterId2, { version: s2.version, certs: rows.filter((r2) => r2.assetSetId === s2.id && !r2.path.startsWith("runtime/")) });
  return out;
}
async function assetCertificates({ clusterId: clusterId2 }) {
  if (!await getDb().cluster.findUnique({ where: { id: clusterId2 }, select: { id: true } })) throw notFound("Cluster");
  const set = (await latestCertificateAssets([clusterId2])).get(clusterId2);
  const rows = (set?.certs ?? []).map((c) => certificateRow(c.content, { source: c.path, host: null, what: c.purpose }));
  return { assetSetVersion: set?.version ?? null, rows: rows.sort((a, b) => a.daysLeft - b.daysLeft) };
}
async function clusterAlerts() {
  const clusters = await getDb().cluster.findMany({ select: { id: true } });
  const ids = clusters.map((c) => c.id);
  const [sets, schedules] = await Promise.all([latestCertificateAssets(ids), listScheduleHealth()]);
  const out = {};
  for (const id of ids) {
    const a = {};
    const health = schedules.get(id);
    if (health?.state === "failing") a.backup = `backups failing: ${health.message}`;
    const soonest = (sets.get(id)?.certs ?? []).map((c) => certificateRow(c.content, { source: c.path, host: null, what: c.purpose })).sort((x, y) => x.daysLeft - y.daysLeft)[0];
    if (soonest?.warn) a.certificates = `${soonest.source} ${expiryText(soonest.daysLeft)}`;
    if (a.backup || a.certificates) out[id] = a;
  }
  return out;
}
async function servedCertificate(executor, via, address2, port2, client, timeoutMs = 1e4) {
  const stream = await executor.forward(via, address2, port2);
  return new Promise((resolve, reject) => {
    const socket = import_node_tls.default.connect({ socket: stream, rejectUnauthorized: false, ...client ?? {} });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TLS handshake from ${address2}:${port2} within ${timeoutMs / 1e3} s`));
    }, timeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const raw2 = socket.getPeerCertificate(false)?.raw;
      socket.destroy();
      if (raw2) resolve(raw2);
      else reject(new Error(`${address2}:${port2} presented no certificate`));
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
async function readHostCertificates(executor, def, host3, etcdClient2, opts = {}) {
  const rows = [];
  const errors = [];
  const files = liveCertificateFiles(def, host3.role);
  try {
    const r2 = await executor.run(host3.target, opts.filesArgv ?? liveCertificatesArgv(def, host3.role), { step: opts.step ?? "certificates", quiet: true, timeoutMs: 2e4 });
    const found = parseCertFiles(r2.stdout.toString("utf8"));
    for (const f of files) {
      const pem = found.get(f.path);
      if (pem) rows.push(certificateRow(pem, { source: f.path, host: host3.name, what: f.what }));
    }
  } catch (err) {
    errors.push(`files: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ports = [{ port: 10250, what: "kubelet serving (TLS)" }];
  if (host3.role === "master") ports.push({ port: def.spec.apiEndpoint.port, what: "API server serving (TLS)" }, { port: 2379, what: "etcd client port serving (TLS)", client: etcdClient2 });
  for (const p2 of ports) {
    try {
      rows.push(certificateRow(await servedCertificate(executor, host3.target, host3.address, p2.port, p2.client), { source: `${host3.address}:${p2.port}`, host: host3.name, what: p2.what }));
    } catch (err) {
      errors.push(`${p2.what} on :${p2.port}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { rows, errors };
}
async function readLiveCertificates({ clusterId: clusterId2 }) {
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: clusterId2 }, select: { definition: true, hosts: { select: { name: true, hostKeyFingerprint: true } } } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.hosts.some((h) => !h.hostKeyFingerprint)) throw new AppError(409, "conflict", "Some host keys are not pinned yet: run a check of the cluster first");
  const definition = JSON.parse(cluster.definition);
  const etcdClient2 = await etcdClientCredentials(clusterId2);
  const executor = new Executor({ connectTimeoutMs: 1e4, retry: { attempts: 2 } });
  try {
    const hosts = await loadEngineHosts({
      clusterId: clusterId2,
      definition,
      purpose: "certificates",
      onPinned: async (h) => {
        throw new Error(`the host key of ${h.name} is not pinned yet: run a check of the cluster first`);
      }
    });
    const at = (/* @__PURE__ */ new Date()).toISOString();
    const results = await Promise.all(hosts.map(async (h) => ({ host: h.name, ...await readHostCertificates(executor, definition, h, etcdClient2) })));
    return {
      at,
      rows: results.flatMap((r2) => r2.rows).sort((a, b) => a.daysLeft - b.daysLeft),
      errors: results.flatMap((r2) => r2.errors.map((e) => ({ host: r2.host, error: executor.redactor.redact(e) })))
    };
  } catch (err) {
    if (isSshError(err)) throw new AppError(502, "ssh", executor.redactor.redact(err.message));
    throw err;
  } finally {
    await executor.close();
  }
}
async function etcdClientCredentials(clusterId2) {
  const db = getDb();
  const set = await db.assetSet.findFirst({ where: { clusterId: clusterId2 }, orderBy: { version: "desc" }, select: { id: true } });
  if (!set) return void 0;
  const rows = await db.asset.findMany({ where: { assetSetId: set.id, path: { in: ["tls/etcd-client.crt", "tls/etcd-client.key"] } }, select: { path: true, content: true, sensitive: true } });
  const get = (p2) => rows.find((r2) => r2.path === p2);
  const cert = get("tls/etcd-client.crt");
  const key = get("tls/etcd-client.key");
  if (!cert || !key) return void 0;
  return { cert: cert.content, key: key.sensitive ? decryptSecret(key.content) : key.content };
}
var import_node_crypto20, import_node_tls;
var init_expiry = __esm({
  "lib/certs/expiry.ts"() {
    "use strict";
    import_node_crypto20 = require("node:crypto");
    import_node_tls = __toESM(require("node:tls"));
    init_client2();
    init_errors();
    init_cipher();
    init_ssh();
    init_files();
    init_store2();
    init_targets();
    init_schemas2();
  }
});

// lib/engine/actions/certs.ts
function probeApi(ctx) {
  const api = ctx.resources.api();
  let stopped = false;
  let probes = 0;
  let failed = 0;
  let downSince;
  let longest = 0;
  const loop = (async () => {
    while (!stopped && !ctx.signal.aborted) {
      const at = Date.now();
      let ok = false;
      try {
        ok = (await api.request("/readyz", { timeoutMs: 2e3 })).status === 200;
      } catch {
        ok = false;
      }
      probes++;
      if (ok) {
        if (downSince !== void 0) longest = Math.max(longest, at - downSince);
        downSince = void 0;
      } else {
        failed++;
        downSince ??= at;
      }
      await new Promise((r2) => setTimeout(r2, Math.max(0, 250 - (Date.now() - at))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      if (downSince !== void 0) longest = Math.max(longest, Date.now() - downSince);
      return { probes, failed, longestGapS: longest / 1e3 };
    }
  };
}
function uploadPlanned(ctx, host3) {
  return ctx.executor.upload(host3.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
}
async function apiserverSerials(ctx) {
  const port2 = ctx.resources.definition.spec.apiEndpoint.port;
  const out = /* @__PURE__ */ new Map();
  await Promise.all(
    ctx.resources.masters.map(async (m) => {
      try {
        out.set(m.name, serialOf(await servedCertificate(ctx.executor, m.target, m.address, port2)));
      } catch (err) {
        out.set(m.name, `unreachable (${err instanceof Error ? err.message : String(err)})`);
      }
    })
  );
  return out;
}
async function leaseRenewedAt(ctx, node) {
  const lease = await ctx.resources.api().getJson(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(node)}`, ctx.signal);
  return Date.parse(lease?.spec?.renewTime ?? "") || 0;
}
async function kubeletClientSerial(ctx) {
  const r2 = await runPlanned(ctx, plannedExec2(ctx, "client-cert"), { quiet: true, timeoutMs: 2e4 });
  const pem = [...parseCertFiles(textOf(r2)).values()][0];
  return pem ? serialOf(pem) : void 0;
}
var import_node_crypto21, import_yaml6, textOf, serialOf, gapText, etcdClient, certActions;
var init_certs = __esm({
  "lib/engine/actions/certs.ts"() {
    "use strict";
    import_node_crypto21 = require("node:crypto");
    import_yaml6 = __toESM(require("yaml"));
    init_expiry();
    init_files();
    init_cluster_api();
    init_bootstrap();
    init_dr_scripts();
    init_kube();
    init_types2();
    textOf = (r2) => r2.stdout.toString("utf8");
    serialOf = (pem) => new import_node_crypto21.X509Certificate(pem).serialNumber;
    gapText = (p2) => `API probed ${p2.probes} times, ${p2.failed} failed, longest gap ${p2.longestGapS.toFixed(1)} s`;
    etcdClient = (ctx) => ({ cert: ctx.resources.asset("tls/etcd-client.crt"), key: ctx.resources.asset("tls/etcd-client.key") });
    certActions = {
      /** A member's new etcd pairs; then its client port serves the new serial and every member is healthy. */
      async "etcd-certs"(ctx) {
        const host3 = needHost(ctx);
        const want = ctx.planned.params?.serial ?? "";
        const members = Number(ctx.planned.params?.members ?? "1");
        try {
          const up = await uploadPlanned(ctx, host3);
          await ctx.wait(`${host3.address}:2379 serving serial ${want} and ${members} healthy members`, { timeoutMs: 4 * 6e4, intervalMs: 2e3 }, async () => {
            const serial = serialOf(await servedCertificate(ctx.executor, host3.target, host3.address, 2379, etcdClient(ctx)));
            if (serial !== want) return { ok: false, why: `serves serial ${serial}` };
            const h = parseEtcdHealth(textOf(await runPlanned(ctx, plannedExec2(ctx, "status"), { quiet: true, timeoutMs: 3e4 })));
            const healthy = h.members.filter((m) => m.healthy).length;
            return healthy >= members ? { ok: true, value: void 0 } : { ok: false, why: `${healthy} of ${members} members healthy` };
          });
          return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; ${host3.address}:2379 serves serial ${want}; ${members} members healthy` };
        } catch (err) {
          return failure(err);
        }
      },
      /** The self-hosted control plane's Secrets from the renewed set (merge patches of their data). */
      async "update-secrets"(ctx) {
        try {
          const api = ctx.resources.api();
          const done = [];
          for (const asset of (ctx.planned.params?.manifests ?? "").split(",").filter(Boolean)) {
            for (const doc of import_yaml6.default.parseAllDocuments(ctx.resources.asset(asset))) {
              const o2 = doc.toJSON();
              if (o2?.kind !== "Secret" || !o2.metadata?.name) continue;
              const path22 = `/api/v1/namespaces/${o2.metadata.namespace ?? "kube-system"}/secrets/${encodeURIComponent(o2.metadata.name)}`;
              const r2 = await api.request(path22, { method: "PATCH", body: { data: o2.data ?? {} }, contentType: "application/merge-patch+json", signal: ctx.signal });
              if (r2.status !== 200) throw new Error(`updating Secret ${o2.metadata.name}: HTTP ${r2.status} ${apiMessage(r2.body)}`);
              done.push(o2.metadata.name);
            }
          }
          return { ok: true, summary: `Secrets ${done.join(", ")} updated` };
        } catch (err) {
          return failure(err);
        }
      },
      /** The step's files onto its host. */
      async "push-files"(ctx) {
        try {
          const up = await uploadPlanned(ctx, needHost(ctx));
          return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed` };
        } catch (err) {
          return failure(err);
        }
      },
      /** Until every master's API port serves the renewed certificate; the API probed meanwhile. */
      async "apiserver-serial"(ctx) {
        const want = ctx.planned.params?.serial ?? "";
        const probe2 = probeApi(ctx);
        const started = Date.now();
        try {
          await ctx.wait(`every API server serving serial ${want}`, { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
            const serials = await apiserverSerials(ctx);
            const behind = [...serials].filter(([, s2]) => s2 !== want);
            return behind.length ? { ok: false, why: behind.map(([m, s2]) => `${m} serves ${s2}`).join("; ") } : { ok: true, value: void 0 };
          });
          const p2 = await probe2.stop();
          return { ok: true, summary: `every API server serves serial ${want} after ${((Date.now() - started) / 1e3).toFixed(0)} s; ${gapText(p2)}`, data: { apiGapS: p2.longestGapS, failedProbes: p2.failed } };
        } catch (err) {
          await probe2.stop();
          return failure(err);
        }
      },
      /** A temporary API server beside the master's own while its control plane restarts; then it goes. */
      async "apiserver-restart"(ctx) {
        const host3 = needHost(ctx);
        const probe2 = probeApi(ctx);
        try {
          await uploadPlanned(ctx, host3);
          await ctx.wait(`the temporary API server ready on ${host3.name}`, { timeoutMs: 4 * 6e4, intervalMs: 2e3 }, async () => {
            const out = textOf(await runPlanned(ctx, plannedExec2(ctx, "temp-ready"), { quiet: true, timeoutMs: 2e4 })).trim();
            return out === "ready" ? { ok: true, value: void 0 } : { ok: false, why: "its pod is not ready yet" };
          });
          const restarted = textOf(await runLocked(ctx, plannedExec2(ctx, "restart"))).trim().split("\n").filter(Boolean);
          await runLocked(ctx, plannedExec2(ctx, "remove"));
          await ctx.wait(`the temporary API server gone from ${host3.name}`, { timeoutMs: 2 * 6e4, intervalMs: 2e3 }, async () => {
            const out = textOf(await runPlanned(ctx, plannedExec2(ctx, "temp-ready"), { quiet: true, timeoutMs: 2e4 })).trim();
            return out === "waiting" ? { ok: true, value: void 0 } : { ok: false, why: "it still runs" };
          });
          const p2 = await probe2.stop();
          return { ok: true, summary: `${restarted.join("; ")}; ${gapText(p2)}`, data: { apiGapS: p2.longestGapS, failedProbes: p2.failed } };
        } catch (err) {
          await probe2.stop();
          return failure(err);
        }
      },
      /** A node's kubelet certificates renewed; then it renews its lease and is Ready (workers: with a client certificate from a new CSR). */
      async "kubelet-certs"(ctx) {
        const host3 = needHost(ctx);
        try {
          const before = host3.role === "worker" ? await kubeletClientSerial(ctx) : void 0;
          if (ctx.planned.files.length) await uploadPlanned(ctx, host3);
          await runLocked(ctx, plannedExec2(ctx, "renew"));
          const restartedAt = Date.now();
          let after;
          await ctx.wait(`${host3.name}'s kubelet back: lease renewed, Ready${host3.role === "worker" ? ", a new client certificate" : ""}`, { timeoutMs: 4 * 6e4, intervalMs: 2e3 }, async () => {
            if (await leaseRenewedAt(ctx, host3.name) <= restartedAt) return { ok: false, why: "its lease was not renewed since the restart" };
            const node = await ctx.resources.api().getJson(`/api/v1/nodes/${encodeURIComponent(host3.name)}`, ctx.signal);
            const r2 = node ? nodeReady(node) : { ready: false, why: "not registered" };
            if (!r2.ready) return { ok: false, why: r2.why };
            if (host3.role === "worker") {
              after = await kubeletClientSerial(ctx);
              if (!after || after === before) return { ok: false, why: "no new client certificate yet (its CSR is not approved and signed)" };
            }
            return { ok: true, value: void 0 };
          });
          return { ok: true, summary: `${host3.name} Ready with a new serving certificate${host3.role === "worker" ? ` and client certificate ${after} (was ${before ?? "none"})` : " and the renewed kubeconfig"}` };
        } catch (err) {
          return failure(err);
        }
      },
      /** Every host read again: what it serves and holds is the renewed set's, and nothing ends within the warning window. */
      async "certs-verify"(ctx) {
        try {
          const def = ctx.resources.definition;
          const want = /* @__PURE__ */ new Map([[`:${def.spec.apiEndpoint.port}`, ctx.planned.params?.apiserver ?? ""]]);
          const problems = [];
          let count2 = 0;
          for (const h of ctx.hosts) {
            const { rows, errors } = await readHostCertificates(ctx.executor, def, h, etcdClient(ctx), { filesArgv: plannedExec2(ctx, "certs", h.name).argv, step: ctx.planned.key });
            problems.push(...errors.map((e) => `${h.name}: ${e}`));
            count2 += rows.length;
            for (const r2 of rows) {
              if (r2.warn) problems.push(`${h.name} ${r2.source} ends ${r2.notAfter}`);
              const expected = r2.source.endsWith(`:${def.spec.apiEndpoint.port}`) ? want.get(`:${def.spec.apiEndpoint.port}`) : r2.source.endsWith(":2379") || r2.source === "/etc/kubernetes/etcd/server.crt" ? serialOf(ctx.resources.asset(`tls/etcd/server-${h.name}.crt`)) : r2.source === "/etc/kubernetes/etcd/peer.crt" ? serialOf(ctx.resources.asset(`tls/etcd/peer-${h.name}.crt`)) : r2.source.endsWith("/apiserver.crt") ? serialOf(ctx.resources.asset("tls/apiserver.crt")) : void 0;
              if (expected && r2.serial !== expected) problems.push(`${h.name} ${r2.source} has serial ${r2.serial}, the renewed set's is ${expected}`);
            }
          }
          if (problems.length) return { ok: false, error: `after the rotation: ${problems.join("; ")}` };
          return { ok: true, summary: `${count2} certificates read from ${ctx.hosts.length} hosts: the renewed ones everywhere, none ending within 30 days` };
        } catch (err) {
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/actions/restore.ts
async function waitForApiHealthy(ctx, timeoutMs) {
  const api = ctx.resources.api();
  await ctx.wait(`the API at ${api.endpoint} (healthz, kube-system)`, { timeoutMs, intervalMs: 2e3 }, async () => {
    const health = await api.request("/healthz", { timeoutMs: 5e3, signal: ctx.signal });
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status} ${health.body.slice(0, 120)}` };
    const ns = await api.request("/api/v1/namespaces/kube-system", { timeoutMs: 5e3, signal: ctx.signal });
    return ns.status === 200 ? { ok: true, value: void 0 } : { ok: false, why: `kube-system not readable (HTTP ${ns.status} ${apiMessage(ns.body)})` };
  });
}
var textOf2, planned, lastLine, restoreActions;
var init_restore = __esm({
  "lib/engine/actions/restore.ts"() {
    "use strict";
    init_store2();
    init_client2();
    init_cluster_api();
    init_bootstrap();
    init_dr_scripts();
    init_kube();
    init_types2();
    textOf2 = (r2) => r2.stdout.toString("utf8");
    planned = (ctx, id) => (ctx.planned.exec ?? []).filter((e) => e.id === id);
    lastLine = (text) => text.trim().split("\n").at(-1) ?? "";
    restoreActions = {
      /** The stored snapshot onto a master, checked there, unless the master holds it already. */
      async "snapshot-upload"(ctx) {
        const host3 = needHost(ctx);
        try {
          const backupId = ctx.planned.params?.backupId ?? "";
          const { clusterId: clusterId2 } = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
          const backup2 = await getBackupOrThrow({ clusterId: clusterId2, backupId });
          const have = textOf2(await runPlanned(ctx, plannedExec2(ctx, "probe"), { quiet: true })).trim();
          if (have === backup2.sha256) return { ok: true, summary: `${host3.name} holds backup ${backupId} already (sha256 ${backup2.sha256.slice(0, 12)}\u2026)` };
          const opened = await openVerifiedBackup(backup2);
          const started = Date.now();
          const out = textOf2(await runLocked(ctx, plannedExec2(ctx, "upload"), { stdin: opened.stream }));
          return { ok: true, summary: `${lastLine(out)} to ${host3.name} in ${((Date.now() - started) / 1e3).toFixed(1)} s (sha256 ${backup2.sha256.slice(0, 12)}\u2026 checked there)` };
        } catch (err) {
          return failure(err);
        }
      },
      /** The step's planned commands, in order; its summary is the last one's last line. */
      async "host-script"(ctx) {
        try {
          let out = "";
          for (const e of ctx.planned.exec ?? []) if (e.when !== "needed") out = textOf2(await runLocked(ctx, e));
          return { ok: true, summary: lastLine(out) || "done" };
        } catch (err) {
          return failure(err);
        }
      },
      /** Waits until every etcd member answers healthy (and, after a restore, at the snapshot's revision or later). */
      async "etcd-healthy"(ctx) {
        const want = Number(ctx.planned.params?.members ?? "1");
        const minRevision = ctx.planned.params?.minRevision;
        let summary = "";
        try {
          await ctx.wait(`${want} healthy etcd member${want === 1 ? "" : "s"}${minRevision ? ` at revision ${minRevision} or later` : ""}`, { timeoutMs: 8 * 6e4, intervalMs: 3e3 }, async () => {
            const why = [];
            for (const e of planned(ctx, "status")) {
              let text;
              try {
                text = textOf2(await runPlanned(ctx, e, { quiet: true, timeoutMs: 3e4 }));
              } catch (err) {
                why.push(`${e.host}: ${err instanceof Error ? err.message : String(err)}`);
                continue;
              }
              const h = parseEtcdHealth(text);
              const healthy = h.members.filter((m) => m.healthy);
              if (healthy.length < want) {
                why.push(`${e.host} sees ${healthy.length} of ${want} members healthy${h.members.filter((m) => !m.healthy).map((m) => ` (${m.endpoint}: ${m.error ?? "unhealthy"})`).join("")}${h.errors.length ? ` (${h.errors.join("; ")})` : ""}`);
                continue;
              }
              const behind = minRevision ? healthy.filter((m) => !m.revision || BigInt(m.revision) < BigInt(minRevision)) : [];
              if (behind.length) {
                why.push(`${behind.map((m) => `${m.endpoint} at revision ${m.revision ?? "?"}`).join(", ")}, below the snapshot's ${minRevision}`);
                continue;
              }
              summary = `${healthy.length} members healthy (asked on ${e.host})${minRevision ? `, revision ${healthy.map((m) => m.revision).join("/")} (the snapshot's was ${minRevision})` : ""}`;
              return { ok: true, value: void 0 };
            }
            return { ok: false, why: why.join("; ") };
          });
          return { ok: true, summary };
        } catch (err) {
          return { ...failure(err), hint: "etcd has no healthy quorum: look at the etcd pods on the masters (crictl ps -a --name etcd; crictl logs); when its data is lost, restore a backup" };
        }
      },
      /** Waits (on the hosts, not in the API, whose pod statuses may be etcd's past) until the self-hosted control plane's containers run. */
      async "self-hosted-up"(ctx) {
        let summary = "";
        try {
          await ctx.wait("the self-hosted kube-apiserver on every master, a kube-controller-manager and a kube-scheduler", { timeoutMs: 10 * 6e4, intervalMs: 3e3 }, async () => {
            const counts = await Promise.all(
              planned(ctx, "running").map(async (e) => {
                const text = await runPlanned(ctx, e, { quiet: true, timeoutMs: 3e4 }).then(textOf2, () => "");
                return { host: e.host ?? "", n: Object.fromEntries(text.split("\n").filter((l) => l.includes("=")).map((l) => [l.split("=")[0], Number(l.split("=")[1])])) };
              })
            );
            const noApi = counts.filter((c) => !(c.n["kube-apiserver"] > 0)).map((c) => c.host);
            const total = (app) => counts.reduce((n, c) => n + (c.n[app] ?? 0), 0);
            const missing = [...noApi.length ? [`kube-apiserver on ${noApi.join(", ")}`] : [], ...["kube-controller-manager", "kube-scheduler"].filter((a) => total(a) === 0)];
            if (missing.length) return { ok: false, why: `not running yet: ${missing.join(", ")}` };
            summary = `running: ${counts.map((c) => `${c.host} ${Object.entries(c.n).filter(([, v]) => v > 0).map(([k]) => k.replace("kube-", "")).join("+")}`).join("; ")}`;
            return { ok: true, value: void 0 };
          });
          return { ok: true, summary };
        } catch (err) {
          return failure(err);
        }
      },
      /** The API server checkpoint on a master: its planned files, then the planned enable command (the watchdog restarted when they changed). */
      async checkpoint(ctx) {
        try {
          const done = await installCheckpoint(ctx, needHost(ctx));
          return { ok: true, summary: done.replace(/^; /, "") || "no checkpoint planned" };
        } catch (err) {
          return failure(err);
        }
      },
      /** A static control plane: the API answers again. */
      async "api-healthy"(ctx) {
        const started = Date.now();
        try {
          await waitForApiHealthy(ctx, 8 * 6e4);
          return { ok: true, summary: `API healthy after ${((Date.now() - started) / 1e3).toFixed(1)} s` };
        } catch (err) {
          return failure(err);
        }
      },
      /**
       * Every node alive after the event: its Lease renewed since this step began (a restored etcd says
       * Ready from the past; a kubelet renewing its lease is here now), Ready, and every pod Running and
       * Ready — on the masters, whose pods this run restarted, Ready since the run began.
       */
      async "verify-recovered"(ctx) {
        const begun = Date.now();
        const run4 = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { startedAt: true } });
        const since = (run4.startedAt ?? new Date(begun)).getTime();
        const restarted = new Set((ctx.planned.params?.restartedHosts ?? "").split(",").filter(Boolean));
        const api = ctx.resources.api();
        let summary = "";
        try {
          await ctx.wait("every node's kubelet renewing its lease, Ready, and every pod Running and Ready", { timeoutMs: 5 * 6e4, intervalMs: 2e3 }, async () => {
            const [nodes2, pods, leases] = await Promise.all([
              api.getJson("/api/v1/nodes", ctx.signal),
              api.getJson("/api/v1/pods", ctx.signal),
              api.getJson("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", ctx.signal)
            ]);
            const renewed = new Map((leases?.items ?? []).map((l) => [l.metadata?.name ?? "", Date.parse(l.spec?.renewTime ?? "") || 0]));
            const names = ctx.hosts.map((h) => h.name);
            const stale = names.filter((n) => (renewed.get(n) ?? 0) <= begun);
            if (stale.length) return { ok: false, why: `no lease renewed since this step began: ${stale.join(", ")}` };
            const notReady = names.filter((n) => {
              const node = nodes2?.items.find((x) => x.metadata?.name === n);
              return !node || !nodeReady(node).ready;
            });
            if (notReady.length) return { ok: false, why: `not Ready: ${notReady.join(", ")}` };
            const all = pods?.items ?? [];
            const bad = all.filter((p2) => !podReady(p2) && p2.status?.phase !== "Succeeded");
            if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 6).map(podLine).join("; ")}${bad.length > 6 ? ` and ${bad.length - 6} more` : ""}` };
            const old = all.filter((p2) => restarted.has(p2.spec?.nodeName ?? "") && p2.status?.phase !== "Succeeded" && (Date.parse(p2.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime ?? "") || 0) < since);
            if (old.length) return { ok: false, why: `pods whose status is from before the run (their kubelet has not reported yet): ${old.slice(0, 6).map(podLine).join("; ")}` };
            summary = `${nodes2?.items.length ?? 0} nodes Ready with their leases renewed, ${all.length} pods Running and Ready (${all.filter(isMirrorPod).length} static)`;
            return { ok: true, value: void 0 };
          });
          return { ok: true, summary };
        } catch (err) {
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/actions/static.ts
var staticActions;
var init_static = __esm({
  "lib/engine/actions/static.ts"() {
    "use strict";
    init_bootstrap();
    init_kube();
    init_types2();
    staticActions = {
      async "static-control-plane"(ctx) {
        const host3 = needHost(ctx);
        try {
          const files = plannedFiles(ctx);
          const up = await ctx.executor.upload(host3.target, files, { step: ctx.planned.key, signal: ctx.signal });
          const started = Date.now();
          await ctx.wait(`the static control plane of ${host3.name} Running and Ready`, { timeoutMs: 8 * 6e4, intervalMs: 2e3 }, async () => {
            const list = await ctx.resources.api().getJson(`/api/v1/namespaces/kube-system/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${host3.name}`)}`, ctx.signal);
            const pods = list?.items ?? [];
            const missing = CONTROL_PLANE_COMPONENTS.filter((c) => !pods.some((p2) => p2.metadata?.name === `${c}-${host3.name}` && podReady(p2)));
            if (!missing.length) return { ok: true, value: void 0 };
            const seen2 = pods.filter((p2) => missing.some((m) => p2.metadata?.name === `${m}-${host3.name}`)).map(podLine);
            return { ok: false, why: `not Running and Ready yet: ${missing.join(", ")}${seen2.length ? ` (seen: ${seen2.join("; ")})` : ""}` };
          });
          return { ok: true, summary: `${up.written} of ${files.length} files changed; control plane Running and Ready after ${((Date.now() - started) / 1e3).toFixed(1)} s` };
        } catch (err) {
          return failure(err);
        }
      }
    };
  }
});

// lib/engine/actions/dr.ts
var drActions;
var init_dr = __esm({
  "lib/engine/actions/dr.ts"() {
    "use strict";
    init_backup();
    init_certs();
    init_restore();
    init_static();
    drActions = {
      ...backupActions,
      ...restoreActions,
      ...staticActions,
      ...certActions
    };
  }
});

// lib/engine/schemas.ts
var import_zod7, hostName, createRunBody, retryRunBody, releaseRunBody, runIdParams, stepOutputParams, WARNINGS_NEED_DECISION, JOURNAL_MARKER;
var init_schemas3 = __esm({
  "lib/engine/schemas.ts"() {
    "use strict";
    import_zod7 = require("zod");
    init_batches();
    init_dr_schemas();
    hostName = import_zod7.z.string().min(1).max(253);
    createRunBody = import_zod7.z.discriminatedUnion(
      "type",
      [
        /** Phases 1–2 only (facts and preflight): nothing on the hosts changes. */
        import_zod7.z.strictObject({ type: import_zod7.z.literal("check") }),
        /** The whole self-hosted bootstrap, phases 1–10. */
        import_zod7.z.strictObject({ type: import_zod7.z.literal("bootstrap"), acceptWarnings: import_zod7.z.boolean().optional() }),
        /** Add hosts of the definition to a running cluster: workers join with the bootstrap token, masters join etcd one at a time. */
        import_zod7.z.strictObject({ type: import_zod7.z.literal("join"), hosts: import_zod7.z.array(hostName).min(1), acceptWarnings: import_zod7.z.boolean().optional() }),
        /** Stop the kubelet and remove what Bootdeck installed, on the named hosts. */
        import_zod7.z.strictObject({ type: import_zod7.z.literal("reset"), hosts: import_zod7.z.array(hostName).min(1), confirm: import_zod7.z.literal(true, { error: "resetting hosts needs confirm: true" }) }),
        /**
         * Take hosts out of a running cluster (etcd member first, drain, Node, reset) and out of its
         * definition. `reset: false` when a host is gone for good and cannot be reset.
         */
        import_zod7.z.strictObject({
          type: import_zod7.z.literal("remove"),
          hosts: import_zod7.z.array(hostName).min(1),
          confirm: import_zod7.z.literal(true, { error: "removing hosts needs confirm: true" }),
          reset: import_zod7.z.boolean().optional(),
          drainTimeoutSeconds: import_zod7.z.number().int().min(10).max(3600).optional()
        }),
        /** Roll the cluster to another Kubernetes version: control plane first, then the kubelets in batches. */
        import_zod7.z.strictObject({
          type: import_zod7.z.literal("upgrade"),
          version: import_zod7.z.string().max(32).regex(/^v\d+\.\d+\.\d+$/, "must look like v1.37.2"),
          batches: import_zod7.z.strictObject({ masters: batchSize.optional(), workers: batchSize.optional() }).optional(),
          drainTimeoutSeconds: import_zod7.z.number().int().min(10).max(3600).optional()
        }),
        ...drRunBodies
      ],
      { error: `type must be one of check, bootstrap, join, reset, remove, upgrade, ${drRunTypes.join(", ")}` }
    );
    retryRunBody = import_zod7.z.strictObject({
      step: import_zod7.z.string().min(1).max(600).optional(),
      host: hostName.optional(),
      /** Preflight warnings stop a bootstrap or join until an admin or lead accepts them. */
      acceptWarnings: import_zod7.z.boolean().optional()
    });
    releaseRunBody = import_zod7.z.strictObject({
      confirm: import_zod7.z.literal(true, { error: "releasing a run needs confirm: true" }),
      reason: import_zod7.z.string().trim().max(500).optional()
    });
    runIdParams = import_zod7.z.strictObject({ id: import_zod7.z.string().regex(/^run_[A-Za-z0-9_-]{16}$/) });
    stepOutputParams = import_zod7.z.strictObject({ id: runIdParams.shape.id, key: import_zod7.z.string().min(1).max(600).regex(/^[\x21-\x7e]+$/) });
    WARNINGS_NEED_DECISION = "need an admin's decision";
    JOURNAL_MARKER = "--- kubelet journal (last lines) ---";
  }
});

// lib/engine/actions/index.ts
async function storedFacts(hosts) {
  const rows = await getDb().host.findMany({ where: { id: { in: hosts.map((h) => h.id) } }, select: { id: true, name: true, facts: true } });
  return rows.filter((r2) => r2.facts).map((r2) => ({ name: r2.name, facts: JSON.parse(r2.facts) }));
}
async function warningsDecision(ctx) {
  if (!CHANGING_RUNS.has(ctx.runType)) return "not-needed";
  const accepted = await getDb().runEvent.findFirst({ where: { runId: ctx.runId, type: "run.warnings-accepted" }, select: { seq: true } });
  return accepted ? "accepted" : "needed";
}
function outcomeOf(findings, where, decision) {
  const errors = findings.filter((f) => f.severity === "error");
  const warnings = findings.filter((f) => f.severity === "warning");
  if (errors.length)
    return {
      ok: false,
      error: `preflight failed on ${where}: ${errors.map((e) => e.message).join("; ")}`,
      hint: errors.map((e) => e.hint).filter(Boolean).join(" \xB7 ") || void 0,
      data: { findings }
    };
  const listed = warnings.map((w) => w.message).join("; ");
  if (warnings.length && decision === "needed")
    return {
      ok: false,
      error: `preflight on ${where}: warnings ${WARNINGS_NEED_DECISION}: ${listed}`,
      hint: `${warnings.map((w) => w.hint).filter(Boolean).join(" \xB7 ")} \u2014 or, if they are acceptable here, accept the warnings and retry (an admin or lead; bootdeck apply --accept-warnings)`,
      data: { findings }
    };
  return { ok: true, summary: warnings.length ? `${warnings.length} warning${warnings.length === 1 ? "" : "s"}${decision === "accepted" ? " (accepted)" : ""}: ${listed}` : "all checks passed", data: { findings } };
}
var CHANGING_RUNS, actions;
var init_actions = __esm({
  "lib/engine/actions/index.ts"() {
    "use strict";
    init_client2();
    init_bootstrap();
    init_runtime2();
    init_membership();
    init_upgrade();
    init_dr();
    init_facts();
    init_preflight();
    init_schemas3();
    init_types2();
    CHANGING_RUNS = /* @__PURE__ */ new Set(["bootstrap", "join"]);
    actions = {
      /** Connect (pinning the host key on first contact) and record the host's facts. */
      async facts(ctx) {
        const host3 = needHost(ctx);
        const sentAt = Date.now();
        const r2 = await runPlanned(ctx, plannedExec2(ctx, "facts"), { quiet: true });
        const facts = parseFacts(r2.stdout.toString("utf8"), sentAt, Date.now());
        await ctx.store((tx) => tx.host.update({ where: { id: host3.id }, data: { facts: JSON.stringify(facts) } }));
        return { ok: true, summary: `${facts.os}, kernel ${facts.kernel}, ${facts.arch}, init ${facts.init}, clock ${facts.clockOffsetS >= 0 ? "+" : ""}${facts.clockOffsetS.toFixed(2)} s`, data: { facts } };
      },
      /** Read-only checks on one host. */
      async preflight(ctx) {
        const host3 = needHost(ctx);
        const r2 = await runPlanned(ctx, plannedExec2(ctx, "preflight"), { quiet: true });
        const target = { role: host3.role, caps: ctx.resources.caps, def: ctx.resources.definition };
        return outcomeOf(evaluateHost(parsePreflight(r2.stdout.toString("utf8")), target), host3.name, await warningsDecision(ctx));
      },
      /** Checks across hosts, from the facts phase 1 stored. */
      async "preflight-cluster"(ctx) {
        return outcomeOf(evaluateCluster(await storedFacts(ctx.hosts)), "the cluster", await warningsDecision(ctx));
      },
      ...bootstrapActions,
      ...runtimeActions,
      ...membershipActions,
      ...upgradeActions,
      ...drActions
    };
  }
});

// lib/engine/hints.ts
function hintFor(message) {
  return known.find(([re]) => re.test(message))?.[1];
}
var known;
var init_hints = __esm({
  "lib/engine/hints.ts"() {
    "use strict";
    known = [
      [/swap/i, "turn swap off (`swapoff -a`, and remove it from /etc/fstab), then retry the host"],
      [/address already in use|port .* in use|bind: /i, "another process holds the port \u2014 an earlier install or the bootstrap control plane; reset the host or stop it, then retry"],
      [/x509|certificate/i, "a certificate does not match: check that the API endpoint and every master address are in the apiserver certificate (re-render the assets)"],
      [/etcd.*(unreachable|refused|deadline)|connection refused.*2379/i, "etcd is not reachable: check that port 2379 is open between masters and that the clocks agree"],
      [/cni|network plugin|NetworkPluginNotReady/i, "the pod network is not up yet: check the flannel pods (kube-system) and /etc/cni/net.d on the node"],
      [/unknown flag/i, "the kubelet rejected a flag: the installed kubelet's version does not match spec.kubernetes.version \u2014 check the binaries' URL and sums, then retry the host"],
      [/not running steadily/i, "the kubelet keeps exiting: read its journal lines in the output (a file named by a flag missing, a wrong kubeconfig, swap on), fix that, then retry the host"],
      [/kubelet.*(not found|No such file)/i, "the kubelet binary is missing: check the binaries step and the mirror URL"],
      [/clock|skew/i, "enable NTP on every host (systemd-timesyncd or chrony)"],
      [/unreachable|timed out|EHOSTUNREACH|ETIMEDOUT/i, "check that the host is up and reachable on its SSH port from the dashboard (and through its bastion, if any), then retry"],
      [/host key/i, "if the host was reinstalled, re-pin its host key on the cluster page; otherwise treat it as an attack"],
      [/authentication|auth failed|All configured authentication methods failed/i, "check the user name and credential for this host"]
    ];
  }
});

// lib/engine/run-resources.ts
async function loadRunResources(params) {
  const set = params.assetSetId ? await getDb().assetSet.findUnique({ where: { id: params.assetSetId }, select: { version: true, assets: { select: { path: true, content: true, sensitive: true, sha256: true } } } }) : null;
  return new RunResources(params.definition, set?.assets ?? [], params.executor, params.hosts, set?.version ?? null, params.api);
}
var RunResources;
var init_run_resources = __esm({
  "lib/engine/run-resources.ts"() {
    "use strict";
    init_capabilities();
    init_derive();
    init_client2();
    init_cipher();
    init_cluster_api();
    RunResources = class {
      constructor(definition, assets, executor, hosts, assetSetVersion, makeApi) {
        this.definition = definition;
        this.executor = executor;
        this.hosts = hosts;
        this.assetSetVersion = assetSetVersion;
        this.makeApi = makeApi;
        this.derived = deriveCluster(definition);
        this.caps = capabilitiesFor(definition.spec.kubernetes.version);
        this.assetRows = new Map(assets.map((a) => [a.path, a]));
      }
      definition;
      executor;
      hosts;
      assetSetVersion;
      makeApi;
      derived;
      caps;
      assetRows;
      clusterApi;
      get assetPaths() {
        return [...this.assetRows.keys()].sort();
      }
      hasAsset(path22) {
        return this.assetRows.has(path22);
      }
      asset(path22) {
        const row = this.assetRows.get(path22);
        if (!row) throw new Error(`asset ${path22} is not in asset set v${this.assetSetVersion ?? "?"}: re-render the assets and plan a new run`);
        return row.sensitive ? decryptSecret(row.content) : row.content;
      }
      get firstMaster() {
        const name = this.derived.masters[0]?.name;
        const h = this.hosts.find((x) => x.name === name);
        if (!h) throw new Error("the cluster has no first master");
        return h;
      }
      get masters() {
        return this.hosts.filter((h) => h.role === "master");
      }
      /** The cluster's API through a tunnel over the masters' SSH connections (first master first). */
      api() {
        if (this.makeApi) return this.clusterApi ??= this.makeApi(this);
        this.clusterApi ??= new ClusterApi({
          executor: this.executor,
          via: () => this.masters.map((m) => m.target),
          endpoint: { host: this.derived.apiEndpointHost, port: this.definition.spec.apiEndpoint.port },
          credentials: adminCredentialsFrom(this.asset("auth/kubeconfig"))
        });
        return this.clusterApi;
      }
      async close() {
        await this.clusterApi?.close();
      }
    };
  }
});

// lib/engine/summary.ts
function summarizeRun({ status, runHosts, steps }) {
  const failed = steps.filter((s2) => s2.status === "failed");
  const failedHosts = [...new Set(failed.map((s2) => s2.host).filter((h) => h !== null))];
  const clusterWide = failed.filter((s2) => s2.host === null);
  const parts = [];
  if (failedHosts.length) parts.push(`failed on ${failedHosts.length} of ${runHosts} hosts: ${failedHosts.join(", ")}`);
  for (const s2 of clusterWide) parts.push(`${parts.length ? "" : "failed: "}${s2.title} (${s2.key}): ${firstLine(s2.error) || "no error recorded"}`);
  const message = status === "succeeded" ? runHosts === 1 ? "1 host done" : `all ${runHosts} hosts done` : status === "cancelled" ? "cancelled by a user" : status === "needs-decision" ? `needs a decision: preflight warnings on ${failedHosts.length ? `${failedHosts.length} of ${runHosts} hosts (${failedHosts.join(", ")})` : "the cluster"} wait for an admin or lead to accept them` : parts.join("; ") || "failed: a step was stopped before it could finish";
  return {
    steps: steps.length,
    done: steps.filter((s2) => s2.status === "done").length,
    failed: failed.length,
    failedHosts,
    failedSteps: clusterWide.map((s2) => ({ key: s2.key, title: s2.title, error: s2.error })),
    message
  };
}
var firstLine;
var init_summary = __esm({
  "lib/engine/summary.ts"() {
    "use strict";
    firstLine = (s2) => {
      const line2 = (s2 ?? "").split("\n")[0] ?? "";
      return line2.length > 200 ? `${line2.slice(0, 200)}\u2026` : line2;
    };
  }
});

// lib/auth/roles.ts
var roles;
var init_roles = __esm({
  "lib/auth/roles.ts"() {
    "use strict";
    roles = ["admin", "lead", "support"];
  }
});

// lib/engine/run-rules.ts
function finishedStatus({ cancelled, stopped, failedErrors }) {
  if (cancelled) return "cancelled";
  if (failedErrors.length > 0 && failedErrors.every((e) => e?.includes(WARNINGS_NEED_DECISION))) return "needs-decision";
  return failedErrors.length > 0 || stopped ? "failed" : "succeeded";
}
var init_run_rules = __esm({
  "lib/engine/run-rules.ts"() {
    "use strict";
    init_roles();
    init_dr_schemas();
    init_schemas3();
  }
});

// lib/engine/runner.ts
async function executeRun(runId, options) {
  const staleMs = options.staleMs ?? 3e4;
  if (!await claimRun({ runId, workerId: options.workerId, staleMs })) return "not-claimed";
  const lease = { runId, workerId: options.workerId };
  try {
    return await executeClaimed(runId, lease, options, staleMs);
  } catch (err) {
    if (err instanceof LeaseLost) return "lost-lease";
    const reason = err instanceof Error ? err.message : String(err);
    try {
      await failRun(lease, `could not run: ${reason}`);
      return "failed";
    } catch (e) {
      if (e instanceof LeaseLost) return "lost-lease";
      throw e;
    }
  }
}
async function failRun(lease, message) {
  await finishAsHolder(lease, "failed", { steps: 0, done: 0, failed: 0, failedHosts: [], failedSteps: [], message });
}
async function finishAsHolder(lease, status, summary, leftover, write = writeAsHolder) {
  await write(lease, async (tx, append) => {
    if (leftover) await tx.step.updateMany({ where: { runId: lease.runId, status: { in: ["pending", "waiting", "running"] } }, data: { status: leftover } });
    else await tx.step.updateMany({ where: { runId: lease.runId, status: { in: ["pending", "waiting", "running"] } }, data: { status: "skipped", error: "not run: the run ended before it" } });
    const run4 = await tx.run.findUniqueOrThrow({ where: { id: lease.runId }, select: { clusterId: true } });
    await append({ type: "run.finished", data: { status, summary } });
    await tx.run.update({ where: { id: lease.runId }, data: { status, finishedAt: /* @__PURE__ */ new Date(), summary: JSON.stringify(summary), workerId: null } });
    await tx.cluster.updateMany({ where: { id: run4.clusterId, activeRunId: lease.runId }, data: { activeRunId: null } });
  });
}
async function executeClaimed(runId, lease, options, staleMs) {
  const db = getDb();
  const run4 = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { clusterId: true, type: true, plan: true, definition: true, assetSetId: true } });
  const plan = runPlan.parse(JSON.parse(run4.plan));
  if (!run4.definition) throw new Error("the run does not keep the definition it was planned from; plan it again");
  const definition = JSON.parse(run4.definition);
  const tails = /* @__PURE__ */ new Map();
  const pending = /* @__PURE__ */ new Map();
  const sink = (line2) => {
    const tail = tails.get(line2.step) ?? [];
    tail.push(`${line2.stream === "stderr" ? "! " : ""}${line2.line}`);
    if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    tails.set(line2.step, tail);
    pending.set(line2.step, [...pending.get(line2.step) ?? [], line2]);
  };
  const executor = options.executor ?? new Executor({ sink });
  const controller = new AbortController();
  let stop;
  const abort = (why, message) => {
    if (stop) return;
    stop = why;
    controller.abort(new Error(message));
  };
  const onShutdown = () => abort("shutdown", "the engine is shutting down; another worker takes the run over");
  if (options.shutdown?.aborted) onShutdown();
  options.shutdown?.addEventListener("abort", onShutdown, { once: true });
  let fullSince;
  const write = async (l, fn) => {
    for (let delay = 500; ; delay = Math.min(delay * 2, 5e3)) {
      try {
        const result = await writeAsHolder(l, fn);
        noteWriteOk();
        if (fullSince) {
          const since = fullSince;
          fullSince = void 0;
          const until = /* @__PURE__ */ new Date();
          await writeAsHolder(
            l,
            (_tx, append) => append({ type: "run.storage-recovered", data: { since: since.toISOString(), until: until.toISOString(), message: `the database disk was full for ${Math.round((until.getTime() - since.getTime()) / 1e3)} s; the run waited and went on` } })
          );
        }
        return result;
      } catch (err) {
        if (err instanceof LeaseLost) abort("lease", "another worker took this run over, or it was released");
        if (!isDiskFull(err) || stop === "shutdown") throw err;
        noteDiskFull();
        if (!fullSince) {
          fullSince = /* @__PURE__ */ new Date();
          console.error(`[bootdeck engine] run ${runId}: the database disk is full; waiting for space to record its progress`);
        }
        await new Promise((r2) => setTimeout(r2, delay));
      }
    }
  };
  const emitEvent = (e) => write(lease, (_tx, append) => append(e));
  let flushing = Promise.resolve();
  const flush = () => flushing = flushing.catch(() => void 0).then(async () => {
    const batches = [...pending.entries()];
    pending.clear();
    if (!batches.length) return;
    await write(lease, async (_tx, append) => {
      for (const [step4, lines] of batches) await append({ type: "step.output", data: { step: step4, lines: lines.map((l) => ({ stream: l.stream, line: l.line })) } });
    });
  });
  let hosts = [];
  let resources;
  const mutates = plan.lock !== void 0;
  const timer = setInterval(() => {
    void (async () => {
      const r2 = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true } });
      if (r2?.cancelRequested) abort("cancel", "cancelled by a user");
      if (!await claimRun({ runId, workerId: options.workerId, staleMs })) abort("lease", "another worker took this run over, or it was released");
    })().catch(() => void 0);
  }, options.heartbeatMs ?? 1e3);
  const outputTimer = setInterval(() => void flush().catch(() => void 0), OUTPUT_FLUSH_MS);
  const failedHosts = /* @__PURE__ */ new Set();
  let stopAll = false;
  const finished = /* @__PURE__ */ new Map();
  try {
    hosts = await loadEngineHosts({
      clusterId: run4.clusterId,
      runId,
      definition,
      onPinned: async (h, fingerprint2) => {
        await write(lease, async (tx, append) => {
          await tx.host.updateMany({ where: { id: h.id, hostKeyFingerprint: null }, data: { hostKeyFingerprint: fingerprint2 } });
          await append({ type: "host.key-pinned", hostId: h.id, data: { host: h.name, fingerprint: fingerprint2 } });
        });
      }
    });
    resources = await loadRunResources({ assetSetId: run4.assetSetId, definition, executor, hosts, api: options.api });
    const hostByName = new Map(hosts.map((h) => [h.name, h]));
    const statuses = new Map((await db.step.findMany({ where: { runId }, select: { key: true, status: true } })).map((s2) => [s2.key, s2.status]));
    for (const phase of plan.phases) {
      if (stopAll || controller.signal.aborted) break;
      const open = phase.steps.some((s2) => !["done", "skipped", "failed"].includes(statuses.get(s2.key) ?? "pending"));
      if (open) await emitEvent({ type: "phase.started", data: { phase: phase.id, title: phase.title } });
      finished.clear();
      for (const s2 of phase.steps) finished.set(s2.key, runStep(s2, hostByName, resources));
      const settled = await Promise.allSettled(phase.steps.map((s2) => finished.get(s2.key)));
      const thrown = settled.find((r2) => r2.status === "rejected");
      if (thrown) throw thrown.reason;
      const results = settled.map((r2) => r2.value);
      if (open && !controller.signal.aborted) await emitEvent({ type: "phase.finished", data: { phase: phase.id } });
      if (results.some((r2) => r2.failed && r2.critical)) stopAll = true;
    }
  } catch (err) {
    if (!(err instanceof LeaseLost) && !stop) throw err;
  } finally {
    clearInterval(timer);
    clearInterval(outputTimer);
    options.shutdown?.removeEventListener("abort", onShutdown);
    await flush().catch(() => void 0);
    if (mutates && stop !== "lease" && stop !== "shutdown" && plan.lock) await releaseHostLocks(plan.lock);
    await resources?.close();
    if (!options.executor) await executor.close();
  }
  if (stop === "lease") return "lost-lease";
  if (stop === "shutdown") {
    await releaseLease(lease);
    return "handed-over";
  }
  const cancelled = stop === "cancel";
  const steps = await db.step.findMany({ where: { runId }, select: { key: true, status: true, title: true, error: true, host: { select: { name: true } } } });
  const status = finishedStatus({ cancelled, stopped: stopAll, failedErrors: steps.filter((s2) => s2.status === "failed").map((s2) => s2.error) });
  const runHosts = new Set(plan.phases.flatMap((p2) => p2.steps.map((st) => st.host).filter(Boolean))).size;
  const summary = summarizeRun({ status, runHosts, steps: steps.map((s2) => ({ key: s2.key, status: s2.status === "pending" || s2.status === "waiting" ? cancelled ? "cancelled" : "skipped" : s2.status, title: s2.title, error: s2.error, host: s2.host?.name ?? null })) });
  try {
    await finishAsHolder(lease, status, summary, cancelled ? "cancelled" : "skipped", write);
  } catch (err) {
    if (err instanceof LeaseLost) return "lost-lease";
    throw err;
  }
  return status;
  async function runStep(planned2, hostByName, resources2) {
    const host3 = planned2.host ? hostByName.get(planned2.host) : void 0;
    const critical2 = !host3 || host3.role === "master";
    try {
      return await runStepGuarded(planned2, host3, critical2, resources2);
    } catch (err) {
      if (err instanceof LeaseLost || stop === "lease" || stop === "shutdown") return { failed: false, critical: critical2 };
      throw err;
    }
  }
  async function runStepGuarded(planned2, host3, critical2, resources2) {
    const row = await db.step.findUniqueOrThrow({ where: { runId_key: { runId, key: planned2.key } } });
    if (row.status === "done" || row.status === "skipped") return { failed: false, critical: critical2 };
    if (row.status === "failed") {
      if (host3) failedHosts.add(host3.name);
      return { failed: true, critical: critical2 };
    }
    if (controller.signal.aborted) return { failed: false, critical: critical2 };
    const sameDeps = planned2.dependsOn.map((k) => finished.get(k)).filter(Boolean);
    if (sameDeps.length) await Promise.all(sameDeps);
    if (controller.signal.aborted) return { failed: false, critical: critical2 };
    if (host3 && failedHosts.has(host3.name)) {
      await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: an earlier step failed on ${host3.name}` } }));
      return { failed: false, critical: critical2 };
    }
    if (planned2.dependsOn.length) {
      const deps = await db.step.findMany({ where: { runId, key: { in: planned2.dependsOn }, status: { in: ["failed", "skipped", "cancelled"] } }, select: { key: true, status: true } });
      if (deps.length) {
        await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: ${deps.map((d) => `${d.key} ${d.status}`).join(", ")}` } }));
        return { failed: false, critical: critical2 };
      }
    }
    const action = actions[planned2.action];
    const startedAt = /* @__PURE__ */ new Date();
    const started = await write(lease, async (tx, append) => {
      const fresh = await tx.step.findUniqueOrThrow({ where: { id: row.id }, select: { status: true, attempts: true } });
      if (!["pending", "running", "waiting"].includes(fresh.status)) return false;
      await tx.step.update({ where: { id: row.id }, data: { status: "running", attempts: fresh.attempts + 1, startedAt, finishedAt: null } });
      await append({ type: "step.started", stepId: row.id, hostId: host3?.id, data: { key: planned2.key, attempt: fresh.attempts + 1, resumed: fresh.status !== "pending" } });
      return true;
    });
    if (!started) return { failed: false, critical: critical2 };
    let outcome = { ok: false, error: "not run" };
    let exitCode = null;
    const emit = (type, data) => emitEvent({ type, stepId: row.id, hostId: host3?.id, data }).then(() => void 0);
    const store = (fn) => write(lease, fn).then(() => void 0);
    for (let retry = 0; ; retry++) {
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(planned2.timeoutMs)]);
      exitCode = null;
      try {
        if (!action) throw new Error(`no action "${planned2.action}" in this version of Bootdeck`);
        outcome = await action({ runId, runType: run4.type, planned: planned2, host: host3, hosts, executor, signal, resources: resources2, startedAt, emit, store, wait: (what, opts, check) => waitFor(row.id, planned2, host3, signal, emit, what, opts, check) });
      } catch (err) {
        if (err instanceof LeaseLost) throw err;
        if (isSshError(err) && err.detail.kind === "command-failed") exitCode = err.detail.exitCode;
        const message = err instanceof Error ? err.message : String(err);
        outcome = { ok: false, error: message };
      }
      if (outcome.ok || controller.signal.aborted || retry >= (planned2.retries ?? 0)) break;
      const inMs = 2e3 * 2 ** retry;
      await emit("step.retrying", { key: planned2.key, attempt: retry + 2, of: (planned2.retries ?? 0) + 1, error: outcome.error, inMs });
      await abortableSleep(inMs, controller.signal).catch(() => void 0);
      if (controller.signal.aborted) break;
      await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { attempts: { increment: 1 } } }));
    }
    if (stop === "shutdown" || stop === "lease") return { failed: false, critical: critical2 };
    await flush();
    const finishedAt = /* @__PURE__ */ new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    const journal3 = Array.isArray(outcome.data?.journal) ? outcome.data.journal : [];
    if (!outcome.ok && !outcome.hint) outcome = { ...outcome, hint: hintFor([outcome.error, ...journal3].join("\n")) };
    const output = [...tails.get(planned2.key) ?? [], ...journal3.length ? [JOURNAL_MARKER, ...journal3] : []].join("\n") || null;
    if (outcome.ok) {
      const ok = outcome;
      await write(lease, async (tx, append) => {
        await tx.step.update({ where: { id: row.id }, data: { status: "done", finishedAt, output, error: null, hint: null, exitCode: 0 } });
        await append({ type: "step.finished", stepId: row.id, hostId: host3?.id, data: { key: planned2.key, durationMs, summary: ok.summary, ...ok.data } });
      });
      return { failed: false, critical: critical2 };
    }
    const failedOutcome = outcome;
    const wasCancel = stop === "cancel";
    await write(lease, async (tx, append) => {
      await tx.step.update({
        where: { id: row.id },
        data: { status: wasCancel ? "cancelled" : "failed", finishedAt, output, error: failedOutcome.error, hint: failedOutcome.hint ?? null, exitCode }
      });
      await append({ type: wasCancel ? "step.cancelled" : "step.failed", stepId: row.id, hostId: host3?.id, data: { key: planned2.key, durationMs, error: failedOutcome.error, hint: failedOutcome.hint, ...failedOutcome.data } });
    });
    if (!wasCancel && host3) failedHosts.add(host3.name);
    return { failed: !wasCancel, critical: critical2 };
  }
  async function releaseHostLocks(lock) {
    const argv = releaseLockArgv(runId);
    if (argv.join("\0") !== lock.release.join("\0")) throw new Error("the plan's host-lock release is not this run's");
    await Promise.all(
      hosts.filter((h) => lock.hosts.includes(h.name)).map((h) => executor.run(h.target, lock.release, { step: "unlock", quiet: true, timeoutMs: 1e4, allowFailure: true }).catch(() => void 0))
    );
  }
  async function waitFor(stepId, planned2, host3, signal, emit, what, opts, check) {
    const since = /* @__PURE__ */ new Date();
    const deadline = new Date(since.getTime() + opts.timeoutMs);
    await write(lease, async (tx, append) => {
      await tx.step.update({ where: { id: stepId }, data: { status: "waiting" } });
      await append({ type: "step.waiting", stepId, hostId: host3?.id, data: { key: planned2.key, what, host: host3?.name ?? null, since: since.toISOString(), deadline: deadline.toISOString() } });
    });
    let why = "";
    try {
      for (; ; ) {
        try {
          const r2 = await check();
          if (r2.ok) return r2.value;
          why = r2.why;
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          if (err instanceof WaitAbandoned || err instanceof LeaseLost) throw err;
          why = err instanceof Error ? err.message : String(err);
        }
        if (Date.now() + opts.intervalMs > deadline.getTime()) {
          const mins = opts.timeoutMs / 6e4;
          throw new Error(`timed out after ${mins >= 1 ? `${mins} min` : `${opts.timeoutMs / 1e3} s`} waiting for ${what}${why ? `: ${why}` : ""}`);
        }
        await abortableSleep(opts.intervalMs, signal);
      }
    } finally {
      if (stop !== "lease" && stop !== "shutdown")
        await write(lease, async (tx, append) => {
          const back = await tx.step.updateMany({ where: { id: stepId, status: "waiting" }, data: { status: "running" } });
          if (back.count) await append({ type: "step.wait-ended", stepId, hostId: host3?.id, data: { key: planned2.key, what } });
        }).catch((e) => {
          if (!(e instanceof LeaseLost)) throw e;
        });
    }
  }
}
var OUTPUT_TAIL_LINES, OUTPUT_FLUSH_MS;
var init_runner = __esm({
  "lib/engine/runner.ts"() {
    "use strict";
    init_client2();
    init_storage();
    init_backoff();
    init_ssh();
    init_actions();
    init_host_scripts();
    init_types2();
    init_hints();
    init_lease();
    init_plan();
    init_runs();
    init_run_resources();
    init_summary();
    init_targets();
    init_run_rules();
    init_schemas3();
    OUTPUT_TAIL_LINES = 200;
    OUTPUT_FLUSH_MS = 300;
  }
});

// lib/engine/worker.ts
function getEngineWorker() {
  return holder4.bootdeckEngine ??= new EngineWorker();
}
var STALE_MS, SWEEP_MS, EngineWorker, holder4;
var init_worker = __esm({
  "lib/engine/worker.ts"() {
    "use strict";
    init_runner();
    init_runs();
    STALE_MS = 15e3;
    SWEEP_MS = 1e3;
    EngineWorker = class {
      workerId = localWorkerId();
      active = /* @__PURE__ */ new Map();
      shutdown = new AbortController();
      sweeper;
      sweeping = false;
      start() {
        if (this.sweeper || this.shutdown.signal.aborted) return;
        void this.sweep();
        this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
        this.sweeper.unref();
      }
      /** The runs this worker is executing now. */
      get runs() {
        return [...this.active.keys()];
      }
      /**
       * Stops taking runs; with `handOver`, also stops the runs in flight without ending them (commands on
       * hosts are stopped, steps stay as they are) and releases their leases, so another worker resumes
       * them at once. Resolves when every run has let go.
       */
      async stop({ handOver = false, graceMs = 5e3 } = {}) {
        clearInterval(this.sweeper);
        this.sweeper = void 0;
        if (!handOver) return;
        const runs = this.runs;
        this.shutdown.abort();
        const drained = this.drain().then(() => true);
        if (!await Promise.race([drained, new Promise((r2) => setTimeout(() => r2(false), graceMs).unref())]))
          await Promise.all(runs.map((runId) => releaseLease({ runId, workerId: this.workerId })));
      }
      /** Runs a started run in the background (no-op when this worker already runs it, or is shutting down). */
      schedule(runId) {
        if (this.active.has(runId) || this.shutdown.signal.aborted) return;
        const p2 = executeRun(runId, { workerId: this.workerId, staleMs: STALE_MS, shutdown: this.shutdown.signal }).catch((err) => console.error(`[bootdeck engine] run ${runId} stopped with an error:`, err)).finally(() => this.active.delete(runId));
        this.active.set(runId, p2);
      }
      /** Waits for every run this worker is executing (CLI and tests). */
      async drain() {
        while (this.active.size) await Promise.allSettled([...this.active.values()]);
      }
      async sweep() {
        if (this.sweeping) return;
        this.sweeping = true;
        try {
          for (const runId of await listResumableRuns({ workerId: this.workerId, staleMs: STALE_MS })) this.schedule(runId);
        } catch (err) {
          console.error("[bootdeck engine] could not look for runs to resume:", err);
        } finally {
          this.sweeping = false;
        }
      }
    };
    holder4 = globalThis;
  }
});

// lib/http/text.ts
function badText(data, depth = 0) {
  if (typeof data === "string") {
    if (data.includes("\0")) return "a NUL character";
    if (loneSurrogate.test(data)) return "text that is not valid Unicode (a lone surrogate)";
    return void 0;
  }
  if (depth > 64) return "too deeply nested data";
  if (Array.isArray(data)) {
    for (const v of data) {
      const b = badText(v, depth + 1);
      if (b) return b;
    }
  } else if (data && typeof data === "object") {
    for (const [k, v] of Object.entries(data)) {
      const b = badText(k, depth + 1) ?? badText(v, depth + 1);
      if (b) return b;
    }
  }
  return void 0;
}
function escapeForTerminal(s2) {
  return s2.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 255 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
var loneSurrogate;
var init_text = __esm({
  "lib/http/text.ts"() {
    "use strict";
    loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  }
});

// lib/cluster/yaml.ts
function parseClusterYaml(text) {
  if (text.length > maxYamlBytes)
    return { ok: false, errors: [{ path: "(file)", message: `is larger than ${maxYamlBytes / 1024 / 1024} MiB` }], warnings: [] };
  const lineCounter = new import_yaml7.LineCounter();
  const doc = (0, import_yaml7.parseDocument)(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0)
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        path: `(line ${lineCounter.linePos(e.pos[0]).line})`,
        message: e.message.split("\n")[0] ?? "invalid YAML"
      })),
      warnings: []
    };
  let data;
  try {
    data = doc.toJS({ maxAliasCount: maxYamlAliases });
  } catch (err) {
    const why = err instanceof ReferenceError && /alias/i.test(err.message) ? `uses aliases that expand too far (at most ${maxYamlAliases} alias uses)` : "has an alias that cannot be resolved";
    return { ok: false, errors: [{ path: "(file)", message: why }], warnings: [] };
  }
  const bad = badText(data);
  if (bad) return { ok: false, errors: [{ path: "(file)", message: `contains ${bad}` }], warnings: [] };
  return validateClusterDefinition(data);
}
function toClusterYaml(def) {
  return `# Bootdeck cluster definition \u2014 see docs/cluster-yaml.md
${(0, import_yaml7.stringify)(def, { lineWidth: 0 })}`;
}
var import_yaml7, maxYamlBytes, maxYamlAliases;
var init_yaml = __esm({
  "lib/cluster/yaml.ts"() {
    "use strict";
    import_yaml7 = require("yaml");
    init_text();
    init_definition();
    maxYamlBytes = 2 * 1024 * 1024;
    maxYamlAliases = 100;
  }
});

// lib/clusters/cli-secrets.ts
async function readCredentialSecrets(def, baseDir, env) {
  const secrets = {};
  const problems = [];
  for (const [i, c] of def.spec.credentials.entries()) {
    const at = `spec.credentials[${i}]`;
    const s2 = {};
    for (const [field, target] of [["privateKeyFile", "privateKey"], ["passwordFile", "password"]]) {
      const name = c[field];
      if (!name) continue;
      const file = import_node_path5.default.resolve(baseDir, name.replace(/^~(?=\/)/, env.HOME ?? "~"));
      try {
        const text = await (0, import_promises2.readFile)(file, "utf8");
        s2[target] = target === "password" ? text.replace(/\r?\n$/, "") : text;
      } catch (err) {
        problems.push({ path: `${at}.${field}`, message: `cannot read ${file}: ${err.code ?? String(err)}` });
      }
    }
    for (const [field, target] of [["passphraseEnv", "passphrase"], ["passwordEnv", "password"]]) {
      const name = c[field];
      if (!name) continue;
      const value = env[name];
      if (value === void 0) problems.push({ path: `${at}.${field}`, message: `environment variable ${name} is not set` });
      else s2[target] = value;
    }
    if (Object.keys(s2).length) secrets[c.name] = s2;
  }
  return { secrets, problems };
}
var import_promises2, import_node_path5;
var init_cli_secrets = __esm({
  "lib/clusters/cli-secrets.ts"() {
    "use strict";
    import_promises2 = require("node:fs/promises");
    import_node_path5 = __toESM(require("node:path"));
  }
});

// lib/clusters/import.ts
async function importClusterYaml(input) {
  const parsed = parseClusterYaml(input.yaml);
  if (!parsed.ok) throw new ValidationError(parsed.errors, parsed.warnings);
  const name = parsed.definition.metadata.name;
  const existing = await findClusterIdByName({ name });
  if (existing && !input.replace) throw conflict(`A cluster named "${name}" already exists; choose "replace" to update it from this file`);
  if (existing) {
    const { warnings: warnings2, hostKeys } = await updateCluster({ id: existing, definition: parsed.definition, secrets: input.secrets });
    return { id: existing, created: false, warnings: warnings2, hostKeys };
  }
  const { id, warnings } = await createCluster({ definition: parsed.definition, secrets: input.secrets });
  return { id, created: true, warnings, hostKeys: void 0 };
}
var init_import = __esm({
  "lib/clusters/import.ts"() {
    "use strict";
    init_yaml();
    init_errors();
    init_repository();
  }
});

// cli/problems.ts
function printWarnings(warnings) {
  for (const w of warnings) console.log(line("warning", w));
}
function printErrors(file, errors) {
  for (const e of errors) console.log(line("error", e));
  console.log(`${escapeForTerminal(file)}: ${errors.length} problem${errors.length === 1 ? "" : "s"}`);
}
var line;
var init_problems = __esm({
  "cli/problems.ts"() {
    "use strict";
    init_text();
    line = (kind, p2) => `${kind}: ${escapeForTerminal(p2.path)}: ${escapeForTerminal(p2.message)}`;
  }
});

// cli/commands/import.ts
var import_exports = {};
__export(import_exports, {
  importCommand: () => importCommand,
  importFile: () => importFile
});
async function importFile(file, opts) {
  const text = await (0, import_promises3.readFile)(file, "utf8");
  const parsed = parseClusterYaml(text);
  if (!parsed.ok) {
    printWarnings(parsed.warnings);
    printErrors(file, parsed.errors);
    return { ok: false };
  }
  const { secrets, problems } = await readCredentialSecrets(parsed.definition, import_node_path6.default.dirname(import_node_path6.default.resolve(file)), process.env);
  if (problems.length) {
    printErrors(file, problems);
    return { ok: false };
  }
  try {
    const r2 = await importClusterYaml({ yaml: text, secrets, replace: opts.replace });
    await recordAudit({ action: r2.created ? "cluster.import" : "cluster.import_replace", username: `cli:${process.env.USER ?? "?"}`, target: r2.id, details: { via: opts.via ?? "cli", ...r2.hostKeys ? { hostKeys: r2.hostKeys } : {} } });
    printWarnings(r2.warnings);
    console.log(`${r2.created ? "created" : "updated"} cluster ${parsed.definition.metadata.name} (${r2.id})`);
    if (r2.hostKeys) for (const line2 of describeHostKeyChanges(r2.hostKeys, parsed.definition.metadata.name)) console.log(line2);
    return { ok: true, id: r2.id, name: parsed.definition.metadata.name };
  } catch (err) {
    if (err instanceof ValidationError) {
      printWarnings(err.warnings);
      printErrors(file, err.errors);
      return { ok: false };
    }
    if (err instanceof AppError) {
      console.error(`bootdeck: ${err.message}`);
      return { ok: false };
    }
    throw err;
  }
}
var import_promises3, import_node_path6, importCommand;
var init_import2 = __esm({
  "cli/commands/import.ts"() {
    "use strict";
    import_promises3 = require("node:fs/promises");
    import_node_path6 = __toESM(require("node:path"));
    init_record();
    init_yaml();
    init_cli_secrets();
    init_import();
    init_repository();
    init_client2();
    init_errors();
    init_problems();
    importCommand = {
      async run(argv) {
        const file = argv.find((a) => !a.startsWith("-"));
        if (!file || argv.includes("--help")) {
          console.log(`Usage: bootdeck import cluster.yaml [--replace]

Credentials are read from each credential's privateKeyFile (relative to the YAML file),
passphraseEnv and passwordEnv. --replace updates the cluster of the same name.`);
          return file ? 0 : 2;
        }
        try {
          const r2 = await importFile(file, { replace: argv.includes("--replace") });
          return r2.ok ? 0 : 1;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/apply.ts
var apply_exports = {};
__export(apply_exports, {
  apply: () => apply,
  confirm: () => confirm,
  follow: () => follow,
  planText: () => planText,
  progressLine: () => progressLine
});
function planText(plan, verbose) {
  const lines = [];
  const hosts = new Set(plan.phases.flatMap((p2) => p2.steps.map((s2) => s2.host).filter(Boolean)));
  const steps = plan.phases.reduce((n, p2) => n + p2.steps.length, 0);
  lines.push(`Plan: ${plan.runType} on ${hosts.size} hosts, ${plan.phases.length} phases, ${steps} steps`);
  plan.phases.forEach((p2, i) => {
    lines.push(`  ${i + 1}. ${p2.title} \u2014 ${p2.steps.length} step${p2.steps.length === 1 ? "" : "s"}`);
    if (!verbose) return;
    for (const s2 of p2.steps) {
      lines.push(`     ${s2.title}${s2.dependsOn.length ? ` (after ${s2.dependsOn.join(", ")})` : ""}`);
      for (const f of s2.files) lines.push(`       file ${f.path} mode ${f.mode.toString(8).padStart(4, "0")} sha256 ${f.sha256.slice(0, 12)} ${f.size} B`);
      for (const c of s2.commands) lines.push(`       run  ${c.length > 400 ? `${c.slice(0, 400)}\u2026 (${c.length} chars)` : c}`);
    }
  });
  return lines.join("\n");
}
function progressLine(e, startedAt, verbose) {
  const t = `[${clock(Date.parse(e.at) - startedAt)}]`;
  const d = e.data;
  switch (e.type) {
    case "phase.started":
      return `${t} \u2500\u2500 ${String(d.title)}`;
    case "step.started":
      return verbose || Number(d.attempt) > 1 || d.resumed ? `${t} ${String(d.key)} started${d.resumed ? " (resumed)" : ""}` : void 0;
    case "step.waiting": {
      const deadline = clock(Date.parse(String(d.deadline)) - Date.parse(String(d.since)));
      return `${t} ${String(d.key)} waiting for ${String(d.what)} (deadline ${deadline})`;
    }
    case "step.finished":
      return `${t} \u2714 ${String(d.key)} (${(Number(d.durationMs) / 1e3).toFixed(1)} s) ${String(d.summary ?? "")}`;
    case "step.retrying":
      return `${t} \u21BB ${String(d.key)}: ${String(d.error)} \u2014 attempt ${String(d.attempt)} of ${String(d.of)} in ${Math.round(Number(d.inMs) / 1e3)} s`;
    case "step.failed":
      return `${t} \u2718 ${String(d.key)}: ${String(d.error)}${d.hint ? `
         hint: ${String(d.hint)}` : ""}`;
    case "step.output":
      return verbose ? d.lines.map((l) => `         ${String(d.step)} ${l.stream === "stderr" ? "!" : "|"} ${l.line}`).join("\n") : void 0;
    case "host.key-pinned":
      return `${t} pinned the host key of ${String(d.host)}: ${String(d.fingerprint)}`;
    case "run.finished": {
      const summary = d.summary ?? {};
      if (d.status === "needs-decision")
        return `${t} run stopped, it ${summary.message ?? "needs a decision"}
         to go on: run this again with --accept-warnings, or accept them on the run's page in the dashboard`;
      return `${t} run ${String(d.status)}: ${summary.message ?? ""}`;
    }
    default:
      return void 0;
  }
}
async function confirm(question) {
  const rl = (0, import_promises4.createInterface)({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
async function follow(runId, verbose) {
  const worker2 = getEngineWorker();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error("\ncancelling (Ctrl-C again to leave at once; the run then resumes on the next start)\u2026");
    void requestCancel({ runId }).catch(() => void 0);
  };
  process.on("SIGINT", onSigint);
  worker2.schedule(runId);
  const run4 = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { startedAt: true } });
  const startedAt = run4.startedAt?.getTime() ?? Date.now();
  let seq2 = 0;
  let status = "";
  try {
    while (!status) {
      const events = await listRunEvents({ runId, afterSeq: seq2 });
      for (const e of events) {
        seq2 = e.seq;
        const line2 = progressLine(e, startedAt, verbose);
        if (line2) console.log(line2);
        if (e.type === "run.finished") status = String(e.data.status);
      }
      if (!status) await new Promise((r2) => setTimeout(r2, 250));
    }
    await worker2.drain();
  } finally {
    process.off("SIGINT", onSigint);
  }
  return status === "succeeded" ? 0 : 1;
}
var import_promises4, USAGE, clock, apply;
var init_apply = __esm({
  "cli/commands/apply.ts"() {
    "use strict";
    import_promises4 = require("node:readline/promises");
    init_record();
    init_client2();
    init_events();
    init_plan_run();
    init_runs();
    init_worker();
    init_errors();
    init_import2();
    USAGE = `Usage: bootdeck apply --config cluster.yaml [--dry-run] [--yes] [--accept-warnings] [--verbose]

Saves the cluster (as bootdeck import --replace does), plans its bootstrap (phases \xD7 hosts, with every
file's checksum and every command), prints the plan, and runs it once confirmed.
  --dry-run   print the plan and stop; the planned run stays in the dashboard to confirm there
  --yes       do not ask for confirmation (needed when stdin is not a terminal)
  --accept-warnings
              go on past preflight warnings (without it they stop the run, as errors always do)
  --verbose   print every file and command of the plan, and the commands' output while they run
Ctrl-C cancels the run (commands in flight are stopped); running it again resumes from what is done.`;
    clock = (ms) => {
      const s2 = Math.max(0, Math.round(ms / 1e3));
      return `${String(Math.floor(s2 / 60)).padStart(2, "0")}:${String(s2 % 60).padStart(2, "0")}`;
    };
    apply = {
      async run(argv) {
        const i = argv.indexOf("--config");
        const file = i >= 0 ? argv[i + 1] : void 0;
        if (argv.includes("--help") || !file) {
          console.log(USAGE);
          return file || argv.includes("--help") ? 0 : 2;
        }
        const dryRun = argv.includes("--dry-run");
        const yes = argv.includes("--yes");
        const verbose = argv.includes("--verbose");
        try {
          const saved = await importFile(file, { replace: true, via: "cli apply" });
          if (!saved.ok) return 1;
          const runId = await planRun({ clusterId: saved.id, body: { type: "bootstrap", acceptWarnings: argv.includes("--accept-warnings") }, by: `cli:${process.env.USER ?? "?"}` });
          console.log(planText(await getRunPlan(runId), verbose));
          if (dryRun) {
            console.log(`
dry run: nothing was changed on the hosts. The plan is saved as run ${runId}; confirm it in the dashboard, or run this again with --yes.`);
            return 0;
          }
          if (!yes) {
            if (!process.stdin.isTTY) {
              console.error("bootdeck apply: not confirmed; pass --yes to run without a terminal");
              return 2;
            }
            if (!await confirm(`
Run this plan on cluster ${saved.name}? [y/N] `)) {
              console.log(`not started; the plan stays as run ${runId}`);
              return 1;
            }
          }
          await startRun({ runId });
          await recordAudit({ action: "run.start", username: `cli:${process.env.USER ?? "?"}`, target: runId, details: { via: "cli apply" } });
          return await follow(runId, verbose);
        } catch (err) {
          if (err instanceof AppError) {
            console.error(`bootdeck apply: ${err.message}`);
            return 1;
          }
          throw err;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/export.ts
var export_exports = {};
__export(export_exports, {
  exportCommand: () => exportCommand
});
var exportCommand;
var init_export = __esm({
  "cli/commands/export.ts"() {
    "use strict";
    init_yaml();
    init_repository();
    init_client2();
    exportCommand = {
      async run(argv) {
        const name = argv.find((a) => !a.startsWith("-"));
        if (!name || argv.includes("--help")) {
          console.log("Usage: bootdeck export CLUSTER-NAME > cluster.yaml");
          return name ? 0 : 2;
        }
        try {
          const id = await findClusterIdByName({ name });
          if (!id) {
            console.error(`bootdeck export: no cluster named "${name}"`);
            return 1;
          }
          process.stdout.write(toClusterYaml(await getExportableDefinition({ id })));
          return 0;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/images.ts
var images_exports = {};
__export(images_exports, {
  images: () => images
});
var import_promises5, help, images;
var init_images = __esm({
  "cli/commands/images.ts"() {
    "use strict";
    import_promises5 = require("node:fs/promises");
    init_capabilities();
    init_yaml();
    init_problems();
    help = `Usage: bootdeck images --config cluster.yaml [--upstream]

Prints every container image the cluster runs, one per line, as its nodes will pull it: through
spec.images.registry when it is set. --upstream prints the names upstream publishes instead, with
the mirrored name beside each (what \`crane copy\` or \`skopeo copy\` needs to fill the mirror).`;
    images = {
      async run(argv) {
        const i = argv.indexOf("--config");
        const file = i >= 0 ? argv[i + 1] : void 0;
        if (!file || argv.includes("--help")) {
          console.log(help);
          return file ? 0 : 2;
        }
        let text;
        try {
          text = await (0, import_promises5.readFile)(file, "utf8");
        } catch (err) {
          console.error(`bootdeck images: cannot read ${file}: ${err.code ?? String(err)}`);
          return 2;
        }
        const result = parseClusterYaml(text);
        if (!result.ok) {
          printErrors(file, result.errors);
          return 1;
        }
        const def = result.definition;
        for (const image of clusterImages(def.spec.kubernetes.version, def.spec.images.registry)) {
          console.log(argv.includes("--upstream") ? `${image.upstream}${image.pulled !== image.upstream ? `	${image.pulled}` : ""}` : image.pulled);
        }
        return 0;
      }
    };
  }
});

// lib/db/migrate.ts
async function migrateDatabase() {
  const env = getEnv();
  (0, import_node_fs4.mkdirSync)(env.BOOTDECK_DATA_DIR, { recursive: true, mode: 448 });
  const cli = import_node_path7.default.join(env.BOOTDECK_HOME, "node_modules", "prisma", "build", "index.js");
  try {
    const { stdout } = await run(process.execPath, [cli, "migrate", "deploy"], {
      cwd: env.BOOTDECK_HOME,
      env: { ...process.env, DATABASE_URL: env.databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
      timeout: 12e4
    });
    return stdout;
  } catch (err) {
    const e = err;
    const text = e.stderr || e.stdout || e.message;
    if (/SocketTimeout|database is locked|SQLITE_BUSY/.test(text))
      throw new Error(`Database migration failed: ${env.databaseUrl} is locked by another process (a dashboard or worker still running?). Stop it and run "bootdeck setup" again.`);
    throw new Error(`Database migration failed (${env.databaseUrl}):
${text}`);
  }
}
var import_node_child_process, import_node_fs4, import_node_path7, import_node_util, run;
var init_migrate = __esm({
  "lib/db/migrate.ts"() {
    "use strict";
    import_node_child_process = require("node:child_process");
    import_node_fs4 = require("node:fs");
    import_node_path7 = __toESM(require("node:path"));
    import_node_util = require("node:util");
    init_env();
    run = (0, import_node_util.promisify)(import_node_child_process.execFile);
  }
});

// lib/auth/password-strength.ts
function weakPasswordProblem(password, userInputs = []) {
  const r2 = estimator().check(password, userInputs);
  if (r2.score >= minPasswordScore) return void 0;
  const why = r2.feedback.warning ?? r2.feedback.suggestions[0];
  return `is too easy to guess${why ? `: ${why.replace(/\.$/, "")}` : ""}; use a longer passphrase or a generated password`;
}
var import_core, common, en, minPasswordScore, factory, estimator;
var init_password_strength = __esm({
  "lib/auth/password-strength.ts"() {
    "use strict";
    import_core = require("@zxcvbn-ts/core");
    common = __toESM(require("@zxcvbn-ts/language-common"));
    en = __toESM(require("@zxcvbn-ts/language-en"));
    minPasswordScore = 3;
    estimator = () => factory ??= new import_core.ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary }, graphs: common.adjacencyGraphs, translations: en.translations });
  }
});

// lib/auth/password.ts
function scrypt(password, salt, opts) {
  return new Promise(
    (resolve, reject) => (0, import_node_crypto22.scrypt)(
      password,
      salt,
      keyLength,
      { ...opts, maxmem: 128 * opts.N * (opts.r ?? 8) * 2 },
      (err, key) => err ? reject(err) : resolve(key)
    )
  );
}
async function hashPassword(password) {
  const salt = (0, import_node_crypto22.randomBytes)(16);
  const hash2 = await scrypt(password, salt, { N, r, p });
  return ["scrypt", N, r, p, salt.toString("base64"), hash2.toString("base64")].join("$");
}
function passwordProblem(password, userInputs = []) {
  if (password.length < passwordRules.min) return `must be at least ${passwordRules.min} characters`;
  if (password.length > passwordRules.max) return `must be at most ${passwordRules.max} characters`;
  return weakPasswordProblem(password, userInputs);
}
var import_node_crypto22, N, r, p, keyLength, passwordRules;
var init_password = __esm({
  "lib/auth/password.ts"() {
    "use strict";
    init_password_strength();
    import_node_crypto22 = require("node:crypto");
    N = 2 ** 15;
    r = 8;
    p = 1;
    keyLength = 32;
    passwordRules = { min: 10, max: 256 };
  }
});

// lib/auth/user-schemas.ts
var import_zod8, usernameSchema, displayNameSchema, roleSchema, createUserBody, updateUserBody, resetPasswordBody, userIdParams;
var init_user_schemas = __esm({
  "lib/auth/user-schemas.ts"() {
    "use strict";
    import_zod8 = require("zod");
    init_roles();
    usernameSchema = import_zod8.z.string().regex(/^[a-z][a-z0-9._-]{1,31}$/, "must be 2\u201332 lower-case letters, digits, '.', '_' or '-', starting with a letter");
    displayNameSchema = import_zod8.z.string().trim().min(1, "is required").max(64, "must be at most 64 characters").regex(/^[^\p{Cc}\p{Cf}\p{Cs}<>]*$/u, "may not contain control characters or < >");
    roleSchema = import_zod8.z.enum(roles);
    createUserBody = import_zod8.z.strictObject({
      username: usernameSchema,
      displayName: displayNameSchema.optional(),
      role: roleSchema
    });
    updateUserBody = import_zod8.z.strictObject({ role: roleSchema.optional(), disabled: import_zod8.z.boolean().optional(), displayName: displayNameSchema.optional() }).refine((b) => b.role !== void 0 || b.disabled !== void 0 || b.displayName !== void 0, "nothing to change");
    resetPasswordBody = import_zod8.z.strictObject({});
    userIdParams = import_zod8.z.strictObject({ id: import_zod8.z.string().regex(/^usr_[A-Za-z0-9_-]{16}$/) });
  }
});

// lib/auth/users.ts
async function countUsers() {
  return getDb().user.count();
}
async function createUser(input) {
  const problem = passwordProblem(input.password, [input.username, input.displayName ?? ""]);
  if (problem) throw new ValidationError([{ path: "password", message: problem }]);
  const name = usernameSchema.safeParse(input.username);
  if (!name.success) throw new ValidationError([{ path: "username", message: name.error.issues[0]?.message ?? "is invalid" }]);
  const display = displayNameSchema.safeParse(input.displayName ?? input.username);
  if (!display.success) throw new ValidationError([{ path: "displayName", message: display.error.issues[0]?.message ?? "is invalid" }]);
  const id = newId("usr");
  try {
    await getDb().user.create({
      data: { id, username: name.data, displayName: display.data, passwordHash: await hashPassword(input.password), role: input.role }
    });
  } catch (err) {
    if (err && typeof err === "object" && "code" in err && err.code === "P2002")
      throw new AppError(409, "name_taken", `A user named "${name.data}" already exists`, {
        errors: [{ path: "username", message: "is taken" }],
        warnings: []
      });
    throw err;
  }
  return id;
}
function generatePassword() {
  return (0, import_node_crypto23.randomBytes)(15).toString("base64url");
}
async function listUsers() {
  const rows = await getDb().user.findMany({ orderBy: { username: "asc" } });
  return rows.map(toView);
}
async function getUserOrThrow({ id }) {
  const row = await getDb().user.findUnique({ where: { id } });
  if (!row) throw notFound("User");
  return toView(row);
}
async function findUserByName({ username }) {
  return getDb().user.findUnique({ where: { username: username.toLowerCase() }, select: { id: true, username: true, role: true, disabled: true } });
}
async function updateUser(input) {
  if (input.disabled === true && input.id === input.actorId) throw conflict("You cannot disable your own account");
  await getDb().$transaction(async (tx) => {
    const user2 = await tx.user.findUnique({ where: { id: input.id } });
    if (!user2) throw notFound("User");
    const role = input.role ?? user2.role;
    const disabled = input.disabled ?? user2.disabled;
    const wasActiveAdmin = user2.role === "admin" && !user2.disabled;
    if (wasActiveAdmin && (role !== "admin" || disabled)) {
      const others = await tx.user.count({ where: { role: "admin", disabled: false, id: { not: user2.id } } });
      if (others === 0) throw conflict("This is the last enabled admin; make another user admin first");
    }
    await tx.user.update({ where: { id: user2.id }, data: { role, disabled, ...input.displayName !== void 0 ? { displayName: input.displayName } : {} } });
    if (disabled && !user2.disabled) await tx.session.deleteMany({ where: { userId: user2.id } });
  });
  return getUserOrThrow({ id: input.id });
}
async function deleteUser(input) {
  if (input.id === input.actorId) throw conflict("You cannot delete your own account");
  return getDb().$transaction(async (tx) => {
    const user2 = await tx.user.findUnique({ where: { id: input.id } });
    if (!user2) throw notFound("User");
    if (user2.role === "admin" && !user2.disabled) {
      const others = await tx.user.count({ where: { role: "admin", disabled: false, id: { not: user2.id } } });
      if (others === 0) throw conflict("This is the last enabled admin; make another user admin first");
    }
    await tx.session.deleteMany({ where: { userId: user2.id } });
    await tx.user.delete({ where: { id: user2.id } });
    return toView(user2);
  });
}
async function resetUserPassword(input) {
  const password = input.password ?? generatePassword();
  const problem = passwordProblem(password);
  if (problem) throw new ValidationError([{ path: "password", message: problem }]);
  const passwordHash = await hashPassword(password);
  await getDb().$transaction(async (tx) => {
    const user2 = await tx.user.findUnique({ where: { id: input.id }, select: { id: true } });
    if (!user2) throw notFound("User");
    await tx.user.update({ where: { id: user2.id }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: user2.id } });
  });
  return password;
}
function toView(u) {
  return {
    id: u.id,
    username: u.username,
    displayName: u.displayName,
    role: u.role,
    disabled: u.disabled,
    createdAt: u.createdAt.toISOString()
  };
}
var import_node_crypto23;
var init_users = __esm({
  "lib/auth/users.ts"() {
    "use strict";
    import_node_crypto23 = require("node:crypto");
    init_client2();
    init_errors();
    init_ids();
    init_password();
    init_user_schemas();
  }
});

// cli/commands/setup.ts
var setup_exports = {};
__export(setup_exports, {
  setup: () => setup
});
var import_node_fs5, setup;
var init_setup = __esm({
  "cli/commands/setup.ts"() {
    "use strict";
    import_node_fs5 = require("node:fs");
    init_client2();
    init_migrate();
    init_env();
    init_master_key();
    init_users();
    init_errors();
    setup = {
      async run(argv) {
        if (argv.includes("--help")) {
          console.log(`Usage: bootdeck setup

Idempotent; safe to run before every start.
  - data directory:  $BOOTDECK_DATA_DIR (default ./data)
  - master key:      $BOOTDECK_MASTER_KEY, or a key file ($BOOTDECK_MASTER_KEY_FILE, default data/master.key, mode 0600)
  - first admin:     user "admin"; password from $BOOTDECK_ADMIN_PASSWORD, or generated and printed once`);
          return 0;
        }
        const env = getEnv();
        if (ensureMasterKeyFile()) console.log(`setup: created master key ${env.masterKeyFile} (mode 0600) \u2014 back it up; without it stored secrets cannot be read`);
        await migrateDatabase();
        await configureDb();
        const dbFile = env.databaseUrl.replace(/^file:/, "");
        for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) if ((0, import_node_fs5.existsSync)(f)) (0, import_node_fs5.chmodSync)(f, 384);
        console.log(`setup: database ${env.databaseUrl} is up to date`);
        if (await countUsers() === 0) {
          const password = env.BOOTDECK_ADMIN_PASSWORD ?? generatePassword();
          try {
            await createUser({ username: "admin", displayName: "Administrator", password, role: "admin" });
          } catch (err) {
            if (!(err instanceof ValidationError)) throw err;
            for (const e of err.errors) console.error(`setup: BOOTDECK_ADMIN_PASSWORD ${e.message}`);
            await disconnectDb();
            return 1;
          }
          console.log(
            env.BOOTDECK_ADMIN_PASSWORD ? 'setup: created user "admin" with the password from BOOTDECK_ADMIN_PASSWORD' : `setup: created user "admin" with password ${password}
setup: this password is shown only once; sign in and keep it safe`
          );
        }
        await disconnectDb();
        return 0;
      }
    };
  }
});

// cli/commands/validate.ts
var validate_exports = {};
__export(validate_exports, {
  validate: () => validate
});
var import_promises6, validate;
var init_validate = __esm({
  "cli/commands/validate.ts"() {
    "use strict";
    import_promises6 = require("node:fs/promises");
    init_yaml();
    init_problems();
    validate = {
      async run(argv) {
        const file = argv.find((a) => !a.startsWith("-"));
        if (!file || argv.includes("--help")) {
          console.log("Usage: bootdeck validate cluster.yaml\n\nExits 0 when valid, 1 when it has problems, 2 on usage errors.");
          return file ? 0 : 2;
        }
        let text;
        try {
          text = await (0, import_promises6.readFile)(file, "utf8");
        } catch (err) {
          console.error(`bootdeck validate: cannot read ${file}: ${err.code ?? String(err)}`);
          return 2;
        }
        const result = parseClusterYaml(text);
        printWarnings(result.warnings);
        if (!result.ok) {
          printErrors(file, result.errors);
          return 1;
        }
        const hosts = result.definition.spec.hosts;
        const masters = hosts.filter((h) => h.role === "master").length;
        console.log(`${file}: valid \u2014 cluster ${result.definition.metadata.name}, ${masters} master(s), ${hosts.length - masters} worker(s)`);
        return 0;
      }
    };
  }
});

// lib/backups/runs.ts
async function startBackupRun({ clusterId: clusterId2, createdById, trigger }) {
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: clusterId2 }, select: { definition: true, revision: true, activeRunId: true } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.activeRunId) throw conflict(`Another run (${cluster.activeRunId}) is in progress on this cluster; the backup can start once it ends`);
  const id = newId("run");
  const runId = await planDrRun({ clusterId: clusterId2, definition: { parsed: JSON.parse(cluster.definition), json: cluster.definition, revision: cluster.revision }, body: { type: "backup" }, id, createdById, trigger });
  try {
    await startRun({ runId });
  } catch (err) {
    await db.run.updateMany({ where: { id: runId, status: "planned" }, data: { status: "cancelled", finishedAt: /* @__PURE__ */ new Date(), summary: JSON.stringify({ message: "not started: another run held the cluster" }) } });
    throw err;
  }
  return runId;
}
var init_runs2 = __esm({
  "lib/backups/runs.ts"() {
    "use strict";
    init_client2();
    init_errors();
    init_ids();
    init_plan_run_dr();
    init_runs();
  }
});

// lib/backups/schedule.ts
async function reconcileScheduledRuns() {
  const db = getDb();
  const waiting = await db.backupPolicy.findMany({ where: { lastStatus: "running", lastRunId: { not: null } } });
  for (const p2 of waiting) {
    const run4 = await db.run.findUnique({ where: { id: p2.lastRunId }, select: { status: true, summary: true, finishedAt: true } });
    if (run4 && !["succeeded", "failed", "needs-decision", "cancelled"].includes(run4.status)) continue;
    const ok = run4?.status === "succeeded";
    const error = !run4 ? "its run was deleted" : ok ? null : await runError(p2.lastRunId, run4.status, run4.summary);
    await db.backupPolicy.updateMany({
      where: { clusterId: p2.clusterId, lastRunId: p2.lastRunId, lastStatus: "running" },
      data: ok ? { lastStatus: "succeeded", lastError: null, lastSuccessAt: run4.finishedAt ?? /* @__PURE__ */ new Date(), failures: 0 } : { lastStatus: "failed", lastError: error, failures: { increment: 1 } }
    });
    if (!ok) await recordAudit({ action: "backup.schedule-failed", target: p2.lastRunId, details: { clusterId: p2.clusterId, error } });
  }
}
async function runError(runId, status, summary) {
  const failed = await getDb().step.findFirst({ where: { runId, status: "failed" }, select: { error: true } });
  if (failed?.error) return failed.error.slice(0, 500);
  const message = summary ? JSON.parse(summary).message : void 0;
  return `the backup run ${status}${message ? `: ${message}` : ""}`;
}
async function startDueBackups(now = /* @__PURE__ */ new Date()) {
  const db = getDb();
  const due = await db.backupPolicy.findMany({ where: { enabled: true, nextDueAt: { lte: now }, OR: [{ lastStatus: null }, { lastStatus: { not: "running" } }] } });
  const started = [];
  for (const p2 of due) {
    const next = new Date(now.getTime() + p2.intervalMinutes * 6e4);
    const claimed = await db.backupPolicy.updateMany({ where: { clusterId: p2.clusterId, nextDueAt: p2.nextDueAt, enabled: true }, data: { nextDueAt: next, lastAttemptAt: now } });
    if (claimed.count === 0) continue;
    try {
      const runId = await startBackupRun({ clusterId: p2.clusterId, trigger: "schedule" });
      await db.backupPolicy.update({ where: { clusterId: p2.clusterId }, data: { lastRunId: runId, lastStatus: "running" } });
      await recordAudit({ action: "backup.schedule-run", target: runId, details: { clusterId: p2.clusterId, intervalMinutes: p2.intervalMinutes } });
      started.push(runId);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const busy = err instanceof AppError && err.status === 409;
      await db.backupPolicy.update({
        where: { clusterId: p2.clusterId },
        data: { lastStatus: busy ? "skipped" : "failed", lastError: message.slice(0, 500), failures: { increment: 1 }, ...busy ? { nextDueAt: new Date(now.getTime() + SKIP_RETRY_MS) } : {} }
      });
      await recordAudit({ action: "backup.schedule-failed", target: p2.clusterId, details: { clusterId: p2.clusterId, error: message.slice(0, 500), skipped: busy } });
    }
  }
  return started;
}
async function backupSchedulerTick(now = /* @__PURE__ */ new Date()) {
  await reconcileScheduledRuns();
  await startDueBackups(now);
  await sweepOrphanBackupFiles();
}
function startBackupScheduler() {
  if (holder5.bootdeckBackupScheduler) return;
  const tick = () => void backupSchedulerTick().catch((err) => console.error("[bootdeck backups] schedule tick failed:", err));
  holder5.bootdeckBackupScheduler = setInterval(tick, TICK_MS);
  holder5.bootdeckBackupScheduler.unref();
  tick();
}
function stopBackupScheduler() {
  clearInterval(holder5.bootdeckBackupScheduler);
  holder5.bootdeckBackupScheduler = void 0;
}
var TICK_MS, SKIP_RETRY_MS, holder5;
var init_schedule = __esm({
  "lib/backups/schedule.ts"() {
    "use strict";
    init_record();
    init_client2();
    init_errors();
    init_runs2();
    init_store2();
    TICK_MS = 3e4;
    SKIP_RETRY_MS = 5 * 6e4;
    holder5 = globalThis;
  }
});

// lib/shutdown.ts
function shutdown({ graceMs = 5e3 } = {}) {
  state2.done ??= (async () => {
    state2.controller.abort(new Error("the server is shutting down"));
    stopBackupScheduler();
    await getEngineWorker().stop({ handOver: true, graceMs });
  })();
  return state2.done;
}
var holder6, state2;
var init_shutdown = __esm({
  "lib/shutdown.ts"() {
    "use strict";
    init_schedule();
    init_worker();
    holder6 = globalThis;
    state2 = holder6.bootdeckShutdown ??= { controller: new AbortController(), installed: false };
  }
});

// cli/commands/worker.ts
var worker_exports = {};
__export(worker_exports, {
  worker: () => worker
});
var worker;
var init_worker2 = __esm({
  "cli/commands/worker.ts"() {
    "use strict";
    init_worker();
    init_schedule();
    init_shutdown();
    worker = {
      async run(argv) {
        if (argv.includes("--help")) {
          console.log("Usage: bootdeck worker\n\nRuns started runs and resumes runs whose worker stopped, against the same database as the dashboard.");
          return 0;
        }
        const w = getEngineWorker();
        w.start();
        startBackupScheduler();
        console.log(`engine worker ${w.workerId} is running; Ctrl-C or SIGTERM stops it and hands its runs over (another worker resumes them at once)`);
        const idle = setInterval(() => void 0, 6e4);
        await new Promise((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        clearInterval(idle);
        await shutdown();
        console.log(`engine worker ${w.workerId} stopped; its runs were handed over`);
        return 0;
      }
    };
  }
});

// lab/config.ts
function validateLabName(name) {
  if (!/^[a-z][a-z0-9]{0,7}$/.test(name)) {
    throw new Error(`lab name must be 1\u20138 lower-case letters/digits starting with a letter (it becomes interface names), got "${name}"`);
  }
  return name;
}
var import_node_path8, CACHE_DIR, RUN_DIR, LAB_DISK_DIR, SUITE, MIRROR, BASE_PACKAGES, FIXED_SUBNETS, SUBNET_PREFIX, FIRST_HOST_OCTET, MAX_HOSTS, USERS, LAB_PASSWORD, labDir, statePath, bridgeName, netnsName, vethName;
var init_config = __esm({
  "lab/config.ts"() {
    "use strict";
    import_node_path8 = __toESM(require("node:path"));
    CACHE_DIR = process.env.BOOTDECK_LAB_CACHE ?? "/var/cache/bootdeck-lab";
    RUN_DIR = process.env.BOOTDECK_LAB_RUN ?? "/run/bootdeck-lab";
    LAB_DISK_DIR = process.env.BOOTDECK_LAB_DISK ?? "/var/lib/bootdeck-lab";
    SUITE = "bookworm";
    MIRROR = process.env.BOOTDECK_LAB_MIRROR ?? "http://deb.debian.org/debian";
    BASE_PACKAGES = [
      "openssh-server",
      "sudo",
      "iproute2",
      "python3",
      "procps",
      "etcd-server",
      "etcd-client",
      "iptables",
      "socat",
      "util-linux",
      "mount",
      "ebtables",
      "ethtool",
      "conntrack",
      "curl",
      "ca-certificates",
      // The API address Bootdeck provisions on masters (the hosts have no route to a package mirror).
      "keepalived"
    ];
    FIXED_SUBNETS = { dev: 10, test: 20 };
    SUBNET_PREFIX = "10.237";
    FIRST_HOST_OCTET = 10;
    MAX_HOSTS = 240;
    USERS = {
      /** Unprivileged user with passwordless sudo (what Bootdeck should be given on real hosts). */
      sudo: "deploy",
      /** A user whose sudo asks for a password (tests the clear error). */
      sudoWithPassword: "needpw"
    };
    LAB_PASSWORD = "bootdeck-lab-password";
    labDir = (name) => import_node_path8.default.join(RUN_DIR, name);
    statePath = (name) => import_node_path8.default.join(labDir(name), "state.json");
    bridgeName = (name) => `bdl-${name}`;
    netnsName = (lab2, host3) => `bdl-${lab2}-${host3}`;
    vethName = (subnet, index) => `bdv${subnet}h${index}`;
  }
});

// lab/sh.ts
function run2(cmd, args, opts = {}) {
  const r2 = (0, import_node_child_process2.spawnSync)(cmd, args, { input: opts.input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r2.error) throw new LabCommandError(`${cmd}: ${r2.error.message}`);
  if (r2.status !== 0 && !opts.allowFail) {
    throw new LabCommandError(`${cmd} ${args.join(" ")} failed (exit ${r2.status}): ${(r2.stderr || r2.stdout).trim()}`);
  }
  return r2.stdout;
}
function tryRun(cmd, args) {
  const r2 = (0, import_node_child_process2.spawnSync)(cmd, args, { stdio: "ignore" });
  return r2.status === 0;
}
function runStreaming(cmd, args, onLine) {
  return new Promise((resolve, reject) => {
    const child = (0, import_node_child_process2.spawn)(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let tail = [];
    const feed = (buf2) => {
      for (const line2 of buf2.toString("utf8").split("\n")) {
        if (!line2.trim()) continue;
        tail = [...tail.slice(-20), line2];
        onLine(line2);
      }
    };
    child.stdout.on("data", feed);
    child.stderr.on("data", feed);
    child.on("error", reject);
    child.on(
      "close",
      (code) => code === 0 ? resolve() : reject(new LabCommandError(`${cmd} failed (exit ${code}):
${tail.join("\n")}`))
    );
  });
}
function which(cmd) {
  return tryRun("sh", ["-c", 'command -v "$1" >/dev/null', "which", cmd]);
}
var import_node_child_process2, LabCommandError;
var init_sh = __esm({
  "lab/sh.ts"() {
    "use strict";
    import_node_child_process2 = require("node:child_process");
    LabCommandError = class extends Error {
    };
  }
});

// lab/base-image.ts
function baseImageKeys() {
  const pkgKey = hash(SUITE, MIRROR, ...BASE_PACKAGES);
  const imageKey = hash(pkgKey, CONFIGURE, SSHD_CONF, HOST_INIT);
  return {
    debootstrapDir: import_node_path9.default.join(CACHE_DIR, `debootstrap-${pkgKey}`),
    imageDir: import_node_path9.default.join(CACHE_DIR, `rootfs-${imageKey}`)
  };
}
async function ensureBaseImage(log2) {
  const { debootstrapDir, imageDir } = baseImageKeys();
  if (complete(imageDir)) return imageDir;
  import_node_fs6.default.mkdirSync(CACHE_DIR, { recursive: true });
  if (!complete(debootstrapDir)) {
    const tmp2 = `${debootstrapDir}.partial`;
    import_node_fs6.default.rmSync(tmp2, { recursive: true, force: true });
    log2(`building the base root filesystem with debootstrap (${SUITE}, minbase, ${BASE_PACKAGES.length} packages); takes a few minutes the first time\u2026`);
    let n = 0;
    await runStreaming(
      "debootstrap",
      ["--variant=minbase", `--include=${BASE_PACKAGES.join(",")}`, SUITE, tmp2, MIRROR],
      (line2) => {
        if (/^I: (Retrieving Release|Validating Packages|Resolving|Found|Checking|Extracting base|Installing core|Configuring|Base system)/.test(line2) || ++n % 25 === 0) {
          log2(`  debootstrap: ${line2.replace(/^I: /, "")}`);
        }
      }
    );
    import_node_fs6.default.writeFileSync(import_node_path9.default.join(tmp2, ".bootdeck-complete"), (/* @__PURE__ */ new Date()).toISOString());
    import_node_fs6.default.renameSync(tmp2, debootstrapDir);
  }
  log2("configuring the base image (users, sudo, sshd)\u2026");
  const tmp = `${imageDir}.partial`;
  import_node_fs6.default.rmSync(tmp, { recursive: true, force: true });
  run2("cp", ["-a", "--reflink=auto", debootstrapDir, tmp]);
  import_node_fs6.default.rmSync(import_node_path9.default.join(tmp, ".bootdeck-complete"), { force: true });
  run2("chroot", [tmp, "/bin/sh", "-c", CONFIGURE]);
  import_node_fs6.default.writeFileSync(import_node_path9.default.join(tmp, "etc/ssh/sshd_config.d/bootdeck-lab.conf"), SSHD_CONF);
  import_node_fs6.default.writeFileSync(import_node_path9.default.join(tmp, "sbin/bootdeck-lab-init"), HOST_INIT, { mode: 493 });
  import_node_fs6.default.writeFileSync(import_node_path9.default.join(tmp, ".bootdeck-complete"), (/* @__PURE__ */ new Date()).toISOString());
  import_node_fs6.default.renameSync(tmp, imageDir);
  log2(`base image ready: ${imageDir}`);
  return imageDir;
}
var import_node_crypto24, import_node_fs6, import_node_path9, HOST_INIT, SSHD_CONF, CONFIGURE, hash, complete;
var init_base_image = __esm({
  "lab/base-image.ts"() {
    "use strict";
    import_node_crypto24 = require("node:crypto");
    import_node_fs6 = __toESM(require("node:fs"));
    import_node_path9 = __toESM(require("node:path"));
    init_config();
    init_sh();
    HOST_INIT = `#!/bin/sh
# bootdeck lab host init (PID 1 in the host's pid, mount and cgroup namespaces)
# Mounts as on a machine of its own: shared propagation (the kubelet and containerd need it), /proc,
# /sys with every cgroup hierarchy (the host's own, through its cgroup namespace), a private /dev.
mount -t proc proc /proc
# This machine's root, left behind by pivot_root: the host sees only its own.
umount -l /.bootdeck-oldroot && rmdir /.bootdeck-oldroot
mount --make-rshared /
echo "$1" > /proc/sys/kernel/hostname
mount -t sysfs sysfs /sys 2>/dev/null || true
if grep -qv '^0::' /proc/self/cgroup; then
  mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
  while IFS=: read -r id ctrls rest; do
    case "$ctrls" in
      "") mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified ;;
      name=*) d=\${ctrls#name=}; mkdir -p "/sys/fs/cgroup/$d" && mount -t cgroup -o "none,$ctrls" cgroup "/sys/fs/cgroup/$d" ;;
      *) mkdir -p "/sys/fs/cgroup/$ctrls" && mount -t cgroup -o "$ctrls" cgroup "/sys/fs/cgroup/$ctrls"
         case "$ctrls" in *,*) for c in $(echo "$ctrls" | tr , ' '); do ln -s "$ctrls" "/sys/fs/cgroup/$c"; done ;; esac ;;
    esac
  done < /proc/self/cgroup
else
  mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0
mknod -m 600 /dev/kmsg c 1 11
mkdir -p /dev/pts /dev/shm /run/sshd /run/lock
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
ln -s pts/ptmx /dev/ptmx; ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
/usr/sbin/sshd -E /var/log/sshd.log
# Boot the units this host has enabled (containerd, the kubelet, \u2026), as systemd would.
[ -d /etc/systemd/system/multi-user.target.wants ] && [ -x /usr/local/bin/systemctl ] && /usr/local/bin/systemctl daemon-reload >/dev/null 2>&1 &
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait; done
`;
    SSHD_CONF = `# bootdeck lab: test hosts only, reachable only on the lab bridge
PermitRootLogin yes
PasswordAuthentication yes
UsePAM no
UseDNS no
MaxStartups 200:30:400
PidFile /run/sshd.pid
HostKey /etc/ssh/ssh_host_ed25519_key
`;
    CONFIGURE = `set -eu
useradd -m -s /bin/bash ${USERS.sudo}
useradd -m -s /bin/bash ${USERS.sudoWithPassword}
printf '%s\\n' 'root:${LAB_PASSWORD}' '${USERS.sudo}:${LAB_PASSWORD}' '${USERS.sudoWithPassword}:${LAB_PASSWORD}' | chpasswd
echo '${USERS.sudo} ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/${USERS.sudo}
echo '${USERS.sudoWithPassword} ALL=(ALL) ALL' > /etc/sudoers.d/${USERS.sudoWithPassword}
chmod 0440 /etc/sudoers.d/${USERS.sudo} /etc/sudoers.d/${USERS.sudoWithPassword}
rm -f /etc/ssh/ssh_host_*
for u in root ${USERS.sudo} ${USERS.sudoWithPassword}; do h=$(getent passwd "$u" | cut -d: -f6); mkdir -p "$h/.ssh"; chmod 700 "$h/.ssh"; chown "$u:$u" "$h/.ssh"; done
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
`;
    hash = (...parts) => (0, import_node_crypto24.createHash)("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);
    complete = (dir) => import_node_fs6.default.existsSync(import_node_path9.default.join(dir, ".bootdeck-complete"));
  }
});

// lab/cgroups.ts
function hierarchies() {
  const own = /* @__PURE__ */ new Map();
  for (const line2 of import_node_fs7.default.readFileSync("/proc/self/cgroup", "utf8").split("\n").filter(Boolean)) {
    const [, ctrls = "", p2 = "/"] = line2.split(":");
    own.set(ctrls, p2);
  }
  const out = [];
  for (const line2 of import_node_fs7.default.readFileSync("/proc/self/mountinfo", "utf8").split("\n").filter(Boolean)) {
    const [pre, post] = line2.split(" - ");
    const [fstype, , superOpts = ""] = (post ?? "").split(" ");
    const mountPoint = (pre ?? "").split(" ")[4] ?? "";
    if (fstype === "cgroup2") out.push({ mountPoint, own: own.get("") ?? "/", version: 2, controllers: [] });
    if (fstype === "cgroup") {
      const controllers = superOpts.split(",").filter((o2) => !V1_OPTIONS_IGNORED.has(o2) && o2 !== "none");
      const key = [...own.keys()].find((k) => k !== "" && sameSet(k.split(","), controllers));
      out.push({ mountPoint, own: key === void 0 ? "/" : own.get(key) ?? "/", version: 1, controllers });
    }
  }
  return out;
}
function hostCgroupDir(h, lab2, host3) {
  return import_node_path10.default.join(h.mountPoint, h.version === 1 ? h.own : "/", "bootdeck-lab", lab2, host3);
}
function labCgroupDirs(lab2) {
  return hierarchies().map((h) => import_node_path10.default.dirname(hostCgroupDir(h, lab2, "x")));
}
function createHostCgroups(lab2, host3) {
  const procs = [];
  for (const h of hierarchies()) {
    const dir = hostCgroupDir(h, lab2, host3);
    const base = import_node_path10.default.join(h.mountPoint, h.version === 1 ? h.own : "/");
    let cur = base;
    if (h.version === 2) enableV2Controllers(base);
    for (const part of import_node_path10.default.relative(base, dir).split(import_node_path10.default.sep)) {
      const parent = cur;
      cur = import_node_path10.default.join(cur, part);
      if (!import_node_fs7.default.existsSync(cur)) import_node_fs7.default.mkdirSync(cur);
      if (h.controllers.includes("cpuset")) {
        for (const f of ["cpuset.cpus", "cpuset.mems"]) if (!import_node_fs7.default.readFileSync(import_node_path10.default.join(cur, f), "utf8").trim()) import_node_fs7.default.writeFileSync(import_node_path10.default.join(cur, f), import_node_fs7.default.readFileSync(import_node_path10.default.join(parent, f)));
      }
      if (h.version === 2 && cur !== dir) enableV2Controllers(cur);
    }
    procs.push(import_node_path10.default.join(dir, "cgroup.procs"));
  }
  return procs;
}
function enableV2Controllers(dir) {
  const available = import_node_fs7.default.readFileSync(import_node_path10.default.join(dir, "cgroup.controllers"), "utf8").trim().split(/\s+/).filter(Boolean);
  if (available.length) import_node_fs7.default.writeFileSync(import_node_path10.default.join(dir, "cgroup.subtree_control"), available.map((c) => `+${c}`).join(" "));
}
function removeLabCgroups(lab2) {
  for (const dir of labCgroupDirs(lab2)) removeTree(dir);
}
function removeHostCgroups(lab2, host3) {
  for (const h of hierarchies()) removeTree(hostCgroupDir(h, lab2, host3));
}
function removeTree(dir) {
  if (!import_node_fs7.default.existsSync(dir)) return;
  const all = [];
  const walk = (d) => {
    for (const e of import_node_fs7.default.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(import_node_path10.default.join(d, e.name));
    all.push(d);
  };
  walk(dir);
  for (const d of all) {
    try {
      import_node_fs7.default.rmdirSync(d);
    } catch {
    }
  }
}
var import_node_fs7, import_node_path10, V1_OPTIONS_IGNORED, sameSet;
var init_cgroups = __esm({
  "lab/cgroups.ts"() {
    "use strict";
    import_node_fs7 = __toESM(require("node:fs"));
    import_node_path10 = __toESM(require("node:path"));
    V1_OPTIONS_IGNORED = /* @__PURE__ */ new Set(["rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "xattr", "nsdelegate", "memory_recursiveprot"]);
    sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
  }
});

// lab/upstream/components.ts
function kubernetesComponent(version) {
  const cmds = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet", "kubectl"];
  return {
    id: "kubernetes",
    version,
    modules: [{ path: "k8s.io/kubernetes", version }],
    stagingReplaces: true,
    binaries: cmds.map((name) => ({ name, pkg: `k8s.io/kubernetes/cmd/${name}`, ldflags: k8sVersionFlags(version) }))
  };
}
function etcdComponent(imageTag) {
  const version = `v${imageTag.replace(/-\d+$/, "")}`;
  return {
    id: "etcd",
    version,
    modules: [
      { path: "go.etcd.io/etcd/server/v3", version },
      { path: "go.etcd.io/etcd/etcdctl/v3", version },
      { path: "go.etcd.io/etcd/etcdutl/v3", version }
    ],
    binaries: [
      { name: "etcd", pkg: "go.etcd.io/etcd/server/v3" },
      { name: "etcdctl", pkg: "go.etcd.io/etcd/etcdctl/v3" },
      { name: "etcdutl", pkg: "go.etcd.io/etcd/etcdutl/v3" }
    ]
  };
}
function corednsComponent(version) {
  return {
    id: "coredns",
    version,
    modules: [{ path: "github.com/coredns/coredns", version }],
    // CoreDNS compiles its version in (coremain.CoreVersion).
    binaries: [{ name: "coredns", pkg: "github.com/coredns/coredns" }]
  };
}
function pauseComponent(tag) {
  const newest = versionProfiles[versionProfiles.length - 1]?.defaultVersion ?? "";
  return { id: "pause", version: tag, modules: [{ path: "k8s.io/kubernetes", version: newest }], binaries: [], pauseFrom: newest };
}
function containerdComponent(version = runtimeVersions.containerd) {
  const v = `v${version}`;
  const ld = [`-X github.com/containerd/containerd/v2/version.Version=${v}`, "-X github.com/containerd/containerd/v2/version.Revision=bootdeck-lab"];
  const tags = ["no_btrfs", "no_devmapper", "no_zfs", "urfave_cli_no_docs"];
  return {
    id: "containerd",
    version: v,
    modules: [{ path: "github.com/containerd/containerd/v2", version: v }],
    binaries: ["containerd", "containerd-shim-runc-v2", "ctr"].map((name) => ({ name, pkg: `github.com/containerd/containerd/v2/cmd/${name}`, tags, ldflags: ld }))
  };
}
function runcComponent(version = runtimeVersions.runc) {
  return {
    id: "runc",
    version: `v${version}`,
    modules: [{ path: "github.com/opencontainers/runc", version: `v${version}` }],
    // runc needs cgo (its nsenter runs before the Go runtime starts) and libseccomp for seccomp profiles;
    // upstream ships it statically linked, and so does the lab.
    binaries: [{ name: "runc", pkg: "github.com/opencontainers/runc", cgo: true, static: true, tags: ["seccomp", "urfave_cli_no_docs", "netgo", "osusergo"], ldflags: [`-X main.version=${version}`] }],
    debianBuildDeps: ["libseccomp-dev", "pkg-config"]
  };
}
function crictlComponent(version = runtimeVersions.crictl) {
  return {
    id: "crictl",
    version,
    modules: [{ path: "sigs.k8s.io/cri-tools", version }],
    binaries: [{ name: "crictl", pkg: "sigs.k8s.io/cri-tools/cmd/crictl", ldflags: [`-X sigs.k8s.io/cri-tools/pkg/version.Version=${version}`] }]
  };
}
function cniPluginsComponent(version = runtimeVersions.cniPlugins) {
  const plugins = { bridge: "main/bridge", loopback: "main/loopback", "host-local": "ipam/host-local", portmap: "meta/portmap" };
  return {
    id: "cni-plugins",
    version,
    modules: [{ path: "github.com/containernetworking/plugins", version }],
    binaries: Object.entries(plugins).map(([name, dir]) => ({
      name,
      pkg: `github.com/containernetworking/plugins/plugins/${dir}`,
      ldflags: [`-X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=${version}`]
    }))
  };
}
function flannelComponent(version = addonVersions.flannel) {
  return {
    id: "flannel",
    version,
    modules: [{ path: "github.com/flannel-io/flannel", version }],
    replaces: [
      {
        path: "github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc",
        version: "v1.0.1000",
        why: "the version flannel requires is not on the module proxy; only its tencentvpc backend uses it, which the lab never runs"
      }
    ],
    binaries: [
      // cgo: the udp backend is C; upstream links flanneld with cgo too.
      { name: "flanneld", pkg: "github.com/flannel-io/flannel", cgo: true, static: true, tags: ["netgo", "osusergo"], ldflags: [`-X github.com/flannel-io/flannel/pkg/version.Version=${version}`] },
      { name: "install-conf", pkg: "github.com/flannel-io/flannel/cmd/install_conf" }
    ]
  };
}
function flannelCniComponent() {
  return {
    id: "flannel-cni",
    version: "v0.9.1",
    modules: [{ path: "github.com/containernetworking/plugins", version: "v0.9.1" }],
    binaries: [{ name: "flannel", pkg: "github.com/containernetworking/plugins/plugins/meta/flannel" }]
  };
}
function agnhostComponent() {
  const newest = versionProfiles[versionProfiles.length - 1]?.defaultVersion ?? "";
  return {
    id: "agnhost",
    version: newest,
    modules: [{ path: "k8s.io/kubernetes", version: newest }],
    stagingReplaces: true,
    binaries: [{ name: "agnhost", pkg: "k8s.io/kubernetes/test/images/agnhost" }]
  };
}
function registryComponent(version = "v3.1.2") {
  return {
    id: "registry",
    version,
    modules: [{ path: "github.com/distribution/distribution/v3", version }],
    binaries: [{ name: "registry", pkg: "github.com/distribution/distribution/v3/cmd/registry", ldflags: [`-X github.com/distribution/distribution/v3/version.version=${version}`] }]
  };
}
function componentsForCluster(kubernetesVersion) {
  const { pins } = profileOf(kubernetesVersion);
  return [
    kubernetesComponent(kubernetesVersion),
    etcdComponent(pins.etcd),
    corednsComponent(pins.coredns),
    pauseComponent(pins.pause),
    ...runtimeComponents()
  ];
}
function runtimeComponents() {
  return [containerdComponent(), runcComponent(), crictlComponent(), cniPluginsComponent(), flannelComponent(), flannelCniComponent(), agnhostComponent()];
}
var k8sVersionFlags, componentKey;
var init_components = __esm({
  "lab/upstream/components.ts"() {
    "use strict";
    init_runtime_versions();
    init_versions();
    k8sVersionFlags = (version) => {
      const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
      const vars = { gitVersion: version, gitMajor: major ?? "", gitMinor: minor ?? "", gitTreeState: "clean", buildDate: "1970-01-01T00:00:00Z" };
      return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`));
    };
    componentKey = (c) => `${c.id}-${c.version}`;
  }
});

// lab/upstream/build.ts
function componentDir(c) {
  return import_node_path11.default.join(UPSTREAM_DIR, componentKey(c));
}
function readManifest(dir) {
  try {
    return JSON.parse(import_node_fs8.default.readFileSync(import_node_path11.default.join(dir, MANIFEST), "utf8"));
  } catch {
    return void 0;
  }
}
function toBuilt(dir, m, cached3) {
  const binaries = Object.fromEntries(Object.entries(m.binaries).map(([n, b]) => [n, { ...b, path: import_node_path11.default.join(dir, "bin", n) }]));
  return { id: m.id, version: m.version, dir, binaries, seconds: cached3 ? 0 : m.seconds, cached: cached3 };
}
function cachedComponent(c) {
  const dir = componentDir(c);
  const m = readManifest(dir);
  return m ? toBuilt(dir, m, true) : void 0;
}
async function ensureComponent(c, log2) {
  const hit = cachedComponent(c);
  if (hit) return hit;
  return withBuildLock(componentDir(c), async () => cachedComponent(c) ?? await buildComponent(c, log2));
}
async function withBuildLock(dir, fn) {
  import_node_fs8.default.mkdirSync(UPSTREAM_DIR, { recursive: true });
  const lock = `${dir}.lock`;
  for (; ; ) {
    try {
      import_node_fs8.default.mkdirSync(lock);
      import_node_fs8.default.writeFileSync(import_node_path11.default.join(lock, "pid"), String(process.pid));
      break;
    } catch {
      const holder7 = Number(import_node_fs8.default.readFileSync(import_node_path11.default.join(lock, "pid"), { encoding: "utf8", flag: "a+" }) || 0);
      if (holder7 > 0 && !import_node_fs8.default.existsSync(`/proc/${holder7}`)) {
        import_node_fs8.default.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r2) => setTimeout(r2, 2e3));
    }
  }
  try {
    return await fn();
  } finally {
    import_node_fs8.default.rmSync(lock, { recursive: true, force: true });
  }
}
function goEnv(extra) {
  return { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? "local", ...extra };
}
function goVersion() {
  const r2 = (0, import_node_child_process3.spawnSync)("go", ["version"], { encoding: "utf8" });
  if (r2.error || r2.status !== 0) throw new Error("Go is not installed (the lab builds Kubernetes from Go modules): install Go 1.26 at /usr/local/go");
  return r2.stdout.trim();
}
function stagingReplaces(c, work) {
  const k8s = c.modules.find((m) => m.path === "k8s.io/kubernetes");
  if (!k8s) return [];
  const r2 = (0, import_node_child_process3.spawnSync)("go", ["mod", "download", "-json", `k8s.io/kubernetes@${k8s.version}`], { cwd: work, encoding: "utf8", env: goEnv({}) });
  if (r2.status !== 0) throw new Error(`go mod download k8s.io/kubernetes@${k8s.version} failed: ${(r2.stderr || r2.stdout).trim().slice(-800)}`);
  const info = JSON.parse(r2.stdout);
  const minor = /^v1\.(\d+)\.(\d+)/.exec(k8s.version);
  if (!minor) throw new Error(`not a Kubernetes version: ${k8s.version}`);
  const staging = `v0.${minor[1]}.${minor[2]}`;
  return import_node_fs8.default.readFileSync(info.GoMod, "utf8").split("\n").map((l) => /^\s*(k8s\.io\/[a-z0-9-]+)\s+=>\s+\.\/staging\//.exec(l)?.[1]).filter((m) => !!m).map((m) => `replace ${m} => ${m} ${staging}`);
}
function writeBuildModule(c, work) {
  import_node_fs8.default.rmSync(work, { recursive: true, force: true });
  import_node_fs8.default.mkdirSync(work, { recursive: true });
  const mod = [`module bootdeck.local/lab-build/${c.id}`, "", "go 1.26", "", "require (", ...c.modules.map((m) => `	${m.path} ${m.version}`), ")", ""];
  import_node_fs8.default.writeFileSync(import_node_path11.default.join(work, "go.mod"), mod.join("\n"));
  if (c.stagingReplaces) import_node_fs8.default.appendFileSync(import_node_path11.default.join(work, "go.mod"), `
${stagingReplaces(c, work).join("\n")}
`);
  for (const r2 of c.replaces ?? []) import_node_fs8.default.appendFileSync(import_node_path11.default.join(work, "go.mod"), `
// ${r2.why}
replace ${r2.path} => ${r2.path} ${r2.version}
`);
  const pkgs = [...c.binaries.map((b) => b.pkg)];
  import_node_fs8.default.writeFileSync(import_node_path11.default.join(work, "tools.go"), `//go:build tools

package tools

import (
${pkgs.map((p2) => `	_ "${p2}"`).join("\n")}
)
`);
}
function ensureDebianPackages(pkgs, log2) {
  const missing = pkgs.filter((p2) => (0, import_node_child_process3.spawnSync)("dpkg-query", ["-W", "-f=${Status}", p2], { encoding: "utf8" }).stdout !== "install ok installed");
  if (!missing.length) return;
  log2(`  installing build dependencies: ${missing.join(" ")}`);
  const r2 = (0, import_node_child_process3.spawnSync)("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...missing], { encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (r2.status !== 0) throw new Error(`apt-get install ${missing.join(" ")} failed: ${(r2.stderr || r2.stdout).trim().slice(-800)}`);
}
function runGo(args, opts) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = (0, import_node_child_process3.spawn)("go", args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let packages = 0;
    let tail = [];
    const feed = (buf2) => {
      for (const line2 of buf2.toString("utf8").split("\n")) {
        if (!line2.trim()) continue;
        if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line2.trim())) packages++;
        else tail = [...tail.slice(-30), line2];
      }
    };
    child.stdout.on("data", feed);
    child.stderr.on("data", feed);
    const timer = setInterval(() => opts.log(`  ${opts.label}: ${packages} packages compiled, ${Math.round((Date.now() - started) / 1e3)} s`), 15e3);
    child.on("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      if (code === 0) resolve();
      else reject(new Error(`${opts.label}: go ${args[0]} failed (exit ${code}):
${tail.join("\n")}`));
    });
  });
}
function ldflagsOf(b) {
  return ["-s", "-w", ...b.ldflags ?? [], ...b.static ? ["-extldflags", "-static"] : []].join(" ");
}
async function buildComponent(c, log2) {
  const go = goVersion();
  const key = componentKey(c);
  const started = Date.now();
  const work = import_node_path11.default.join(UPSTREAM_DIR, ".work", key);
  const out = `${componentDir(c)}.partial`;
  import_node_fs8.default.rmSync(out, { recursive: true, force: true });
  import_node_fs8.default.mkdirSync(import_node_path11.default.join(out, "bin"), { recursive: true });
  log2(`building ${c.id} ${c.version} from Go modules (${c.modules.map((m) => `${m.path}@${m.version}`).join(", ")})\u2026`);
  if (c.debianBuildDeps) ensureDebianPackages(c.debianBuildDeps, log2);
  writeBuildModule(c, work);
  await runGo(["mod", "tidy"], { cwd: work, env: goEnv({}), label: `${key} go mod tidy`, log: log2 });
  for (const b of c.binaries) {
    const t = Date.now();
    const args = ["build", "-v", "-trimpath", "-o", import_node_path11.default.join(out, "bin", b.name), "-ldflags", ldflagsOf(b)];
    if (b.tags?.length) args.push("-tags", b.tags.join(","));
    args.push(b.pkg);
    await runGo(args, { cwd: work, env: goEnv({ CGO_ENABLED: b.cgo ? "1" : "0" }), label: `${key} ${b.name}`, log: log2 });
    log2(`  ${b.name} built in ${((Date.now() - t) / 1e3).toFixed(0)} s`);
  }
  if (c.pauseFrom) buildPause(c, work, out);
  const binaries = {};
  for (const name of import_node_fs8.default.readdirSync(import_node_path11.default.join(out, "bin"))) {
    const data = import_node_fs8.default.readFileSync(import_node_path11.default.join(out, "bin", name));
    binaries[name] = { sha256: (0, import_node_crypto25.createHash)("sha256").update(data).digest("hex"), size: data.length };
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const manifest = { id: c.id, version: c.version, go, builtAt: (/* @__PURE__ */ new Date()).toISOString(), seconds, binaries };
  import_node_fs8.default.writeFileSync(import_node_path11.default.join(out, MANIFEST), JSON.stringify(manifest, null, 2));
  import_node_fs8.default.rmSync(componentDir(c), { recursive: true, force: true });
  import_node_fs8.default.renameSync(out, componentDir(c));
  log2(`${c.id} ${c.version} built in ${seconds} s`);
  return toBuilt(componentDir(c), manifest, false);
}
function buildPause(c, work, out) {
  const r2 = (0, import_node_child_process3.spawnSync)("go", ["mod", "download", "-json", `k8s.io/kubernetes@${c.pauseFrom}`], { cwd: work, encoding: "utf8", env: goEnv({}) });
  if (r2.status !== 0) throw new Error(`go mod download k8s.io/kubernetes@${c.pauseFrom}: ${r2.stderr.trim()}`);
  const src = import_node_path11.default.join(JSON.parse(r2.stdout).Dir, "build/pause/linux/pause.c");
  const cc = (0, import_node_child_process3.spawnSync)("gcc", ["-Os", "-Wall", "-Werror", "-static", `-DVERSION=v${c.version}`, "-o", import_node_path11.default.join(out, "bin", "pause"), src], { encoding: "utf8" });
  if (cc.status !== 0) throw new Error(`compiling pause: ${(cc.stderr || cc.stdout).trim()}`);
}
function cacheSize() {
  const r2 = (0, import_node_child_process3.spawnSync)("du", ["-sb", UPSTREAM_DIR], { encoding: "utf8" });
  return Number(r2.stdout.split(/\s/)[0] ?? 0) || 0;
}
var import_node_child_process3, import_node_crypto25, import_node_fs8, import_node_path11, UPSTREAM_DIR, MANIFEST;
var init_build = __esm({
  "lab/upstream/build.ts"() {
    "use strict";
    import_node_child_process3 = require("node:child_process");
    import_node_crypto25 = require("node:crypto");
    import_node_fs8 = __toESM(require("node:fs"));
    import_node_path11 = __toESM(require("node:path"));
    init_config();
    init_components();
    UPSTREAM_DIR = import_node_path11.default.join(CACHE_DIR, "upstream");
    MANIFEST = "manifest.json";
  }
});

// lab/cluster/host-runtime.ts
function hostStandIn(component) {
  return `${LAB_RUNTIME}/node --import ${LAB_RUNTIME}/repo/node_modules/tsx/dist/loader.mjs ${LAB_RUNTIME}/repo/lab/cluster/main.ts ${component}`;
}
function prepareHostRuntime(root) {
  const dir = import_node_path12.default.join(root, LAB_RUNTIME.slice(1));
  import_node_fs9.default.mkdirSync(import_node_path12.default.join(dir, "repo"), { recursive: true });
  import_node_fs9.default.writeFileSync(import_node_path12.default.join(dir, "node"), "");
  (0, import_node_child_process4.execFileSync)("mount", ["--bind", process.execPath, import_node_path12.default.join(dir, "node")]);
  (0, import_node_child_process4.execFileSync)("mount", ["-o", "remount,bind,ro", import_node_path12.default.join(dir, "node")]);
  (0, import_node_child_process4.execFileSync)("mount", ["--bind", REPO_ROOT, import_node_path12.default.join(dir, "repo")]);
  (0, import_node_child_process4.execFileSync)("mount", ["-o", "remount,bind,ro", import_node_path12.default.join(dir, "repo")]);
  const bin3 = import_node_path12.default.join(root, "usr/local/bin");
  import_node_fs9.default.mkdirSync(bin3, { recursive: true });
  for (const c of ["systemctl", "journalctl", "crictl"])
    import_node_fs9.default.writeFileSync(import_node_path12.default.join(bin3, c), `#!/bin/sh
# bootdeck lab stand-in for ${c} (see docs/lab-cluster.md)
exec ${hostStandIn(c)} "$@"
`, { mode: 493 });
}
function startMirror(labDir2, gateway, port2 = MIRROR_PORT) {
  const log2 = import_node_fs9.default.openSync(import_node_path12.default.join(labDir2, "mirror.log"), "a");
  const child = (0, import_node_child_process4.spawn)(process.execPath, ["--import", import_node_path12.default.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs"), import_node_path12.default.join(REPO_ROOT, "lab/cluster/mirror.ts"), gateway, String(port2)], {
    detached: true,
    stdio: ["ignore", log2, log2]
  });
  child.unref();
  import_node_fs9.default.closeSync(log2);
  import_node_fs9.default.writeFileSync(import_node_path12.default.join(labDir2, "mirror.pid"), String(child.pid));
  const base = `http://${gateway}:${port2}`;
  const deadline = Date.now() + 6e4;
  while ((0, import_node_child_process4.spawnSync)("curl", ["-sf", "-o", "/dev/null", "--max-time", "2", `${base}/healthz`]).status !== 0) {
    if (Date.now() > deadline) throw new Error(`the lab binary mirror did not answer on ${base} (see ${import_node_path12.default.join(labDir2, "mirror.log")})`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  return base;
}
function stopMirror(labDir2) {
  const f = import_node_path12.default.join(labDir2, "mirror.pid");
  if (!import_node_fs9.default.existsSync(f)) return;
  const pid = Number(import_node_fs9.default.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && import_node_fs9.default.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("lab/cluster/mirror.ts")) process.kill(pid, "SIGTERM");
  } catch {
  }
}
function startVirtualNodes(labDir2, kubeconfigs, count2, opts = {}) {
  stopVirtualNodes(labDir2);
  if (count2 <= 0) return 0;
  const log2 = import_node_fs9.default.openSync(import_node_path12.default.join(labDir2, "virtual-nodes.log"), "a");
  const child = (0, import_node_child_process4.spawn)(process.execPath, ["--import", import_node_path12.default.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs"), import_node_path12.default.join(REPO_ROOT, "lab/cluster/main.ts"), "virtual-nodes", ...kubeconfigs.map((k) => `--kubeconfig=${k}`), `--count=${count2}`, ...opts.wait ? ["--wait"] : []], {
    detached: true,
    stdio: ["ignore", log2, log2]
  });
  child.unref();
  import_node_fs9.default.closeSync(log2);
  import_node_fs9.default.writeFileSync(import_node_path12.default.join(labDir2, "virtual-nodes.pid"), String(child.pid));
  return child.pid ?? 0;
}
function stopVirtualNodes(labDir2) {
  const f = import_node_path12.default.join(labDir2, "virtual-nodes.pid");
  if (!import_node_fs9.default.existsSync(f)) return;
  const pid = Number(import_node_fs9.default.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && import_node_fs9.default.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("virtual-nodes")) process.kill(pid, "SIGTERM");
  } catch {
  }
  import_node_fs9.default.rmSync(f, { force: true });
}
var import_node_child_process4, import_node_fs9, import_node_path12, LAB_RUNTIME, MIRROR_PORT, REPO_ROOT;
var init_host_runtime = __esm({
  "lab/cluster/host-runtime.ts"() {
    "use strict";
    import_node_child_process4 = require("node:child_process");
    import_node_fs9 = __toESM(require("node:fs"));
    import_node_path12 = __toESM(require("node:path"));
    LAB_RUNTIME = "/opt/bootdeck-lab";
    MIRROR_PORT = 8780;
    REPO_ROOT = import_node_path12.default.resolve(__bootdeckSource("lab/cluster"), "..", "..");
  }
});

// lab/upstream/tools.ts
function sourceFiles(dir) {
  return import_node_fs10.default.readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? sourceFiles(import_node_path13.default.join(dir, e.name)) : /\.(go|mod|sum)$/.test(e.name) ? [import_node_path13.default.join(dir, e.name)] : []).sort();
}
async function labToolPath(log2) {
  const h = (0, import_node_crypto26.createHash)("sha256");
  for (const f of sourceFiles(SOURCE)) h.update(import_node_path13.default.relative(SOURCE, f)).update(import_node_fs10.default.readFileSync(f));
  const out = import_node_path13.default.join(UPSTREAM_DIR, `lab-tools-${h.digest("hex").slice(0, 12)}`, "lab-images");
  if (import_node_fs10.default.existsSync(out)) return out;
  log2("building the lab's image tool (lab/go)\u2026");
  import_node_fs10.default.mkdirSync(import_node_path13.default.dirname(out), { recursive: true });
  const r2 = (0, import_node_child_process5.spawnSync)("go", ["build", "-trimpath", "-o", `${out}.partial`, "./cmd/lab-images"], { cwd: SOURCE, encoding: "utf8", env: { ...process.env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" } });
  if (r2.status !== 0) throw new Error(`building lab/go failed: ${(r2.stderr || r2.stdout).trim()}`);
  import_node_fs10.default.renameSync(`${out}.partial`, out);
  return out;
}
var import_node_child_process5, import_node_crypto26, import_node_fs10, import_node_path13, SOURCE;
var init_tools = __esm({
  "lab/upstream/tools.ts"() {
    "use strict";
    import_node_child_process5 = require("node:child_process");
    import_node_crypto26 = require("node:crypto");
    import_node_fs10 = __toESM(require("node:fs"));
    import_node_path13 = __toESM(require("node:path"));
    init_host_runtime();
    init_build();
    SOURCE = import_node_path13.default.join(REPO_ROOT, "lab/go");
  }
});

// lab/upstream/images.ts
function debianLayer(root, programs, extraFiles = []) {
  const files = new Set(extraFiles);
  for (const prog of programs) {
    files.add(prog);
    const r2 = (0, import_node_child_process6.spawnSync)("chroot", [root, "ldd", prog], { encoding: "utf8" });
    if (r2.status !== 0) throw new Error(`ldd ${prog} in ${root}: ${r2.stderr.trim()}`);
    for (const m of r2.stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)) if (m[1]) files.add(m[1]);
  }
  const entries = /* @__PURE__ */ new Map();
  for (const f of files) {
    const canonical = f.replace(/^\/(lib64|lib|bin|sbin)\//, "/usr/$1/");
    const real = import_node_fs11.default.realpathSync(import_node_path14.default.join(root, f));
    entries.set(canonical, { dest: canonical, src: real });
  }
  return [...USRMERGE, ...entries.values()];
}
function iptablesLayer(root) {
  const xtables = "/usr/lib/x86_64-linux-gnu/xtables";
  const modules = import_node_fs11.default.readdirSync(import_node_path14.default.join(root, xtables)).map((f) => `${xtables}/${f}`);
  const names = ["iptables", "iptables-save", "iptables-restore", "ip6tables", "ip6tables-save", "ip6tables-restore", "iptables-nft", "iptables-nft-save", "iptables-nft-restore", "ip6tables-nft", "ip6tables-nft-save", "ip6tables-nft-restore"];
  return [
    ...debianLayer(root, ["/usr/sbin/xtables-nft-multi", ...modules], ["/etc/protocols", "/etc/ethertypes"].filter((f) => import_node_fs11.default.existsSync(import_node_path14.default.join(root, f)))),
    ...names.map((n) => ({ dest: `/usr/sbin/${n}`, symlink: "xtables-nft-multi" }))
  ];
}
function toolboxLayer(root) {
  const tools = ["cp", "cat", "ls", "mkdir", "rm", "sleep", "env", "hostname"];
  return [...debianLayer(root, ["/usr/bin/dash", ...tools.map((t) => `/usr/bin/${t}`)]), { dest: "/usr/bin/sh", symlink: "dash" }, { dest: "/tmp", dir: true }];
}
async function clusterImageSpecs(kubernetesVersion, log2) {
  const built = /* @__PURE__ */ new Map();
  const comps = componentsForCluster(kubernetesVersion);
  for (const c of comps) built.set(c.id, await ensureComponent(c, log2));
  const get = (id) => {
    const b = built.get(id);
    if (!b) throw new Error(`component ${id} was not built`);
    return b;
  };
  const root = baseImageKeys().debootstrapDir;
  if (!import_node_fs11.default.existsSync(root)) throw new Error(`the lab's Debian root ${root} is missing: run \`bootdeck lab up\` once to build it`);
  const images2 = imagesFor(capabilitiesFor(kubernetesVersion));
  const k8s = get("kubernetes");
  const iptables = iptablesLayer(root);
  const toolbox = toolboxLayer(root);
  const local = (c, names, dir = "/usr/local/bin") => names.map((n) => ({ dest: `${dir}/${n}`, src: bin2(c, n), mode: 493 }));
  const component = (ref, name, extra = []) => ({
    ref,
    layers: [...extra, local(k8s, [name])],
    entrypoint: [`/usr/local/bin/${name}`],
    env: [PATH_ENV]
  });
  const agnhost = get("agnhost");
  const specs = [
    component(images2.apiserver, "kube-apiserver"),
    component(images2.controllerManager, "kube-controller-manager"),
    component(images2.scheduler, "kube-scheduler"),
    component(images2.proxy, "kube-proxy", [iptables]),
    { ref: images2.etcd, layers: [local(get("etcd"), ["etcd", "etcdctl", "etcdutl"]), [{ dest: "/var/lib/etcd", dir: true }, { dest: "/tmp", dir: true }]], cmd: ["/usr/local/bin/etcd"], env: [PATH_ENV] },
    { ref: images2.coredns, layers: [[{ dest: "/coredns", src: bin2(get("coredns"), "coredns"), mode: 493 }]], entrypoint: ["/coredns"] },
    { ref: need(images2.pause), layers: [[{ dest: "/pause", src: bin2(get("pause"), "pause"), mode: 493 }]], entrypoint: ["/pause"] },
    {
      ref: images2.flannel,
      layers: [iptables, local(get("flannel"), ["flanneld", "install-conf"], "/opt/bin")],
      entrypoint: ["/opt/bin/flanneld"],
      env: [PATH_ENV]
    },
    { ref: need(images2.flannelCni), layers: [toolbox, [{ dest: "/flannel", src: bin2(get("flannel-cni"), "flannel"), mode: 493 }]], env: [PATH_ENV] },
    { ref: agnhostImage(), layers: [toolbox, [{ dest: "/agnhost", src: bin2(agnhost, "agnhost"), mode: 493 }]], entrypoint: ["/agnhost"], env: [PATH_ENV] }
  ];
  const key = (0, import_node_crypto27.createHash)("sha256").update(JSON.stringify(specs)).update(comps.map(componentKey).join(",")).digest("hex").slice(0, 12);
  return { key, specs };
}
function agnhostImage() {
  const version = import_node_fs11.default.readFileSync(import_node_path14.default.join(goModuleDir(`k8s.io/kubernetes@${agnhostComponent().version}`), "test/images/agnhost/VERSION"), "utf8").trim();
  return `registry.k8s.io/e2e-test-images/agnhost:${version}`;
}
function need(ref) {
  if (!ref) throw new Error("this Kubernetes version has no such image");
  return ref;
}
function goModuleDir(moduleAtVersion) {
  const r2 = (0, import_node_child_process6.spawnSync)("go", ["mod", "download", "-json", moduleAtVersion], { encoding: "utf8", cwd: CACHE_DIR, env: { ...process.env, GOFLAGS: "-mod=mod" } });
  if (r2.status !== 0) throw new Error(`go mod download ${moduleAtVersion}: ${(r2.stderr || r2.stdout).trim()}`);
  return JSON.parse(r2.stdout).Dir;
}
async function ensureClusterImages(kubernetesVersion, log2) {
  const { key, specs } = await clusterImageSpecs(kubernetesVersion, log2);
  const out = import_node_path14.default.join(IMAGES_DIR, `${kubernetesVersion}-${key}`);
  if (import_node_fs11.default.existsSync(import_node_path14.default.join(out, "index.json"))) return out;
  const started = Date.now();
  import_node_fs11.default.mkdirSync(IMAGES_DIR, { recursive: true });
  const tmp = `${out}.partial`;
  import_node_fs11.default.rmSync(tmp, { recursive: true, force: true });
  const specFile = import_node_path14.default.join(IMAGES_DIR, `${kubernetesVersion}-${key}.json`);
  import_node_fs11.default.writeFileSync(specFile, JSON.stringify({ out: tmp, images: specs }, null, 2));
  const tool = await labToolPath(log2);
  const r2 = (0, import_node_child_process6.spawnSync)(tool, ["build", specFile], { encoding: "utf8" });
  if (r2.status !== 0) throw new Error(`building the lab images failed: ${(r2.stderr || r2.stdout).trim()}`);
  import_node_fs11.default.renameSync(tmp, out);
  log2(`built ${specs.length} images for ${kubernetesVersion} in ${((Date.now() - started) / 1e3).toFixed(1)} s`);
  return out;
}
async function pushImages(layoutDir, registry, caFile, auth, log2) {
  const tool = await labToolPath(log2);
  const r2 = (0, import_node_child_process6.spawnSync)(tool, ["push", layoutDir, registry, caFile], { encoding: "utf8", env: { ...process.env, REGISTRY_USER: auth.username, REGISTRY_PASSWORD: auth.password } });
  if (r2.status !== 0) throw new Error(`pushing the lab images to ${registry} failed: ${(r2.stderr || r2.stdout).trim()}`);
  const pushed = r2.stdout.split("\n").filter((l) => l.startsWith("pushed")).length;
  const present = r2.stdout.split("\n").filter((l) => l.startsWith("present")).length;
  log2(`registry ${registry}: ${pushed} images pushed, ${present} already there`);
}
var import_node_child_process6, import_node_crypto27, import_node_fs11, import_node_path14, IMAGES_DIR, PATH_ENV, USRMERGE, bin2;
var init_images2 = __esm({
  "lab/upstream/images.ts"() {
    "use strict";
    import_node_child_process6 = require("node:child_process");
    import_node_crypto27 = require("node:crypto");
    import_node_fs11 = __toESM(require("node:fs"));
    import_node_path14 = __toESM(require("node:path"));
    init_capabilities();
    init_base_image();
    init_config();
    init_build();
    init_components();
    init_tools();
    IMAGES_DIR = import_node_path14.default.join(CACHE_DIR, "images");
    PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    USRMERGE = [
      { dest: "/bin", symlink: "usr/bin" },
      { dest: "/sbin", symlink: "usr/sbin" },
      { dest: "/lib", symlink: "usr/lib" },
      { dest: "/lib64", symlink: "usr/lib64" }
    ];
    bin2 = (c, name) => {
      const b = c.binaries[name];
      if (!b) throw new Error(`${c.id} ${c.version} has no ${name}`);
      return b.path;
    };
  }
});

// lab/upstream/registry.ts
function openssl(args) {
  const r2 = (0, import_node_child_process7.spawnSync)("openssl", args, { encoding: "utf8" });
  if (r2.status !== 0) throw new Error(`openssl ${args[0]}: ${r2.stderr.trim()}`);
}
function registryTls(dir, address2) {
  const ca = import_node_path15.default.join(dir, "registry-ca.crt");
  const caKey = import_node_path15.default.join(dir, "registry-ca.key");
  const cert = import_node_path15.default.join(dir, "registry.crt");
  const key = import_node_path15.default.join(dir, "registry.key");
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "3650", "-subj", "/CN=bootdeck-lab-registry-ca", "-keyout", caKey, "-out", ca]);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${address2}`, "-keyout", key, "-out", `${cert}.csr`]);
  const ext = import_node_path15.default.join(dir, "registry.ext");
  import_node_fs12.default.writeFileSync(ext, `subjectAltName=IP:${address2}
extendedKeyUsage=serverAuth
`);
  openssl(["x509", "-req", "-in", `${cert}.csr`, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "3650", "-extfile", ext, "-out", cert]);
  return { ca, cert, key };
}
async function startRegistry(labDir2, address2, log2) {
  const binary = (await ensureComponent(registryComponent(), log2)).binaries.registry?.path;
  if (!binary) throw new Error("the registry build has no registry binary");
  const tls2 = registryTls(labDir2, address2);
  const password = (0, import_node_child_process7.spawnSync)("openssl", ["rand", "-hex", "16"], { encoding: "utf8" }).stdout.trim();
  const htpasswd = import_node_path15.default.join(labDir2, "registry.htpasswd");
  const tool = await labToolPath(log2);
  const h = (0, import_node_child_process7.spawnSync)(tool, ["htpasswd", REGISTRY_USER], { input: password, encoding: "utf8" });
  if (h.status !== 0) throw new Error(`lab-images htpasswd: ${h.stderr.trim()}`);
  import_node_fs12.default.writeFileSync(htpasswd, h.stdout, { mode: 384 });
  import_node_fs12.default.mkdirSync(REGISTRY_STORAGE, { recursive: true });
  const config2 = import_node_path15.default.join(labDir2, "registry.yml");
  import_node_fs12.default.writeFileSync(
    config2,
    [
      "version: 0.1",
      "log: { level: warn, formatter: text }",
      `storage: { filesystem: { rootdirectory: ${REGISTRY_STORAGE} }, delete: { enabled: false } }`,
      `auth: { htpasswd: { realm: bootdeck-lab, path: ${htpasswd} } }`,
      `http: { addr: "${address2}:${REGISTRY_PORT}", tls: { certificate: ${tls2.cert}, key: ${tls2.key} } }`,
      ""
    ].join("\n")
  );
  const out = import_node_fs12.default.openSync(import_node_path15.default.join(labDir2, "registry.log"), "a");
  const child = (0, import_node_child_process7.spawn)(binary, ["serve", config2], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  import_node_fs12.default.closeSync(out);
  import_node_fs12.default.writeFileSync(import_node_path15.default.join(labDir2, "registry.pid"), String(child.pid));
  const url = `https://${address2}:${REGISTRY_PORT}/v2/`;
  const deadline = Date.now() + 3e4;
  while ((0, import_node_child_process7.spawnSync)("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", tls2.ca, "--max-time", "2", url], { encoding: "utf8" }).stdout !== "401") {
    if (Date.now() > deadline) throw new Error(`the lab registry did not answer on ${url} (see ${import_node_path15.default.join(labDir2, "registry.log")})`);
    await new Promise((r2) => setTimeout(r2, 200));
  }
  return { address: `${address2}:${REGISTRY_PORT}`, caFile: tls2.ca, username: REGISTRY_USER, password };
}
function stopRegistry(labDir2) {
  const f = import_node_path15.default.join(labDir2, "registry.pid");
  if (!import_node_fs12.default.existsSync(f)) return;
  const pid = Number(import_node_fs12.default.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && import_node_fs12.default.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("registry")) process.kill(pid, "SIGTERM");
  } catch {
  }
}
var import_node_child_process7, import_node_fs12, import_node_path15, REGISTRY_PORT, REGISTRY_STORAGE, REGISTRY_USER;
var init_registry = __esm({
  "lab/upstream/registry.ts"() {
    "use strict";
    import_node_child_process7 = require("node:child_process");
    import_node_fs12 = __toESM(require("node:fs"));
    import_node_path15 = __toESM(require("node:path"));
    init_config();
    init_build();
    init_components();
    init_tools();
    REGISTRY_PORT = 5e3;
    REGISTRY_STORAGE = import_node_path15.default.join(CACHE_DIR, "registry");
    REGISTRY_USER = "bootdeck-lab";
  }
});

// lab/state.ts
function readState(name) {
  try {
    return JSON.parse(import_node_fs13.default.readFileSync(statePath(name), "utf8"));
  } catch {
    return void 0;
  }
}
function writeState(state3) {
  const p2 = statePath(state3.name);
  import_node_fs13.default.writeFileSync(`${p2}.tmp`, JSON.stringify(state3, null, 2));
  import_node_fs13.default.renameSync(`${p2}.tmp`, p2);
}
function findHost(state3, host3) {
  const h = state3.hosts.find((x) => x.name === host3 || x.address === host3);
  if (!h) throw new Error(`lab "${state3.name}" has no host "${host3}" (hosts: ${state3.hosts.map((x) => x.name).join(", ")})`);
  return h;
}
var import_node_fs13;
var init_state = __esm({
  "lab/state.ts"() {
    "use strict";
    import_node_fs13 = __toESM(require("node:fs"));
    init_config();
  }
});

// lab/lab.ts
function requireRoot() {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    throw new Error("the lab must run as root (it creates network namespaces, a bridge and overlay mounts): try `sudo bin/bootdeck lab \u2026`");
  }
}
function ensureTools(log2) {
  const need2 = { debootstrap: "debootstrap", "ssh-keygen": "openssh-client", ip: "iproute2", unshare: "util-linux", nsenter: "util-linux", "mkfs.ext4": "e2fsprogs" };
  const missing = [...new Set(Object.entries(need2).filter(([cmd]) => !which(cmd)).map(([, pkg]) => pkg))];
  if (missing.length === 0) return;
  log2(`installing missing Debian packages: ${missing.join(" ")}`);
  run2("apt-get", ["install", "-y", "--no-install-recommends", ...missing]);
}
function chooseSubnet(name) {
  const fixed = FIXED_SUBNETS[name];
  if (fixed !== void 0) return fixed;
  const used = new Set(Object.values(FIXED_SUBNETS));
  if (import_node_fs14.default.existsSync(RUN_DIR)) {
    for (const other of import_node_fs14.default.readdirSync(RUN_DIR)) {
      const s2 = readState(other);
      if (s2) used.add(Number(s2.subnet.split(".")[2]));
    }
  }
  for (const m of run2("ip", ["-o", "link", "show"], { allowFail: true }).matchAll(/^\d+: bdv(\d+)h\d+/gm)) used.add(Number(m[1]));
  for (let n = 30; n < 255; n++) if (!used.has(n)) return n;
  throw new Error("no free lab subnet left in 10.237.30.0\u201310.237.254.0");
}
function firstMasterKubeconfigs(state3) {
  const first = state3.hosts.find((h) => h.role === "master") ?? state3.hosts[0];
  return first ? ["etc/kubernetes/kubelet.conf", "etc/kubernetes/kubeconfig"].map((p2) => import_node_path16.default.join(first.root, p2)) : [];
}
function hostNames(o2) {
  if (o2.hosts !== void 0) return Array.from({ length: o2.hosts }, (_, i) => ({ name: `host-${i + 1}`, role: "host" }));
  const m = o2.masters ?? 0;
  const w = o2.workers ?? 0;
  return [
    ...Array.from({ length: m }, (_, i) => ({ name: `master-${i + 1}`, role: "master" })),
    ...Array.from({ length: w }, (_, i) => ({ name: `worker-${i + 1}`, role: "worker" }))
  ];
}
async function labUp(o2) {
  requireRoot();
  const name = validateLabName(o2.name);
  const existing = readState(name);
  if (existing) {
    throw new Error(`lab "${name}" is already up (${existing.hosts.length} hosts); run \`bootdeck lab down --name ${name}\` first`);
  }
  const wanted = hostNames(o2);
  if (wanted.length < 1 || wanted.length > MAX_HOSTS) throw new Error(`a lab has 1\u2013${MAX_HOSTS} hosts, asked for ${wanted.length}`);
  ensureTools(o2.log);
  labDown(name, () => void 0);
  const image = await ensureBaseImage(o2.log);
  const subnet = chooseSubnet(name);
  const dir = labDir(name);
  import_node_fs14.default.mkdirSync(import_node_path16.default.join(dir, "hosts"), { recursive: true, mode: 448 });
  const adminKeyPath = import_node_path16.default.join(dir, "admin_ed25519");
  run2("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `bootdeck-lab-${name}-admin`, "-f", adminKeyPath]);
  const adminPublicKey = import_node_fs14.default.readFileSync(`${adminKeyPath}.pub`, "utf8").trim();
  const bridge = bridgeName(name);
  const gateway = `${SUBNET_PREFIX}.${subnet}.1`;
  const state3 = {
    name,
    subnet: `${SUBNET_PREFIX}.${subnet}.0/24`,
    bridge,
    gateway,
    image,
    adminKeyPath,
    adminPublicKey,
    users: { root: "root", sudo: USERS.sudo, sudoWithPassword: USERS.sudoWithPassword },
    password: LAB_PASSWORD,
    mirrorUrl: null,
    registry: null,
    createdAt: (/* @__PURE__ */ new Date()).toISOString(),
    hosts: []
  };
  writeState(state3);
  try {
    run2("ip", ["link", "add", bridge, "type", "bridge"]);
    run2("ip", ["addr", "add", `${gateway}/24`, "dev", bridge]);
    run2("ip", ["link", "set", bridge, "up"]);
    const etcHosts = [
      "127.0.0.1 localhost",
      ...wanted.map((h, i) => `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + i} ${h.name}`)
    ].join("\n");
    o2.log(`starting ${wanted.length} hosts on ${bridge} (${state3.subnet})\u2026`);
    for (const [i, h] of wanted.entries()) {
      const host3 = createHost(state3, subnet, i, h.name, h.role, etcHosts);
      state3.hosts.push(host3);
      writeState(state3);
    }
    await Promise.all(state3.hosts.map((h) => waitForSsh(h.address, h.port, 2e4)));
    state3.mirrorUrl = startMirror(dir, gateway);
    writeState(state3);
    if (o2.images !== false) {
      const reg = await startRegistry(dir, gateway, o2.log);
      const passwordFile = import_node_path16.default.join(dir, "registry-password");
      import_node_fs14.default.writeFileSync(passwordFile, `${reg.password}
`, { mode: 384 });
      state3.registry = { address: reg.address, caFile: reg.caFile, username: reg.username, passwordFile };
      writeState(state3);
      for (const version of o2.kubernetesVersions ?? [defaultKubernetesVersion]) {
        const layout = await ensureClusterImages(version, o2.log);
        await pushImages(layout, reg.address, reg.caFile, { username: reg.username, password: reg.password }, o2.log);
      }
    }
    if (o2.virtualNodes) {
      startVirtualNodes(dir, firstMasterKubeconfigs(state3), o2.virtualNodes, { wait: true });
      o2.log(`${o2.virtualNodes} virtual nodes will register once a cluster's API answers on ${state3.hosts.find((h) => h.role === "master")?.name ?? state3.hosts[0]?.name} (log: ${import_node_path16.default.join(dir, "virtual-nodes.log")})`);
    }
    o2.log(`lab "${name}" is up: ${state3.hosts.length} hosts`);
    return state3;
  } catch (err) {
    o2.log(`lab up failed, cleaning up: ${err instanceof Error ? err.message : String(err)}`);
    labDown(name, () => void 0);
    throw err;
  }
}
function createHost(state3, subnet, index, name, role, etcHosts) {
  const dir = import_node_path16.default.join(labDir(state3.name), "hosts", name);
  const upper = import_node_path16.default.join(dir, "upper");
  const work = import_node_path16.default.join(dir, "work");
  const root = import_node_path16.default.join(dir, "root");
  for (const d of [upper, work, root]) import_node_fs14.default.mkdirSync(d, { recursive: true });
  run2("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${state3.image},upperdir=${upper},workdir=${work}`, root]);
  prepareHostRuntime(root);
  const disks = import_node_path16.default.join(LAB_DISK_DIR, state3.name);
  import_node_fs14.default.mkdirSync(disks, { recursive: true });
  const image = import_node_path16.default.join(disks, `${name}.img`);
  import_node_fs14.default.closeSync(import_node_fs14.default.openSync(image, "w"));
  import_node_fs14.default.truncateSync(image, HOST_DISK_BYTES);
  run2("mkfs.ext4", ["-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1", image]);
  const disk = import_node_path16.default.join(labDir(state3.name), "hosts", name, "disk");
  import_node_fs14.default.mkdirSync(disk, { recursive: true });
  run2("mount", ["-o", "loop", image, disk]);
  for (const dir2 of ["var/lib/containerd", "var/lib/kubelet"]) {
    import_node_fs14.default.mkdirSync(import_node_path16.default.join(disk, dir2), { recursive: true });
    import_node_fs14.default.mkdirSync(import_node_path16.default.join(root, dir2), { recursive: true });
    run2("mount", ["--bind", import_node_path16.default.join(disk, dir2), import_node_path16.default.join(root, dir2)]);
  }
  import_node_fs14.default.writeFileSync(import_node_path16.default.join(root, "etc/machine-id"), `${(0, import_node_crypto28.randomBytes)(16).toString("hex")}
`);
  import_node_fs14.default.writeFileSync(import_node_path16.default.join(root, "etc/hostname"), `${name}
`);
  import_node_fs14.default.writeFileSync(import_node_path16.default.join(root, "etc/hosts"), `${etcHosts}
`);
  const fp = generateHostKey(root, name);
  const passwd = import_node_fs14.default.readFileSync(import_node_path16.default.join(root, "etc/passwd"), "utf8");
  for (const user2 of ["root", USERS.sudo, USERS.sudoWithPassword]) {
    const entry = passwd.split("\n").find((l) => l.startsWith(`${user2}:`))?.split(":");
    if (!entry) throw new Error(`base image lacks user ${user2}`);
    const [uid, gid, home] = [Number(entry[2]), Number(entry[3]), entry[5] ?? "/"];
    const ak = import_node_path16.default.join(root, home, ".ssh", "authorized_keys");
    import_node_fs14.default.writeFileSync(ak, `${state3.adminPublicKey}
`, { mode: 384 });
    import_node_fs14.default.chownSync(ak, uid, gid);
  }
  const ns = netnsName(state3.name, name);
  const veth = vethName(subnet, index + 1);
  const address2 = `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + index}`;
  run2("ip", ["netns", "add", ns]);
  run2("ip", ["link", "add", veth, "type", "veth", "peer", "name", `${veth}p`]);
  run2("ip", ["link", "set", `${veth}p`, "netns", ns]);
  run2("ip", ["-n", ns, "link", "set", `${veth}p`, "name", IFACE]);
  run2("ip", ["-n", ns, "addr", "add", `${address2}/24`, "dev", IFACE]);
  run2("ip", ["-n", ns, "link", "set", IFACE, "up"]);
  run2("ip", ["-n", ns, "link", "set", "lo", "up"]);
  run2("ip", ["-n", ns, "link", "add", "nowhere0", "type", "bridge"]);
  run2("ip", ["-n", ns, "link", "set", "nowhere0", "up"]);
  run2("ip", ["-n", ns, "route", "add", "default", "dev", "nowhere0", "metric", "1000"]);
  run2("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]);
  run2("ip", ["link", "set", veth, "master", state3.bridge, "up"]);
  const initPid = startHostInit(state3.name, { name, netns: ns, dir, root });
  return { name, role, address: address2, port: 22, netns: ns, iface: IFACE, veth, dir, root, initPid, hostKeyFingerprint: fp };
}
function startHostInit(lab2, h) {
  const logFd = import_node_fs14.default.openSync(import_node_path16.default.join(h.dir, "init.log"), "a");
  const cgroupProcs = createHostCgroups(lab2, h.name);
  const child = (0, import_node_child_process8.spawn)(
    "sh",
    [
      "-c",
      'for p in $BOOTDECK_CGROUP_PROCS; do echo $$ > "$p"; done; exec "$@"',
      "bootdeck-lab-host",
      ...["ip", "netns", "exec", h.netns, "unshare", "--mount", "--uts", "--ipc", "--pid", "--cgroup", "--fork", "--propagation", "private"],
      // pivot_root, not chroot: the host's root must be the root of its mount namespace, or a process that
      // joins a container's mount namespace (runc exec, kubectl exec) lands on this machine's root instead.
      ...["sh", "-c", 'cd "$1" && mkdir -p .bootdeck-oldroot && pivot_root . .bootdeck-oldroot && exec /sbin/bootdeck-lab-init "$2"', "bootdeck-lab-pivot", h.root, h.name]
    ],
    { detached: true, stdio: ["ignore", logFd, logFd], env: { ...process.env, BOOTDECK_CGROUP_PROCS: cgroupProcs.join(" ") } }
  );
  child.unref();
  import_node_fs14.default.closeSync(logFd);
  return findChild(child.pid ?? 0);
}
async function labReboot(name, hosts, log2) {
  requireRoot();
  const state3 = mustState(name);
  const targets = hosts.map((h) => findHost(state3, h));
  for (const h of targets) tryRun("kill", ["-KILL", String(h.initPid)]);
  const deadline = Date.now() + 3e4;
  for (const h of targets)
    while (run2("ip", ["netns", "pids", h.netns], { allowFail: true }).trim()) {
      if (Date.now() > deadline) throw new Error(`processes of ${h.name} did not exit within 30 s`);
      await new Promise((r2) => setTimeout(r2, 100));
    }
  log2(`${targets.map((h) => h.name).join(", ")}: powered off`);
  for (const h of targets) removeHostCgroups(state3.name, h.name);
  for (const h of targets) h.initPid = startHostInit(state3.name, h);
  writeState(state3);
  await Promise.all(targets.map((h) => waitForSsh(h.address, h.port, 3e4)));
  log2(`${targets.map((h) => h.name).join(", ")}: booted (sshd answers)`);
}
function generateHostKey(root, host3) {
  const key = import_node_path16.default.join(root, "etc/ssh/ssh_host_ed25519_key");
  import_node_fs14.default.rmSync(key, { force: true });
  import_node_fs14.default.rmSync(`${key}.pub`, { force: true });
  run2("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `root@${host3}`, "-f", key]);
  return (run2("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`]).split(" ")[1] ?? "").trim();
}
function findChild(parent) {
  const deadline = Date.now() + 5e3;
  while (Date.now() < deadline) {
    try {
      const kids = import_node_fs14.default.readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim();
      const first = Number(kids.split(" ")[0]);
      if (first > 0) return first;
    } catch {
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  throw new Error(`host init did not start (parent pid ${parent})`);
}
function waitForSsh(address2, port2, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s2 = import_node_net3.default.connect({ host: address2, port: port2, timeout: 1e3 });
      s2.once("data", () => {
        s2.destroy();
        resolve();
      });
      const retry = () => {
        s2.destroy();
        if (Date.now() > deadline) reject(new Error(`sshd on ${address2}:${port2} did not answer within ${timeoutMs} ms`));
        else setTimeout(attempt, 100);
      };
      s2.once("error", retry);
      s2.once("timeout", retry);
    };
    attempt();
  });
}
function labDown(name, log2) {
  requireRoot();
  validateLabName(name);
  const dir = labDir(name);
  const prefix = `bdl-${name}-`;
  const namespaces = run2("ip", ["netns", "list"], { allowFail: true }).split("\n").map((l) => l.split(" ")[0] ?? "").filter((n) => n.startsWith(prefix));
  for (const ns of namespaces) {
    for (const pid of run2("ip", ["netns", "pids", ns], { allowFail: true }).split("\n").filter(Boolean)) {
      tryRun("kill", ["-KILL", pid]);
    }
  }
  const mounts = import_node_fs14.default.readFileSync("/proc/mounts", "utf8").split("\n").map((l) => (l.split(" ")[1] ?? "").replace(/\\040/g, " ")).filter((m) => m === dir || m.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
  for (const m of mounts) if (!tryRun("umount", [m])) tryRun("umount", ["-l", m]);
  for (const ns of namespaces) tryRun("ip", ["netns", "del", ns]);
  removeLabCgroups(name);
  import_node_fs14.default.rmSync(import_node_path16.default.join(LAB_DISK_DIR, name), { recursive: true, force: true });
  if (tryRun("ip", ["link", "show", bridgeName(name)])) tryRun("ip", ["link", "del", bridgeName(name)]);
  stopMirror(dir);
  stopRegistry(dir);
  stopVirtualNodes(dir);
  import_node_fs14.default.rmSync(dir, { recursive: true, force: true });
  if (namespaces.length || mounts.length) log2(`lab "${name}" is down (${namespaces.length} hosts removed)`);
  else log2(`lab "${name}" was not up; nothing left to clean`);
}
function mustState(name) {
  const s2 = readState(validateLabName(name));
  if (!s2) throw new Error(`lab "${name}" is not up; start it with \`bootdeck lab up 3 --name ${name}\``);
  return s2;
}
function inHost(h, argv) {
  return run2("nsenter", ["-t", String(h.initPid), "-m", "-u", "-i", "-n", "-p", "-r", "-w", ...argv]);
}
function labCut(name, host3) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  run2("ip", ["-n", h.netns, "link", "set", h.iface, "down"]);
}
function labHeal(name, host3) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  run2("ip", ["-n", h.netns, "link", "set", h.iface, "up"]);
  clearSlow(h);
}
function labSwap(name, host3, on) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  const inMounts = (argv) => ["-t", String(h.initPid), "-m", "-p", "-r", "-w", ...argv];
  tryRun("nsenter", inMounts(["umount", "/proc/swaps"]));
  if (!on) return;
  import_node_fs14.default.writeFileSync(import_node_path16.default.join(h.root, "var", "lib", "bootdeck-lab-swaps"), "Filename				Type		Size		Used		Priority\n/swapfile                               file		2097148		0		-2\n");
  run2("nsenter", inMounts(["mount", "--bind", "/var/lib/bootdeck-lab-swaps", "/proc/swaps"]));
}
function labIpForward(name, host3, on) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  run2("ip", ["netns", "exec", h.netns, "sysctl", "-q", "-w", `net.ipv4.ip_forward=${on ? 1 : 0}`]);
}
function clearSlow(h) {
  tryRun("ip", ["netns", "exec", h.netns, "tc", "qdisc", "del", "dev", h.iface, "root"]);
  for (const hook of ["PREROUTING", "POSTROUTING"]) tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-D", hook, "-j", "BOOTDECK_SLOW"]);
  tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-F", "BOOTDECK_SLOW"]);
  const pidFile = slowFile(h, "pid");
  if (import_node_fs14.default.existsSync(pidFile)) {
    const pid = Number(import_node_fs14.default.readFileSync(pidFile, "utf8"));
    try {
      if (pid > 0 && import_node_fs14.default.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("nfqueue-delay.py")) {
        process.kill(pid, "SIGTERM");
        for (let i = 0; i < 100 && import_node_fs14.default.existsSync(`/proc/${pid}`); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      }
    } catch {
    }
    import_node_fs14.default.rmSync(pidFile, { force: true });
  }
}
function parseDelay(s2) {
  const m = /^(\d+)(ms|s)?$/.exec(s2);
  if (!m) throw new Error(`delay must look like 200ms or 1s, got "${s2}"`);
  return Number(m[1]) * (m[2] === "s" ? 1e3 : 1);
}
function parseLoss(s2) {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(s2);
  if (!m || Number(m[1]) > 100) throw new Error(`loss must be a percentage like 5%, got "${s2}"`);
  return Number(m[1]);
}
function labSlow(name, host3, delay, loss, log2) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  const ms = parseDelay(delay);
  const pct = parseLoss(loss);
  clearSlow(h);
  const netem = ["netns", "exec", h.netns, "tc", "qdisc", "add", "dev", h.iface, "root", "netem", "delay", `${ms}ms`, "loss", `${pct}%`];
  if (tryRun("ip", netem)) {
    log2(`${h.name}: ${ms} ms delay, ${pct}% loss (tc netem on ${h.iface})`);
    return;
  }
  if (ms === 0 && pct === 0) return;
  const ipt = (args) => run2("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", ...args]);
  if (!tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-N", "BOOTDECK_SLOW"])) ipt(["-t", "mangle", "-F", "BOOTDECK_SLOW"]);
  const logFd = import_node_fs14.default.openSync(slowFile(h, "log"), "a");
  const child = (0, import_node_child_process8.spawn)("ip", ["netns", "exec", h.netns, "python3", import_node_path16.default.join(__bootdeckSource("lab"), "nfqueue-delay.py"), "--queue", "0", "--delay-ms", String(ms), "--loss", String(pct)], { detached: true, stdio: ["ignore", logFd, logFd] });
  child.unref();
  import_node_fs14.default.closeSync(logFd);
  import_node_fs14.default.writeFileSync(slowFile(h, "pid"), String(child.pid));
  const deadline = Date.now() + 1e4;
  while (!import_node_fs14.default.readFileSync(slowFile(h, "log"), "utf8").includes(`nfqueue-delay: queue 0, ${ms} ms`)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the lab's delayer did not start on ${h.name}: ${import_node_fs14.default.readFileSync(slowFile(h, "log"), "utf8").slice(-500)}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  ipt(["-t", "mangle", "-A", "BOOTDECK_SLOW", "-o", h.iface, "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass"]);
  ipt(["-t", "mangle", "-A", "POSTROUTING", "-j", "BOOTDECK_SLOW"]);
  log2(`${h.name}: ${ms} ms delay, ${pct}% loss on ${h.iface}'s outgoing packets (this kernel has no sch_netem: userspace delayer lab/nfqueue-delay.py through NFQUEUE, pid ${child.pid}). \`bootdeck lab heal ${h.name}\` removes it.`);
}
function labStopSshd(name, host3) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  inHost(h, ["sh", "-c", 'kill "$(cat /run/sshd.pid)"; i=0; while [ -e /run/sshd.pid ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done']);
}
async function labStartSshd(name, host3) {
  requireRoot();
  const h = findHost(mustState(name), host3);
  inHost(h, ["/usr/sbin/sshd", "-E", "/var/log/sshd.log"]);
  await waitForSsh(h.address, h.port, 1e4);
}
async function labRekey(name, host3) {
  requireRoot();
  const state3 = mustState(name);
  const h = findHost(state3, host3);
  const fp = generateHostKey(h.root, h.name);
  inHost(h, ["sh", "-c", 'kill -HUP "$(cat /run/sshd.pid)"']);
  h.hostKeyFingerprint = fp;
  writeState(state3);
  await new Promise((r2) => setTimeout(r2, 200));
  await waitForSsh(h.address, h.port, 1e4);
  return fp;
}
async function labStatus(name) {
  const state3 = mustState(name);
  const hosts = await Promise.all(
    state3.hosts.map(async (h) => {
      const running = import_node_fs14.default.existsSync(`/proc/${h.initPid}`);
      const linkOut = run2("ip", ["-n", h.netns, "-o", "link", "show", h.iface], { allowFail: true });
      const link = /state UP|,UP[,>]/.test(linkOut) ? "up" : "down";
      const sshd = running && link === "up" ? await waitForSsh(h.address, h.port, 3e3).then(() => true, () => false) : false;
      return { ...h, running, link, sshd };
    })
  );
  return { state: state3, hosts };
}
function labVirtualNodes(name, kubeconfig2, count2) {
  requireRoot();
  mustState(name);
  if (!import_node_fs14.default.existsSync(kubeconfig2)) throw new Error(`no kubeconfig at ${kubeconfig2}: copy the cluster's admin kubeconfig (auth/kubeconfig) there first`);
  const dir = labDir(name);
  return { pid: startVirtualNodes(dir, [import_node_path16.default.resolve(kubeconfig2)], count2), log: import_node_path16.default.join(dir, "virtual-nodes.log") };
}
var import_node_child_process8, import_node_crypto28, import_node_fs14, import_node_net3, import_node_path16, IFACE, HOST_DISK_BYTES, slowFile;
var init_lab = __esm({
  "lab/lab.ts"() {
    "use strict";
    import_node_child_process8 = require("node:child_process");
    import_node_crypto28 = require("node:crypto");
    import_node_fs14 = __toESM(require("node:fs"));
    import_node_net3 = __toESM(require("node:net"));
    import_node_path16 = __toESM(require("node:path"));
    init_base_image();
    init_cgroups();
    init_versions();
    init_images2();
    init_registry();
    init_host_runtime();
    init_config();
    init_sh();
    init_state();
    IFACE = "eth0";
    HOST_DISK_BYTES = 40 * 1024 ** 3;
    slowFile = (h, ext) => import_node_path16.default.join(import_node_path16.default.dirname(h.root), `slow.${ext}`);
  }
});

// lab/memory.ts
function parseSmapsRollup(text) {
  return { rss: kbField(text, "Rss"), pss: kbField(text, "Pss") };
}
function labHostMemory(hosts) {
  const key = (h) => `${h.netns.slice("bdl-".length, -(h.name.length + 1))}/${h.name}`;
  const byKey = new Map(hosts.map((h) => [key(h), { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 }]));
  for (const pid of import_node_fs15.default.readdirSync("/proc").filter((p2) => /^\d+$/.test(p2))) {
    const m = byKey.get(hostOf(pid) ?? "");
    if (!m) continue;
    try {
      const { rss, pss } = parseSmapsRollup(import_node_fs15.default.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      m.processes++;
      m.rssBytes += rss;
      m.pssBytes += pss;
    } catch {
    }
  }
  return hosts.map((h) => byKey.get(key(h)) ?? { name: h.name, role: h.role, processes: 0, rssBytes: 0, pssBytes: 0 });
}
var import_node_fs15, hostOf, kbField;
var init_memory = __esm({
  "lab/memory.ts"() {
    "use strict";
    import_node_fs15 = __toESM(require("node:fs"));
    hostOf = (pid) => {
      try {
        return /\/bootdeck-lab\/([a-z0-9]+\/[a-z0-9-]+)(?:\/|$)/m.exec(import_node_fs15.default.readFileSync(`/proc/${pid}/cgroup`, "utf8"))?.[1];
      } catch {
        return void 0;
      }
    };
    kbField = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
  }
});

// lab/upstream/index.ts
async function ensureBinaries(versions, log2) {
  const wanted = /* @__PURE__ */ new Map();
  for (const v of versions) for (const c of componentsForCluster(v)) wanted.set(componentKey(c), c);
  const registry = registryComponent();
  wanted.set(componentKey(registry), registry);
  const started = Date.now();
  const built = /* @__PURE__ */ new Map();
  let i = 0;
  for (const [key, c] of wanted) {
    i++;
    const t = Date.now();
    const b = await ensureComponent(c, (l) => log2(`[${i}/${wanted.size}] ${l}`));
    built.set(key, b);
    log2(`[${i}/${wanted.size}] ${key}: ${b.cached ? "cached" : `built in ${((Date.now() - t) / 1e3).toFixed(0)} s`} (${Object.keys(b.binaries).sort().join(", ")})`);
  }
  const fresh = [...built.values()].filter((b) => !b.cached).length;
  log2(`${built.size} components ready (${fresh} built) in ${((Date.now() - started) / 1e3).toFixed(1)} s; cache ${(cacheSize() / 2 ** 30).toFixed(2)} GiB`);
  return built;
}
var realVersions;
var init_upstream = __esm({
  "lab/upstream/index.ts"() {
    "use strict";
    init_versions();
    init_build();
    init_components();
    realVersions = () => versionProfiles.filter((p2) => !p2.hyperkube).map((p2) => p2.defaultVersion);
  }
});

// cli/commands/lab.ts
var lab_exports = {};
__export(lab_exports, {
  lab: () => lab
});
function takeOption(args, flag5) {
  const i = args.indexOf(flag5);
  if (i < 0) return void 0;
  const v = args[i + 1];
  if (v === void 0 || v.startsWith("--")) throw new Error(`${flag5} needs a value`);
  args.splice(i, 2);
  return v;
}
function count(v, what) {
  if (v === void 0) return void 0;
  if (!/^\d+$/.test(v)) throw new Error(`${what} must be a whole number, got "${v}"`);
  return Number(v);
}
async function printStatus(name) {
  const { state: state3, hosts } = await labStatus(name);
  console.log(`lab "${state3.name}": ${state3.subnet} on ${state3.bridge}, ${hosts.length} hosts`);
  const memory = new Map(labHostMemory(state3.hosts).map((m) => [m.name, m]));
  console.log(`${"HOST".padEnd(12)}${"ADDRESS".padEnd(16)}${"INIT".padEnd(8)}${"LINK".padEnd(6)}${"SSHD".padEnd(6)}${"MEM (PSS)".padEnd(11)}HOST KEY`);
  for (const h of hosts) {
    const mem = `${Math.round((memory.get(h.name)?.pssBytes ?? 0) / 1048576)} MiB`;
    console.log(
      `${h.name.padEnd(12)}${h.address.padEnd(16)}${(h.running ? "up" : "dead").padEnd(8)}${h.link.padEnd(6)}${(h.sshd ? "yes" : "no").padEnd(6)}${mem.padEnd(11)}${h.hostKeyFingerprint}`
    );
  }
  console.log(`
users: root, ${state3.users.sudo} (NOPASSWD sudo), ${state3.users.sudoWithPassword} (sudo asks a password)`);
  const first = hosts[0];
  if (first) {
    console.log(`ssh: ssh -i ${state3.adminKeyPath} -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=accept-new root@${first.address}`);
  }
  return hosts.every((h) => h.running && h.sshd) ? 0 : 1;
}
var help2, log, lab;
var init_lab2 = __esm({
  "cli/commands/lab.ts"() {
    "use strict";
    init_versions();
    init_lab();
    init_memory();
    init_state();
    init_upstream();
    help2 = `Usage: bootdeck lab <action> [--name NAME]   (default lab: dev; runs as root)

  up N                         start N hosts host-1..host-N
  up --masters M --workers W   start master-1..M and worker-1..W
     [--kubernetes V1,V2]      the Kubernetes versions whose images its registry serves (default: the default
                               version; components are built first when missing, see binaries)
     [--virtual-nodes V]       plus V KWOK-style nodes that register once a cluster is bootstrapped on the
                               hosts (credentials from the first master's kubelet kubeconfig)
  down                         remove the lab (safe to re-run, also after a crash)
  status                       hosts, addresses, state, and how to ssh to each
  cut HOST | heal HOST         take the host's link down / bring it back (heal also clears slow)
  slow HOST 200ms 5%           add delay and loss to its outgoing packets (tc netem; a userspace delayer where the kernel lacks netem)
  stop-sshd HOST | start-sshd HOST
  rekey HOST                   new host key (as after a reinstall), sshd restarted
  reboot HOST\u2026 | --masters | --all
                               power-cycle hosts (together): every process killed, then each boots from its
                               disk with a fresh /run: init, sshd and its enabled units
  swap HOST on|off             swap as the host sees it (/proc/swaps), for preflight's swap check
  binaries [--version V | --all]
                               build the upstream components a cluster of Kubernetes V runs (kube-apiserver,
                               kubelet, etcd, containerd, runc, CNI plugins, flannel, CoreDNS, \u2026) from Go
                               modules into /var/cache/bootdeck-lab/upstream; cached ones are used at once
  ip-forward HOST on|off       IPv4 forwarding in the host's network namespace (a preflight warning when off)
  virtual-nodes N --kubeconfig FILE
                               N KWOK-style nodes (no host behind them) in a bootstrapped lab cluster, for scale
                               tests; 0 stops them (so does down)

Labs: dev \u2192 10.237.10.0/24, test \u2192 10.237.20.0/24, others \u2192 10.237.30.0/24 and up.
State: /run/bootdeck-lab/NAME/state.json`;
    log = (line2) => console.log(line2);
    lab = {
      async run(argv) {
        const args = [...argv];
        if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
          console.log(help2);
          return args.length === 0 ? 2 : 0;
        }
        const name = takeOption(args, "--name") ?? "dev";
        const [action, ...rest] = args;
        const host3 = () => {
          const h = rest[0];
          if (!h) throw new Error(`lab ${action} needs a HOST (see \`bootdeck lab status --name ${name}\`)`);
          return h;
        };
        switch (action) {
          case "up": {
            const masters = count(takeOption(rest, "--masters"), "--masters");
            const workers = count(takeOption(rest, "--workers"), "--workers");
            const virtualNodes = count(takeOption(rest, "--virtual-nodes"), "--virtual-nodes");
            const kubernetesVersions = takeOption(rest, "--kubernetes")?.split(",").filter(Boolean);
            const hosts = count(rest[0], "N");
            if (hosts === void 0 && masters === void 0 && workers === void 0) {
              throw new Error("lab up needs N or --masters M --workers W");
            }
            const state3 = await labUp({ name, hosts, masters, workers, virtualNodes, kubernetesVersions, log });
            console.log(`state: /run/bootdeck-lab/${state3.name}/state.json`);
            return printStatus(name);
          }
          case "binaries": {
            const version = takeOption(rest, "--version");
            const versions = rest.includes("--all") ? realVersions() : [version ?? defaultKubernetesVersion];
            await ensureBinaries(versions, log);
            return 0;
          }
          case "down":
            labDown(name, log);
            return 0;
          case "status":
            return printStatus(name);
          case "cut":
            labCut(name, host3());
            console.log(`${host3()}: link down`);
            return 0;
          case "heal":
            labHeal(name, host3());
            console.log(`${host3()}: link up, no delay or loss`);
            return 0;
          case "slow": {
            const [, delay, loss] = rest;
            if (!delay) throw new Error("usage: bootdeck lab slow HOST 200ms 5%");
            labSlow(name, host3(), delay, loss ?? "0%", log);
            return 0;
          }
          case "virtual-nodes": {
            const kubeconfig2 = takeOption(rest, "--kubeconfig");
            const n = count(rest[0], "N");
            if (n === void 0 || !kubeconfig2) throw new Error("usage: bootdeck lab virtual-nodes N --kubeconfig FILE [--name LAB]");
            const r2 = labVirtualNodes(name, kubeconfig2, n);
            console.log(n ? `${n} virtual nodes registering in the background (pid ${r2.pid}); log: ${r2.log}; \`lab virtual-nodes 0\` or \`lab down\` stops them` : "virtual nodes stopped");
            return 0;
          }
          case "swap": {
            const on = rest[1];
            if (on !== "on" && on !== "off") throw new Error("usage: bootdeck lab swap HOST on|off");
            labSwap(name, host3(), on === "on");
            console.log(`${host3()}: swap ${on} (as /proc/swaps shows it inside the host)`);
            return 0;
          }
          case "ip-forward": {
            const on = rest[1];
            if (on !== "on" && on !== "off") throw new Error("usage: bootdeck lab ip-forward HOST on|off");
            labIpForward(name, host3(), on === "on");
            console.log(`${host3()}: IPv4 forwarding ${on}`);
            return 0;
          }
          case "stop-sshd":
            labStopSshd(name, host3());
            console.log(`${host3()}: sshd stopped`);
            return 0;
          case "start-sshd":
            await labStartSshd(name, host3());
            console.log(`${host3()}: sshd started`);
            return 0;
          case "reboot": {
            const state3 = readState(name);
            if (!state3) throw new Error(`lab "${name}" is not up`);
            const targets = rest.includes("--all") ? state3.hosts.map((h) => h.name) : rest.includes("--masters") ? state3.hosts.filter((h) => h.role === "master").map((h) => h.name) : rest;
            if (!targets.length) throw new Error("usage: bootdeck lab reboot HOST\u2026 | --masters | --all");
            await labReboot(name, targets, log);
            return 0;
          }
          case "rekey": {
            const fp = await labRekey(name, host3());
            console.log(`${host3()}: new host key ${fp}`);
            return 0;
          }
          default:
            console.error(`bootdeck lab: unknown action "${action}"

${help2}`);
            return 2;
        }
      }
    };
  }
});

// cli/commands/render.ts
var render_exports = {};
__export(render_exports, {
  render: () => render,
  writeAssetDir: () => writeAssetDir
});
async function checkTarget(dir) {
  try {
    const st = await (0, import_promises7.lstat)(dir);
    if (!st.isDirectory()) return `${dir} exists and is not a directory`;
    const entries = await (0, import_promises7.readdir)(dir);
    if (entries.length > 0) return `${dir} is not empty (${entries.length} entr${entries.length === 1 ? "y" : "ies"}); choose a new or empty directory`;
    return void 0;
  } catch (err) {
    if (err.code === "ENOENT") return void 0;
    throw err;
  }
}
async function writeAssetDir(dir, assets) {
  const parent = import_node_path17.default.dirname(import_node_path17.default.resolve(dir));
  await (0, import_promises7.mkdir)(parent, { recursive: true, mode: DIR_MODE });
  const tmp = await (0, import_promises7.mkdtemp)(import_node_path17.default.join(parent, `.${import_node_path17.default.basename(dir)}.render-`));
  try {
    for (const a of assets) {
      const target = import_node_path17.default.join(tmp, a.path);
      if (!target.startsWith(tmp + import_node_path17.default.sep)) throw new Error(`refusing to write outside the asset directory: ${a.path}`);
      await (0, import_promises7.mkdir)(import_node_path17.default.dirname(target), { recursive: true, mode: DIR_MODE });
      await (0, import_promises7.writeFile)(target, a.content, { mode: a.mode, flag: "wx" });
    }
    await (0, import_promises7.rename)(tmp, dir);
  } catch (err) {
    await (0, import_promises7.rm)(tmp, { recursive: true, force: true });
    throw err;
  }
}
var import_promises7, import_node_path17, import_node_util2, usage, render;
var init_render2 = __esm({
  "cli/commands/render.ts"() {
    "use strict";
    import_promises7 = require("node:fs/promises");
    import_node_path17 = __toESM(require("node:path"));
    import_node_util2 = require("node:util");
    init_yaml();
    init_render();
    init_types();
    init_problems();
    usage = `Usage: bootdeck render --config cluster.yaml --asset-dir DIR [options]

Renders every asset the cluster needs (tls/, auth/, bootstrap-manifests/, etcd/, manifests/, kubelet/).
DIR must be empty or absent; files are written 0600, directories 0700.

Options:
  --key-type rsa|ecdsa   key algorithm (default rsa: RSA-2048; ecdsa: P-256)
  --ca-cert FILE         import this CA certificate instead of generating one (needs --ca-key)
  --ca-key FILE          private key of the imported CA
  --ca-days N            validity of generated CAs in days (default 3650)
  --leaf-days N          validity of other certificates in days (default 365)

Exits 0 when written; 1 when the definition, the options or DIR have problems; 2 on usage errors.`;
    render = {
      async run(argv) {
        let values;
        try {
          ({ values } = (0, import_node_util2.parseArgs)({
            args: argv,
            options: {
              config: { type: "string" },
              "asset-dir": { type: "string" },
              "key-type": { type: "string" },
              "ca-cert": { type: "string" },
              "ca-key": { type: "string" },
              "ca-days": { type: "string" },
              "leaf-days": { type: "string" },
              help: { type: "boolean" }
            },
            strict: true
          }));
        } catch (err) {
          console.error(`bootdeck render: ${err.message}

${usage}`);
          return 2;
        }
        if (values.help) {
          console.log(usage);
          return 0;
        }
        const config2 = values.config;
        const dir = values["asset-dir"];
        const keyType = values["key-type"] ?? "rsa";
        const fail = (msg) => (console.error(`bootdeck render: ${msg}`), 2);
        if (!config2 || !dir) return fail(`--config and --asset-dir are required

${usage}`);
        if (keyType !== "rsa" && keyType !== "ecdsa") return fail(`--key-type must be rsa or ecdsa, not "${keyType}"`);
        if (Boolean(values["ca-cert"]) !== Boolean(values["ca-key"])) return fail("--ca-cert and --ca-key go together");
        const days = (name) => {
          const v = values[name];
          if (v === void 0) return void 0;
          return /^\d+$/.test(v) ? Number(v) : "bad";
        };
        const caDays = days("ca-days");
        const leafDays = days("leaf-days");
        if (caDays === "bad" || leafDays === "bad") return fail("--ca-days and --leaf-days take a whole number of days");
        const problem = await checkTarget(dir);
        if (problem) {
          console.error(`bootdeck render: ${problem}`);
          return 1;
        }
        const read = async (f) => {
          try {
            return await (0, import_promises7.readFile)(f, "utf8");
          } catch (err) {
            throw new Error(`cannot read ${f}: ${err.code ?? String(err)}`);
          }
        };
        let text;
        let importedCa;
        try {
          text = await read(config2);
          if (values["ca-cert"] && values["ca-key"])
            importedCa = { certPem: await read(values["ca-cert"]), keyPem: await read(values["ca-key"]) };
        } catch (err) {
          return fail(err.message);
        }
        const parsed = parseClusterYaml(text);
        printWarnings(parsed.warnings);
        if (!parsed.ok) {
          printErrors(config2, parsed.errors);
          return 1;
        }
        let assets;
        try {
          const onProgress = process.stderr.isTTY ? (done, total, label2) => process.stderr.write(`\r\x1B[Krendering ${done}/${total}: ${label2}${done === total ? "\r\x1B[K" : ""}`) : void 0;
          assets = await renderAssets(parsed.definition, { keyType, importedCa, caValidityDays: caDays, leafValidityDays: leafDays, onProgress });
        } catch (err) {
          if (err instanceof RenderValidationError) {
            printErrors(config2, err.problems);
            return 1;
          }
          if (err instanceof RenderOptionsError) {
            console.error(`bootdeck render: ${err.message}`);
            return 1;
          }
          throw err;
        }
        await writeAssetDir(dir, assets);
        const width = Math.max(...assets.map((a) => a.path.length));
        for (const a of assets) console.log(`${a.path.padEnd(width)}  ${a.purpose}`);
        console.log(`${dir}: ${assets.length} files for cluster ${parsed.definition.metadata.name} (${parsed.definition.spec.kubernetes.version}, ${keyType === "rsa" ? "RSA-2048" : "ECDSA P-256"} keys)`);
        return 0;
      }
    };
  }
});

// cli/commands/user.ts
var user_exports = {};
__export(user_exports, {
  user: () => user
});
function flag(argv, name) {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}
function positional(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) {
      if (!argv[i].includes("=")) i++;
    } else out.push(argv[i]);
  }
  return out;
}
function passwordFromEnv() {
  const given = process.env.BOOTDECK_USER_PASSWORD;
  return given ? { password: given, generated: false } : { password: generatePassword(), generated: true };
}
async function withUser(name) {
  if (!name) throw new AppError(2, "usage", "give the user name");
  const u = await findUserByName({ username: name });
  if (!u) throw new AppError(1, "not_found", `no user named "${name}"`);
  return u;
}
var import_node_os2, help3, actor, user;
var init_user = __esm({
  "cli/commands/user.ts"() {
    "use strict";
    import_node_os2 = require("node:os");
    init_record();
    init_roles();
    init_users();
    init_client2();
    init_errors();
    help3 = `Usage: bootdeck user <subcommand>

  user list                          every account: name, role, enabled
  user add NAME --role ROLE [--display-name TEXT]
                                     create an account (ROLE: ${roles.join(", ")})
  user passwd NAME                   set a new password and end the user's sessions
  user disable NAME | enable NAME    lock an account out (ends its sessions) or let it back in
  user delete NAME                   delete an account and its sessions (never the last enabled admin)

Passwords come from $BOOTDECK_USER_PASSWORD, or are generated and printed once.
Changes are recorded in the audit log as made by "cli:<your login>".`;
    actor = () => `cli:${(() => {
      try {
        return (0, import_node_os2.userInfo)().username;
      } catch {
        return "unknown";
      }
    })()}`;
    user = {
      async run(argv) {
        const [sub, ...rest] = argv;
        if (!sub || sub === "--help" || sub === "-h" || rest.includes("--help")) {
          console.log(help3);
          return sub ? 0 : 2;
        }
        await configureDb();
        try {
          switch (sub) {
            case "list": {
              const users = await listUsers();
              console.log(["USER".padEnd(24), "ROLE".padEnd(8), "STATE".padEnd(9), "NAME"].join(" "));
              for (const u of users) console.log([u.username.padEnd(24), u.role.padEnd(8), (u.disabled ? "disabled" : "enabled").padEnd(9), u.displayName].join(" "));
              return 0;
            }
            case "add": {
              const [name] = positional(rest);
              const role = flag(rest, "--role");
              if (!name || !role) {
                console.error(`user add: give NAME and --role (${roles.join(", ")})

${help3}`);
                return 2;
              }
              if (!roles.includes(role)) {
                console.error(`user add: --role must be one of ${roles.join(", ")}`);
                return 2;
              }
              const { password, generated } = passwordFromEnv();
              const id = await createUser({ username: name, displayName: flag(rest, "--display-name"), password, role });
              await recordAudit({ action: "user.create", username: actor(), target: id, details: { username: name, role, via: "cli" } });
              console.log(generated ? `user add: created "${name}" (${role}) with password ${password}
user add: this password is shown only once` : `user add: created "${name}" (${role}) with the password from BOOTDECK_USER_PASSWORD`);
              return 0;
            }
            case "passwd": {
              const u = await withUser(positional(rest)[0]);
              const { password, generated } = passwordFromEnv();
              await resetUserPassword({ id: u.id, password });
              await recordAudit({ action: "user.password_reset", username: actor(), target: u.id, details: { username: u.username, via: "cli" } });
              console.log(generated ? `user passwd: new password for "${u.username}": ${password}
user passwd: shown only once; their sessions have ended` : `user passwd: set the password of "${u.username}" from BOOTDECK_USER_PASSWORD; their sessions have ended`);
              return 0;
            }
            case "disable":
            case "enable": {
              const u = await withUser(positional(rest)[0]);
              await updateUser({ id: u.id, actorId: "cli", disabled: sub === "disable" });
              await recordAudit({ action: `user.${sub}`, username: actor(), target: u.id, details: { username: u.username, via: "cli" } });
              console.log(`user ${sub}: "${u.username}" is ${sub}d`);
              return 0;
            }
            case "delete": {
              const u = await withUser(positional(rest)[0]);
              const deleted = await deleteUser({ id: u.id, actorId: "cli" });
              await recordAudit({ action: "user.delete", username: actor(), target: u.id, details: { username: u.username, role: deleted.role, via: "cli" } });
              console.log(`user delete: "${u.username}" is deleted; their sessions have ended`);
              return 0;
            }
            default:
              console.error(`user: unknown subcommand "${sub}"

${help3}`);
              return 2;
          }
        } catch (err) {
          if (err instanceof ValidationError) {
            for (const e of err.errors) console.error(`user ${sub}: ${e.path} ${e.message}`);
            return 1;
          }
          if (err instanceof AppError) {
            console.error(`user ${sub}: ${err.message}`);
            return err.status === 2 ? 2 : 1;
          }
          throw err;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// lib/secrets/rotate.ts
async function rotateMasterKey(input = {}) {
  resetMasterKeyCache();
  const env = getEnv();
  const source = masterKeySource();
  const current = getMasterKey();
  const pending = pendingKeyFile();
  let next;
  let resumed = false;
  if (input.newKeyFile) {
    next = readKeyFile(input.newKeyFile);
    if (source === "file" && (0, import_node_fs16.existsSync)(pending) && readKeyFile(pending).id !== next.id)
      throw new Error(`an earlier rotation to key ${readKeyFile(pending).id} did not finish (${pending} exists); run the command without --new-key-file to finish it first`);
    resumed = source === "file" && (0, import_node_fs16.existsSync)(pending);
  } else if (source === "env") throw new Error("the master key comes from BOOTDECK_MASTER_KEY: give the new key with --new-key-file FILE (openssl rand -base64 32 > FILE; chmod 600 FILE)");
  else if ((0, import_node_fs16.existsSync)(pending)) {
    next = readKeyFile(pending);
    resumed = true;
  } else next = generateMasterKey();
  if (next.id === current.id && !resumed) throw new Error(`the new key is the current key (${current.id})`);
  if (source === "file" && !resumed) writeFileAtomic(pending, masterKeyText(next));
  input.hooks?.afterPendingWritten?.();
  const reseal = (sealed) => sealedKeyId(sealed) === next.id ? sealed : encryptSecret(decryptSecret(sealed), next);
  let credentials = 0;
  let assets = 0;
  let backups = 0;
  await getDb().$transaction(
    async (tx) => {
      const creds = await tx.credential.findMany({ select: { id: true, secretCipher: true, passphraseCipher: true } });
      for (const c of creds) {
        if (!c.secretCipher && !c.passphraseCipher) continue;
        await tx.credential.update({
          where: { id: c.id },
          data: { secretCipher: c.secretCipher && reseal(c.secretCipher), passphraseCipher: c.passphraseCipher && reseal(c.passphraseCipher) }
        });
        credentials++;
      }
      const rows = await tx.asset.findMany({ where: { sensitive: true }, select: { id: true, content: true } });
      for (const a of rows) {
        await tx.asset.update({ where: { id: a.id }, data: { content: reseal(a.content) } });
        assets++;
      }
      for (const b of await tx.backup.findMany({ select: { id: true, keyCipher: true } })) {
        await tx.backup.update({ where: { id: b.id }, data: { keyCipher: reseal(b.keyCipher) } });
        backups++;
      }
    },
    { maxWait: 3e4, timeout: 10 * 6e4 }
  );
  input.hooks?.afterCommit?.();
  const result = { oldKeyId: current.id, newKeyId: next.id, credentials, assets, backups, resumed, source };
  if (source === "file") {
    const file = env.masterKeyFile;
    if (readKeyFile(file).id !== next.id) {
      const stamp = (input.now ?? /* @__PURE__ */ new Date()).toISOString().replace(/[:.]/g, "-");
      const retired = `${file}.old-${stamp}`;
      (0, import_node_fs16.copyFileSync)(file, retired);
      fsyncFile(retired, 384);
      result.retiredKeyFile = retired;
    }
    (0, import_node_fs16.renameSync)(pending, file);
    fsyncDir(import_node_path18.default.dirname(file));
    result.keyFile = file;
  }
  resetMasterKeyCache();
  return result;
}
function writeFileAtomic(file, text) {
  const tmp = `${file}.tmp-${process.pid}`;
  (0, import_node_fs16.writeFileSync)(tmp, text, { mode: 384, flag: "w" });
  fsyncFile(tmp, 384);
  (0, import_node_fs16.renameSync)(tmp, file);
  fsyncDir(import_node_path18.default.dirname(file));
}
function fsyncFile(file, mode) {
  const fd = (0, import_node_fs16.openSync)(file, "r+");
  try {
    (0, import_node_fs16.fchmodSync)(fd, mode);
    (0, import_node_fs16.fsyncSync)(fd);
  } finally {
    (0, import_node_fs16.closeSync)(fd);
  }
}
function fsyncDir(dir) {
  const fd = (0, import_node_fs16.openSync)(dir, "r");
  try {
    (0, import_node_fs16.fsyncSync)(fd);
  } finally {
    (0, import_node_fs16.closeSync)(fd);
  }
}
var import_node_fs16, import_node_path18;
var init_rotate = __esm({
  "lib/secrets/rotate.ts"() {
    "use strict";
    import_node_fs16 = require("node:fs");
    import_node_path18 = __toESM(require("node:path"));
    init_client2();
    init_env();
    init_cipher();
    init_master_key();
  }
});

// cli/commands/rotate-master-key.ts
var rotate_master_key_exports = {};
__export(rotate_master_key_exports, {
  rotateMasterKeyCommand: () => rotateMasterKeyCommand
});
var import_node_os3, help4, rotateMasterKeyCommand;
var init_rotate_master_key = __esm({
  "cli/commands/rotate-master-key.ts"() {
    "use strict";
    import_node_os3 = require("node:os");
    init_record();
    init_client2();
    init_env();
    init_rotate();
    help4 = `Usage: bootdeck rotate-master-key [--new-key-file FILE]

Re-encrypts every stored secret (SSH keys, passwords, passphrases, rendered private keys and tokens)
under a new master key in one database transaction, then replaces the key file:
  - key file (default data/master.key): a new key is generated (or read from --new-key-file), written to
    master.key.new, the database is re-sealed, the old key is kept as master.key.old-<date> (mode 0600)
    and master.key.new is renamed over master.key. If the command is interrupted, run it again: it
    finishes the same rotation. Delete master.key.old-* once your backups no longer need it.
  - BOOTDECK_MASTER_KEY: --new-key-file is required (openssl rand -base64 32 > FILE; chmod 600 FILE).
    Stop the dashboard first; afterwards set BOOTDECK_MASTER_KEY to the file's content and start it.`;
    rotateMasterKeyCommand = {
      async run(argv) {
        if (argv.includes("--help") || argv.includes("-h")) {
          console.log(help4);
          return 0;
        }
        let newKeyFile;
        for (let i = 0; i < argv.length; i++) {
          const a = argv[i];
          if (a === "--new-key-file" && argv[i + 1]) newKeyFile = argv[++i];
          else if (a.startsWith("--new-key-file=")) newKeyFile = a.slice("--new-key-file=".length);
          else {
            console.error(`rotate-master-key: unexpected argument "${a}"

${help4}`);
            return 2;
          }
        }
        getEnv();
        await configureDb();
        try {
          const r2 = await rotateMasterKey({ newKeyFile });
          await recordAudit({
            action: "secrets.rotate_master_key",
            username: `cli:${(0, import_node_os3.userInfo)().username}`,
            details: { oldKeyId: r2.oldKeyId, newKeyId: r2.newKeyId, credentials: r2.credentials, assets: r2.assets, backups: r2.backups, resumed: r2.resumed, source: r2.source }
          });
          console.log(
            `rotate-master-key: ${r2.resumed ? "finished an interrupted rotation; " : ""}re-sealed ${r2.credentials} credential(s), ${r2.assets} sensitive asset(s) and the keys of ${r2.backups} backup(s): key ${r2.oldKeyId} \u2192 ${r2.newKeyId}`
          );
          if (r2.source === "file") {
            console.log(`rotate-master-key: ${r2.keyFile} now holds key ${r2.newKeyId}`);
            if (r2.retiredKeyFile) console.log(`rotate-master-key: the old key is kept in ${r2.retiredKeyFile} (0600); delete it once no backup needs it`);
          } else console.log(`rotate-master-key: now set BOOTDECK_MASTER_KEY to the content of ${newKeyFile} and restart the dashboard`);
          return 0;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/run.ts
var run_exports = {};
__export(run_exports, {
  run: () => run3
});
function flag2(argv, name) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : void 0;
}
async function confirm2(question) {
  const rl = (0, import_promises8.createInterface)({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
var import_promises8, import_node_os4, help5, actor2, ago, run3;
var init_run = __esm({
  "cli/commands/run.ts"() {
    "use strict";
    import_promises8 = require("node:readline/promises");
    import_node_os4 = require("node:os");
    init_record();
    init_client2();
    init_runs();
    init_errors();
    help5 = `Usage: bootdeck run <subcommand>

  run list [--cluster NAME]          running and planned runs: id, cluster, type, worker, last heartbeat
  run release RUN [--reason TEXT] [--yes]
                                     end a stuck running run: it fails as "released by cli:<you>",
                                     the cluster is free for a new run, its worker writes nothing more
  run cancel RUN                     cancel a planned run (it ends) or ask a running one to stop`;
    actor2 = () => `cli:${(() => {
      try {
        return (0, import_node_os4.userInfo)().username;
      } catch {
        return "unknown";
      }
    })()}`;
    ago = (d) => d ? `${Math.round((Date.now() - d.getTime()) / 1e3)} s ago` : "never";
    run3 = {
      async run(argv) {
        const [sub, id, ...rest] = argv;
        if (!sub || sub === "--help" || sub === "-h" || argv.includes("--help")) {
          console.log(help5);
          return sub ? 0 : 2;
        }
        await configureDb();
        try {
          if (sub === "list") {
            const cluster = flag2(argv, "--cluster");
            const runs = await getDb().run.findMany({
              where: { status: { in: ["planned", "running"] }, ...cluster ? { cluster: { name: cluster } } : {} },
              include: { cluster: { select: { name: true } } },
              orderBy: { createdAt: "asc" }
            });
            if (!runs.length) console.log("no planned or running runs");
            for (const r2 of runs) console.log(`${r2.id}  ${r2.cluster.name}  ${r2.type}  ${r2.status}  worker ${r2.workerId ?? "none"}  heartbeat ${ago(r2.heartbeatAt)}`);
            return 0;
          }
          if (!id) throw new AppError(2, "usage", `give the run's id: bootdeck run ${sub} RUN`);
          if (sub === "release") {
            const r2 = await getDb().run.findUnique({ where: { id }, include: { cluster: { select: { name: true } } } });
            if (!r2) throw new AppError(1, "not_found", `no run ${id}`);
            console.log(`run ${r2.id} (${r2.type} of ${r2.cluster.name}) is ${r2.status}; worker ${r2.workerId ?? "none"}, last heartbeat ${ago(r2.heartbeatAt)}`);
            if (!rest.includes("--yes")) {
              if (!process.stdin.isTTY) throw new AppError(2, "usage", "not confirmed; pass --yes to release without a terminal");
              if (!await confirm2("Release it? It ends as failed and the cluster is free for a new run. [y/N] ")) return 1;
            }
            const reason = flag2(argv, "--reason");
            const by2 = actor2();
            const out = await releaseRun({ runId: id, by: by2, reason });
            await recordAudit({ action: "run.release", username: by2, target: id, details: { via: "cli", reason: reason ?? null, previousWorker: out.previousWorker } });
            console.log(`released: run ${id} is ${out.status}`);
            return 0;
          }
          if (sub === "cancel") {
            const by2 = actor2();
            const outcome = await requestCancel({ runId: id, by: by2 });
            await recordAudit({ action: "run.cancel", username: by2, target: id, details: { via: "cli", outcome } });
            console.log(outcome === "cancelled" ? `run ${id} is cancelled` : `run ${id} was asked to stop; its worker stops between steps`);
            return 0;
          }
          console.error(`bootdeck run: unknown subcommand "${sub}"

${help5}`);
          return 2;
        } catch (err) {
          if (err instanceof AppError) {
            console.error(`bootdeck run: ${err.message}`);
            return err.status === 2 ? 2 : 1;
          }
          throw err;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// lib/clusters/schemas.ts
var import_zod9, credentialSecret, secretsSchema, saveClusterBody, importClusterBody, deleteClusterBody, clusterIdParams, hostParams;
var init_schemas4 = __esm({
  "lib/clusters/schemas.ts"() {
    "use strict";
    import_zod9 = require("zod");
    init_net_syntax();
    credentialSecret = import_zod9.z.strictObject({
      privateKey: import_zod9.z.string().max(16 * 1024, "must be at most 16 KiB").optional(),
      passphrase: import_zod9.z.string().max(1024).optional(),
      password: import_zod9.z.string().max(1024).optional()
    });
    secretsSchema = import_zod9.z.record(import_zod9.z.string().max(63), credentialSecret).default({});
    saveClusterBody = import_zod9.z.strictObject({ definition: import_zod9.z.unknown(), secrets: secretsSchema });
    importClusterBody = import_zod9.z.strictObject({
      yaml: import_zod9.z.string().max(2 * 1024 * 1024),
      secrets: secretsSchema,
      /** Update the cluster of the same name instead of refusing the import. */
      replace: import_zod9.z.boolean().default(false)
    });
    deleteClusterBody = import_zod9.z.strictObject({ confirmName: import_zod9.z.string().max(63) });
    clusterIdParams = import_zod9.z.strictObject({ id: import_zod9.z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/) });
    hostParams = import_zod9.z.strictObject({ id: clusterIdParams.shape.id, host: import_zod9.z.string().max(63).refine(isDns1123Label) });
  }
});

// lib/engine/diagnostics.ts
var import_zod10, hostDiagnosticsParams;
var init_diagnostics = __esm({
  "lib/engine/diagnostics.ts"() {
    "use strict";
    import_zod10 = require("zod");
    init_definition();
    init_net_syntax();
    init_schemas4();
    init_client2();
    init_errors();
    init_ssh();
    init_targets();
    hostDiagnosticsParams = import_zod10.z.strictObject({
      id: clusterIdParams.shape.id,
      host: import_zod10.z.string().max(limits.name).refine(isDns1123Label)
    });
  }
});

// lib/engine/host-keys.ts
async function readOfferedHostKey(executor, target) {
  const probe2 = { ...target, id: `${target.id} (host-key probe)`, hostKey: { pinned: "SHA256:(probe: accept no key)" } };
  try {
    await executor.connect(probe2);
  } catch (err) {
    if (isSshError(err) && err.detail.kind === "host-key-changed") return err.detail.offered;
    throw err;
  }
  throw new Error(`${target.id}: the probe connected although it accepts no key`);
}
async function targetOf(clusterId2, host3) {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId2 }, select: { definition: true, hosts: { where: { name: host3 }, select: { id: true, hostKeyFingerprint: true, address: true, sshPort: true } } } });
  if (!cluster) throw notFound("Cluster");
  const row = cluster.hosts[0];
  if (!row) throw notFound("Host");
  const hosts = await loadEngineHosts({
    clusterId: clusterId2,
    definition: JSON.parse(cluster.definition),
    purpose: "host-key probe",
    onPinned: async () => void 0
  });
  const target = hosts.find((h) => h.name === host3)?.target;
  if (!target) throw notFound("Host");
  return { target, row };
}
async function probe(target) {
  const executor = new Executor({ connectTimeoutMs: 1e4, retry: { attempts: 2 } });
  try {
    return await readOfferedHostKey(executor, target);
  } catch (err) {
    if (isSshError(err)) throw new AppError(502, "ssh", err.message);
    throw err;
  } finally {
    await executor.close();
  }
}
async function probeHostKey({ clusterId: clusterId2, host: host3 }) {
  const { target, row } = await targetOf(clusterId2, host3);
  const offered = await probe(target);
  return { host: host3, address: row.address, port: row.sshPort, pinned: row.hostKeyFingerprint, offered, matches: row.hostKeyFingerprint === offered };
}
async function repinHostKey({ clusterId: clusterId2, host: host3, fingerprint: fingerprint2, previous, by: by2 }) {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId2 }, select: { activeRunId: true } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.activeRunId) throw conflict(`Run ${cluster.activeRunId} is in progress on this cluster; re-pin when it has finished`);
  const { target, row } = await targetOf(clusterId2, host3);
  const offered = await probe(target);
  if (offered !== fingerprint2) throw conflict(`${host3} now offers ${offered}, not the ${fingerprint2} you confirmed: probe it again and compare out of band`);
  const r2 = await getDb().host.updateMany({
    where: { id: row.id, hostKeyFingerprint: previous },
    data: { hostKeyFingerprint: fingerprint2, hostKeyConfirmedAt: /* @__PURE__ */ new Date(), hostKeyConfirmedBy: by2 }
  });
  if (r2.count === 0) throw conflict(`The pinned key of ${host3} changed meanwhile (it is ${row.hostKeyFingerprint ?? "none"}); probe again`);
  return { previous, pinned: fingerprint2 };
}
var import_zod11, fingerprintText, repinHostKeyBody;
var init_host_keys = __esm({
  "lib/engine/host-keys.ts"() {
    "use strict";
    import_zod11 = require("zod");
    init_client2();
    init_errors();
    init_ssh();
    init_diagnostics();
    init_targets();
    fingerprintText = import_zod11.z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, "must be an OpenSSH SHA256 fingerprint (SHA256: and 43 base64 characters)");
    repinHostKeyBody = import_zod11.z.strictObject({
      fingerprint: fingerprintText,
      previous: fingerprintText.nullable(),
      confirm: import_zod11.z.literal(true, { error: "re-pinning a host key needs confirm: true" })
    });
  }
});

// cli/commands/host.ts
var host_exports = {};
__export(host_exports, {
  host: () => host2
});
async function confirm3(question) {
  const rl = (0, import_promises9.createInterface)({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
var import_promises9, import_node_os5, help6, actor3, host2;
var init_host = __esm({
  "cli/commands/host.ts"() {
    "use strict";
    import_promises9 = require("node:readline/promises");
    import_node_os5 = require("node:os");
    init_record();
    init_repository();
    init_client2();
    init_host_keys();
    init_errors();
    help6 = `Usage: bootdeck host repin CLUSTER HOST [--yes]

Reads the SSH host key HOST offers now (the connection stops at the key exchange: no credential is
sent), shows it next to the pinned one, and pins it once you confirm. --yes confirms without asking
(the fingerprints are printed all the same).`;
    actor3 = () => `cli:${(() => {
      try {
        return (0, import_node_os5.userInfo)().username;
      } catch {
        return "unknown";
      }
    })()}`;
    host2 = {
      async run(argv) {
        const [sub, cluster, name] = argv.filter((a) => !a.startsWith("--"));
        if (sub !== "repin" || !cluster || !name || argv.includes("--help")) {
          console.log(help6);
          return argv.includes("--help") ? 0 : 2;
        }
        await configureDb();
        try {
          const clusterId2 = await findClusterIdByName({ name: cluster });
          if (!clusterId2) throw new AppError(1, "not_found", `no cluster named "${cluster}"`);
          const probe2 = await probeHostKey({ clusterId: clusterId2, host: name });
          console.log(`${name} (${probe2.address}:${probe2.port})
  pinned:  ${probe2.pinned ?? "(none)"}
  offered: ${probe2.offered}`);
          if (probe2.matches) {
            console.log("the host offers the pinned key; nothing to do");
            return 0;
          }
          if (!argv.includes("--yes")) {
            if (!process.stdin.isTTY) throw new AppError(2, "usage", "not confirmed; pass --yes to re-pin without a terminal");
            if (!await confirm3(`Pin ${probe2.offered} for ${name}? Check it on the host first. [y/N] `)) return 1;
          }
          const by2 = actor3();
          const r2 = await repinHostKey({ clusterId: clusterId2, host: name, fingerprint: probe2.offered, previous: probe2.pinned, by: by2 });
          await recordAudit({ action: "host.repin", username: by2, target: clusterId2, details: { via: "cli", host: name, previous: r2.previous, pinned: r2.pinned } });
          console.log(`pinned ${r2.pinned} for ${name} (was ${r2.previous ?? "none"})`);
          return 0;
        } catch (err) {
          if (err instanceof AppError) {
            console.error(`bootdeck host: ${err.message}`);
            return err.status === 2 ? 2 : 1;
          }
          throw err;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// lib/engine/run-control.ts
async function pausableRun(runId) {
  const run4 = await getDb().run.findUnique({ where: { id: runId }, select: { type: true, status: true } });
  if (!run4) throw notFound("Run");
  if (!PAUSABLE_RUNS.includes(run4.type)) throw conflict(`a ${run4.type} run has no pause points; only upgrades pause`);
  if (!["planned", "running"].includes(run4.status)) throw conflict(`Run ${runId} is ${run4.status}: ${run4.status === "failed" || run4.status === "cancelled" ? "retry it to go on" : "nothing to pause or resume"}`);
}
async function pauseRun({ runId, by: by2 }) {
  await pausableRun(runId);
  if (await pausedBy(runId)) return { already: true };
  await appendRunEvent({ runId, type: "run.pause-requested", data: { by: by2 } });
  return { already: false };
}
async function resumeRun({ runId, by: by2 }) {
  await pausableRun(runId);
  if (!await pausedBy(runId)) return { wasPaused: false };
  await appendRunEvent({ runId, type: "run.resumed", data: { by: by2 } });
  return { wasPaused: true };
}
var PAUSABLE_RUNS;
var init_run_control = __esm({
  "lib/engine/run-control.ts"() {
    "use strict";
    init_client2();
    init_errors();
    init_events();
    init_upgrade();
    PAUSABLE_RUNS = ["upgrade"];
  }
});

// cli/commands/day2.ts
var day2_exports = {};
__export(day2_exports, {
  nodes: () => nodes,
  upgrade: () => upgrade
});
function option(args, flag5) {
  const i = args.indexOf(flag5);
  if (i < 0) return void 0;
  const v = args[i + 1];
  if (v === void 0 || v.startsWith("--")) throw new AppError(400, "usage", `${flag5} needs a value`);
  args.splice(i, 2);
  return v;
}
function flag3(args, name) {
  const i = args.indexOf(name);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
}
async function planConfirmRun(clusterName, raw2, opts) {
  const parsed = createRunBody.safeParse(raw2);
  if (!parsed.success) throw new AppError(400, "usage", parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; "));
  const body = parsed.data;
  const clusterId2 = await findClusterIdByName({ name: clusterName });
  if (!clusterId2) throw new AppError(404, "not_found", `no cluster named ${clusterName} (bootdeck import it first)`);
  const runId = await planRun({ clusterId: clusterId2, body, by: by() });
  await recordAudit({ action: "run.plan", username: by(), target: runId, details: { clusterId: clusterId2, ...body, via: "cli" } });
  console.log(planText(await getRunPlan(runId), opts.verbose));
  if (opts.dryRun) {
    console.log(`
dry run: nothing was changed. The plan is saved as run ${runId}; confirm it in the dashboard, or run this again with --yes.`);
    return 0;
  }
  if (!opts.yes) {
    if (!process.stdin.isTTY) {
      console.error("not confirmed; pass --yes to run without a terminal");
      return 2;
    }
    if (!await confirm(`
Run this plan on cluster ${clusterName}? [y/N] `)) {
      console.log(`not started; the plan stays as run ${runId}`);
      return 1;
    }
  }
  await startRun({ runId });
  await recordAudit({ action: "run.start", username: by(), target: runId, details: { via: "cli" } });
  return follow(runId, opts.verbose);
}
async function guarded(name, fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`bootdeck ${name}: ${err.message}`);
      return err.status === 400 ? 2 : 1;
    }
    throw err;
  } finally {
    await disconnectDb();
  }
}
var by, NODES_USAGE, nodes, UPGRADE_USAGE, upgrade;
var init_day2 = __esm({
  "cli/commands/day2.ts"() {
    "use strict";
    init_record();
    init_repository();
    init_client2();
    init_plan_run();
    init_run_control();
    init_runs();
    init_schemas3();
    init_errors();
    init_apply();
    by = () => `cli:${process.env.USER ?? "?"}`;
    NODES_USAGE = `Usage: bootdeck nodes add CLUSTER HOST... [--yes] [--accept-warnings] [--dry-run] [--verbose]
       bootdeck nodes remove CLUSTER HOST... [--no-reset] [--drain-timeout SECONDS] [--yes] [--dry-run] [--verbose]

add     joins hosts of the cluster's definition (add them there first: bootdeck import --replace): workers
        join with the bootstrap token; masters join etcd one at a time (a learner, promoted once caught up,
        quorum checked before and after), then the control plane learns them.
remove  takes hosts out: the quorum guard, each master's etcd member, cordon and drain (disruption budgets
        respected; --drain-timeout, default 300 s, then what blocked is reported), the Node, the host reset
        (--no-reset when the host is gone for good), and the hosts out of the definition. Admins only in
        the dashboard.`;
    nodes = {
      async run(argv) {
        const args = [...argv];
        if (args.includes("--help") || args.length < 3) {
          console.log(NODES_USAGE);
          return args.includes("--help") ? 0 : 2;
        }
        return guarded("nodes", async () => {
          const opts = { yes: flag3(args, "--yes"), verbose: flag3(args, "--verbose"), dryRun: flag3(args, "--dry-run") };
          const acceptWarnings = flag3(args, "--accept-warnings");
          const noReset = flag3(args, "--no-reset");
          const drain2 = option(args, "--drain-timeout");
          const [action, cluster, ...hosts] = args;
          if (action === "add") return planConfirmRun(cluster, { type: "join", hosts, ...acceptWarnings ? { acceptWarnings } : {} }, opts);
          if (action === "remove")
            return planConfirmRun(cluster, { type: "remove", hosts, confirm: true, ...noReset ? { reset: false } : {}, ...drain2 ? { drainTimeoutSeconds: Number(drain2) } : {} }, opts);
          console.log(NODES_USAGE);
          return 2;
        });
      }
    };
    UPGRADE_USAGE = `Usage: bootdeck upgrade CLUSTER --version V [--masters N] [--workers N|P%] [--drain-timeout SECONDS] [--yes] [--dry-run] [--verbose]
       bootdeck upgrade pause RUN | resume RUN

Rolls the cluster to V (a patch, or the next minor): preflight on every host, the control plane first
(etcd one master at a time, API servers, controller-manager, scheduler, checkpoints, add-ons), then the
kubelets in batches (default: masters 1 at a time, workers 10%): cordon, drain, swap, Ready, uncordon; a
node that does not come back is rolled back and the upgrade stops. Ctrl-C aborts (cancels); running
bootdeck upgrade again plans anew, retrying the run (dashboard) goes on from the first node not done.
pause makes the upgrade stop before its next batch; resume lets it go on.`;
    upgrade = {
      async run(argv) {
        const args = [...argv];
        if (args.includes("--help") || args.length < 2) {
          console.log(UPGRADE_USAGE);
          return args.includes("--help") ? 0 : 2;
        }
        return guarded("upgrade", async () => {
          if (args[0] === "pause" || args[0] === "resume") {
            const runId = args[1] ?? "";
            if (args[0] === "pause") console.log((await pauseRun({ runId, by: by() })).already ? `${runId} was paused already` : `${runId} stops before its next batch`);
            else console.log((await resumeRun({ runId, by: by() })).wasPaused ? `${runId} goes on` : `${runId} was not paused`);
            await recordAudit({ action: `run.${args[0]}`, username: by(), target: runId, details: { via: "cli" } });
            return 0;
          }
          const opts = { yes: flag3(args, "--yes"), verbose: flag3(args, "--verbose"), dryRun: flag3(args, "--dry-run") };
          const version = option(args, "--version");
          const masters = option(args, "--masters");
          const workers = option(args, "--workers");
          const drain2 = option(args, "--drain-timeout");
          const [cluster] = args;
          if (!version || !cluster) {
            console.log(UPGRADE_USAGE);
            return 2;
          }
          return planConfirmRun(
            cluster,
            { type: "upgrade", version, ...masters || workers ? { batches: { ...masters ? { masters } : {}, ...workers ? { workers } : {} } } : {}, ...drain2 ? { drainTimeoutSeconds: Number(drain2) } : {} },
            opts
          );
        });
      }
    };
  }
});

// cli/commands/backup.ts
var backup_exports = {};
__export(backup_exports, {
  backup: () => backup,
  parseEvery: () => parseEvery
});
function parseEvery(text) {
  const m = /^(\d+)\s*(m|min|h|d)?$/.exec(text.trim());
  if (!m) throw new AppError(2, "usage", `--every ${text}: give minutes, hours or days, e.g. 30m, 6h, 1d`);
  const n = Number(m[1]);
  return m[2] === "h" ? n * 60 : m[2] === "d" ? n * 1440 : n;
}
async function clusterId(name) {
  if (!name) throw new AppError(2, "usage", USAGE2);
  const id = await findClusterIdByName({ name });
  if (!id) throw new AppError(1, "not_found", `no cluster named "${name}"`);
  return id;
}
var import_node_fs17, import_promises10, import_node_os6, USAGE2, who, flag4, size, backup;
var init_backup2 = __esm({
  "cli/commands/backup.ts"() {
    "use strict";
    import_node_fs17 = require("node:fs");
    import_promises10 = require("node:stream/promises");
    import_node_os6 = require("node:os");
    init_record();
    init_runs2();
    init_schemas();
    init_store2();
    init_repository();
    init_client2();
    init_errors();
    init_apply();
    USAGE2 = `Usage:
  bootdeck backup create CLUSTER                 take an etcd snapshot now (runs here, one line per step)
  bootdeck backup list CLUSTER                   stored snapshots, newest first, and the schedule
  bootdeck backup schedule CLUSTER --every 6h [--keep 14] [--keep-days 30]
  bootdeck backup schedule CLUSTER --off         snapshots on demand only
  bootdeck backup download CLUSTER BACKUP-ID [--output FILE]
                                                 the plain snapshot (checked whole first), for etcdutl

Snapshots are encrypted at rest in the data directory; the dashboard's engine (or bootdeck worker)
takes the scheduled ones.`;
    who = () => `cli:${(0, import_node_os6.userInfo)().username}`;
    flag4 = (argv, name) => {
      const i = argv.indexOf(name);
      return i >= 0 ? argv[i + 1] : void 0;
    };
    size = (n) => n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
    backup = {
      async run(argv) {
        const [sub, name, ...rest] = argv;
        if (!sub || sub === "--help") {
          console.log(USAGE2);
          return sub ? 0 : 2;
        }
        try {
          const id = await clusterId(name);
          switch (sub) {
            case "create": {
              const runId = await startBackupRun({ clusterId: id, trigger: "manual" });
              await recordAudit({ action: "backup.create", username: who(), target: runId, details: { clusterId: id, via: "cli" } });
              console.log(`backup run ${runId}`);
              return await follow(runId, rest.includes("--verbose"));
            }
            case "list": {
              const policy = await getBackupPolicy({ clusterId: id });
              console.log(`schedule: ${policy.enabled ? `every ${policy.intervalMinutes} min` : "off"}; keep the newest ${policy.keepLast}, older ones for ${policy.keepDays} days \u2014 ${policy.health.state}: ${policy.health.message}`);
              for (const b of await listBackups({ clusterId: id }))
                console.log(`${b.id}  ${b.createdAt}  ${b.trigger.padEnd(8)}  revision ${b.revision}  ${size(b.size).padStart(10)}  ${b.totalKeys} keys  from ${b.member}  sha256 ${b.sha256}`);
              return 0;
            }
            case "schedule": {
              const current = await getBackupPolicy({ clusterId: id });
              const every = flag4(rest, "--every");
              const body = backupPolicyBody.parse({
                enabled: !rest.includes("--off"),
                intervalMinutes: every ? parseEvery(every) : current.intervalMinutes,
                keepLast: Number(flag4(rest, "--keep") ?? current.keepLast),
                keepDays: Number(flag4(rest, "--keep-days") ?? current.keepDays)
              });
              const p2 = await setBackupPolicy({ clusterId: id, body, by: who() });
              await recordAudit({ action: "backup.policy", username: who(), target: id, details: { ...body, via: "cli" } });
              console.log(p2.enabled ? `backups of ${name} every ${p2.intervalMinutes} min, next at ${p2.nextDueAt}; keep the newest ${p2.keepLast}, older ones for ${p2.keepDays} days` : `no scheduled backups for ${name}`);
              return 0;
            }
            case "download": {
              const backupId = rest[0];
              if (!backupId) throw new AppError(2, "usage", USAGE2);
              const b = await getBackupOrThrow({ clusterId: id, backupId });
              const { stream } = await openVerifiedBackup(b);
              const out = flag4(rest, "--output") ?? await backupFileName(b);
              await (0, import_promises10.pipeline)(stream(), (0, import_node_fs17.createWriteStream)(out, { mode: 384 }));
              await recordAudit({ action: "backup.download", username: who(), target: b.id, details: { clusterId: id, revision: b.revision, sha256: b.sha256, via: "cli" } });
              console.log(`${out}: ${size(b.size)}, sha256 ${b.sha256}, etcd revision ${b.revision}`);
              return 0;
            }
            default:
              console.error(USAGE2);
              return 2;
          }
        } catch (err) {
          if (err instanceof AppError) {
            console.error(err.status === 2 ? err.message : `bootdeck backup: ${err.message}`);
            return err.status === 2 ? 2 : 1;
          }
          if (err instanceof Error && err.name === "ZodError") {
            console.error(`bootdeck backup: ${err.message}`);
            return 2;
          }
          throw err;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/recovery.ts
var recovery_exports = {};
__export(recovery_exports, {
  certs: () => certs,
  recover: () => recover,
  restore: () => restore,
  rotateCerts: () => rotateCerts
});
async function confirm4(question) {
  const rl = (0, import_promises11.createInterface)({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
async function runDr(argv, usage3, body, warning) {
  const [name, ...rest] = argv;
  const b = name && !name.startsWith("-") ? body(rest) : void 0;
  if (!name || argv.includes("--help") || !b) {
    console.log(usage3);
    return argv.includes("--help") ? 0 : 2;
  }
  const verbose = rest.includes("--verbose");
  try {
    const clusterId2 = await findClusterIdByName({ name });
    if (!clusterId2) {
      console.error(`no cluster named "${name}"`);
      return 1;
    }
    const runId = await planRun({ clusterId: clusterId2, body: b, by: who2() });
    await recordAudit({ action: "run.plan", username: who2(), target: runId, details: { clusterId: clusterId2, type: b.type, via: "cli" } });
    console.log(planText(await getRunPlan(runId), verbose));
    if (!rest.includes("--yes")) {
      if (!process.stdin.isTTY) {
        console.error("not confirmed; pass --yes to run without a terminal");
        return 2;
      }
      if (!await confirm4(`
${warning}
Run this plan on cluster ${name}? [y/N] `)) {
        console.log(`not started; the plan stays as run ${runId}`);
        return 1;
      }
    }
    await startRun({ runId });
    await recordAudit({ action: "run.start", username: who2(), target: runId, details: { via: "cli", type: b.type } });
    return await follow(runId, verbose);
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`bootdeck ${b.type}: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await disconnectDb();
  }
}
var import_promises11, import_node_os7, who2, restore, recover, rotateCerts, certs;
var init_recovery = __esm({
  "cli/commands/recovery.ts"() {
    "use strict";
    import_promises11 = require("node:readline/promises");
    import_node_os7 = require("node:os");
    init_record();
    init_repository();
    init_client2();
    init_plan_run();
    init_runs();
    init_errors();
    init_apply();
    who2 = () => `cli:${(0, import_node_os7.userInfo)().username}`;
    restore = {
      run: (argv) => runDr(
        argv,
        `Usage: bootdeck restore CLUSTER BACKUP-ID [--yes] [--verbose]

Copies the snapshot to every master, stops the control plane, restores each etcd member (same names and
peer URLs, a new cluster token), starts etcd, and brings the control plane back (a self-hosted one
through a temporary control plane and the pivot). Everything written since the snapshot is lost; the
API is down while it runs. List backups with: bootdeck backup list CLUSTER`,
        (rest) => rest[0] && !rest[0].startsWith("-") ? { type: "restore", backup: rest[0], confirm: true } : void 0,
        "The API is down while the restore runs, and everything written since the snapshot is lost."
      )
    };
    recover = {
      run: (argv) => runDr(
        argv,
        `Usage: bootdeck recover CLUSTER [--yes] [--verbose]

For a control plane that did not come back by itself (after every master restarted): starts the
kubelets, checks etcd has a healthy quorum, then a temporary control plane on the first master from
etcd's current state and the pivot again, as the bootstrap does.`,
        () => ({ type: "recover", confirm: true }),
        "A temporary control plane starts on the first master until the self-hosted one runs again."
      )
    };
    rotateCerts = {
      run: (argv) => runDr(
        argv,
        `Usage: bootdeck rotate-certs CLUSTER [--days N] [--yes] [--verbose]

Renders a renewed asset set (the CAs, keys and bootstrap token kept; every leaf certificate issued
again, valid N days, by default as long as the cluster's were) and rolls it out: etcd one member at a
time, the API servers' certificates (served at once, reloaded from disk), each master's control plane
restarted beside a temporary API server, the kubelets one at a time (workers get new client
certificates through CSRs), then every host read again. Expiry: bootdeck certs CLUSTER [--live]`,
        (rest) => {
          const i = rest.indexOf("--days");
          const days = i >= 0 ? Number(rest[i + 1]) : void 0;
          if (days !== void 0 && !(Number.isInteger(days) && days > 0)) return void 0;
          return { type: "rotate-certs", confirm: true, ...days ? { leafValidityDays: days } : {} };
        },
        "A new asset set is saved now; the run rolls it out one component at a time."
      )
    };
    certs = {
      async run(argv) {
        const [name, ...rest] = argv;
        if (!name || name === "--help") {
          console.log("Usage: bootdeck certs CLUSTER [--live]\n\nEvery certificate and when it ends, soonest first; ! marks those ending within 30 days.");
          return name ? 0 : 2;
        }
        const { assetCertificates: assetCertificates2, readLiveCertificates: readLiveCertificates2 } = await Promise.resolve().then(() => (init_expiry(), expiry_exports));
        try {
          const clusterId2 = await findClusterIdByName({ name });
          if (!clusterId2) {
            console.error(`no cluster named "${name}"`);
            return 1;
          }
          if (rest.includes("--live")) {
            await recordAudit({ action: "certificates.read", username: who2(), target: clusterId2, details: { via: "cli" } });
            const live = await readLiveCertificates2({ clusterId: clusterId2 });
            for (const r2 of live.rows) console.log(`${r2.warn ? "!" : " "} ${r2.notAfter.slice(0, 10)} ${String(r2.daysLeft).padStart(5)} d  ${(r2.host ?? "").padEnd(10)} ${r2.source.padEnd(48)} ${r2.serial}  ${r2.subject}`);
            for (const e of live.errors) console.log(`  could not read on ${e.host}: ${e.error}`);
            return live.rows.some((r2) => r2.warn) ? 3 : 0;
          }
          const set = await assetCertificates2({ clusterId: clusterId2 });
          console.log(`asset set v${set.assetSetVersion ?? "-"}`);
          for (const r2 of set.rows) console.log(`${r2.warn ? "!" : " "} ${r2.notAfter.slice(0, 10)} ${String(r2.daysLeft).padStart(5)} d  ${r2.source.padEnd(36)} ${r2.subject}`);
          return set.rows.some((r2) => r2.warn) ? 3 : 0;
        } finally {
          await disconnectDb();
        }
      }
    };
  }
});

// cli/commands/index.ts
var commands = {
  apply: { summary: "save a cluster.yaml, plan its bootstrap, and run it here with progress lines", load: async () => (await Promise.resolve().then(() => (init_apply(), apply_exports))).apply },
  export: { summary: "print a saved cluster as cluster.yaml (never with secrets)", load: async () => (await Promise.resolve().then(() => (init_export(), export_exports))).exportCommand },
  images: { summary: "list every container image a cluster needs (to fill an image mirror)", load: async () => (await Promise.resolve().then(() => (init_images(), images_exports))).images },
  import: { summary: "save a cluster.yaml into the dashboard's database (secrets from the files/variables it names)", load: async () => (await Promise.resolve().then(() => (init_import2(), import_exports))).importCommand },
  setup: { summary: "create the data directory and master key, migrate the database, create the first admin", load: async () => (await Promise.resolve().then(() => (init_setup(), setup_exports))).setup },
  validate: { summary: "check a cluster.yaml and print every problem with its field path", load: async () => (await Promise.resolve().then(() => (init_validate(), validate_exports))).validate },
  worker: { summary: "run the engine without the dashboard (for deployments with BOOTDECK_ENGINE=off)", load: async () => (await Promise.resolve().then(() => (init_worker2(), worker_exports))).worker },
  lab: { summary: "test hosts on this machine running real Kubernetes: up, down, status, binaries, reboot, and fault injection", load: async () => (await Promise.resolve().then(() => (init_lab2(), lab_exports))).lab },
  render: { summary: "render a cluster's certificates, kubeconfigs, manifests and kubelet units into a directory", load: async () => (await Promise.resolve().then(() => (init_render2(), render_exports))).render },
  user: { summary: "manage dashboard accounts: list, add, passwd, disable, enable, delete", load: async () => (await Promise.resolve().then(() => (init_user(), user_exports))).user },
  "rotate-master-key": { summary: "re-encrypt every stored secret under a new master key", load: async () => (await Promise.resolve().then(() => (init_rotate_master_key(), rotate_master_key_exports))).rotateMasterKeyCommand },
  run: { summary: "list runs in progress; release a stuck run or cancel one", load: async () => (await Promise.resolve().then(() => (init_run(), run_exports))).run },
  host: { summary: "re-pin a host's SSH key after a reinstall (shows the old and the new fingerprint first)", load: async () => (await Promise.resolve().then(() => (init_host(), host_exports))).host },
  nodes: { summary: "add hosts to a running cluster, or remove them (etcd membership, drain, reset)", load: async () => (await Promise.resolve().then(() => (init_day2(), day2_exports))).nodes },
  upgrade: { summary: "roll a cluster to another Kubernetes version (control plane first, kubelets in batches)", load: async () => (await Promise.resolve().then(() => (init_day2(), day2_exports))).upgrade },
  backup: { summary: "etcd snapshots: take one now, list, schedule, download", load: async () => (await Promise.resolve().then(() => (init_backup2(), backup_exports))).backup },
  restore: { summary: "restore a cluster's etcd from a stored backup, then bring its control plane back", load: async () => (await Promise.resolve().then(() => (init_recovery(), recovery_exports))).restore },
  recover: { summary: "bring a control plane that did not come back up again from etcd's current state", load: async () => (await Promise.resolve().then(() => (init_recovery(), recovery_exports))).recover },
  "rotate-certs": { summary: "issue every leaf certificate again (same CAs and keys) and roll them out, the API kept up", load: async () => (await Promise.resolve().then(() => (init_recovery(), recovery_exports))).rotateCerts },
  certs: { summary: "certificate expiry: the asset set's, or read live from the hosts (--live)", load: async () => (await Promise.resolve().then(() => (init_recovery(), recovery_exports))).certs }
};

// cli/main.ts
var usage2 = `bootdeck \u2014 bootstrap self-hosted Kubernetes clusters

Usage: bootdeck <command> [options]

Commands:
${Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`).join("\n")}

Run "bootdeck <command> --help" for a command's options.`;
async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage2);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    console.error(`bootdeck: unknown command "${name}"

${usage2}`);
    return 2;
  }
  return (await command.load()).run(rest);
}
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bootdeck: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.BOOTDECK_DEBUG) console.error(err);
    process.exit(1);
  }
);
//# sourceMappingURL=bootdeck.cjs.map

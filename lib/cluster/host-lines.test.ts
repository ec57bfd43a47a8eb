import { describe, expect, it } from "vitest";
import { parseCsv, parseHostCsv, parseHostLines } from "./host-lines";

describe("pasted host lines", () => {
  it("reads address, optional port, role, optional user and labels", () => {
    const { hosts, problems } = parseHostLines(
      ["10.0.0.11 master", "10.0.0.12:2222 master deploy", "node-7.dc1.example.com worker ops zone=a,rack=r1", "10.0.0.21 worker zone=b", "[2001:db8::5]:22 worker"].join("\n"),
    );
    expect(problems).toEqual([]);
    expect(hosts).toEqual([
      { name: "master-1", address: "10.0.0.11", role: "master" },
      { name: "master-2", address: "10.0.0.12", port: 2222, role: "master", user: "deploy" },
      { name: "node-7", address: "node-7.dc1.example.com", role: "worker", user: "ops", labels: { zone: "a", rack: "r1" } },
      { name: "worker-1", address: "10.0.0.21", role: "worker", labels: { zone: "b" } },
      { name: "worker-2", address: "2001:db8::5", port: 22, role: "worker" },
    ]);
  });

  it("skips blank lines and comments, and names around existing hosts", () => {
    const { hosts } = parseHostLines("# rack 1\n\n10.0.0.11 master  # first\n", ["master-1"]);
    expect(hosts).toEqual([{ name: "master-2", address: "10.0.0.11", role: "master" }]);
  });

  it("reports each bad line by number and keeps the good ones", () => {
    const { hosts, problems } = parseHostLines("10.0.0.1 master\n10.0.0.2 boss\n10.0.0.3\n10.0.0.4:http worker\n10.0.0.5 worker a b c");
    expect(hosts.map((h) => h.address)).toEqual(["10.0.0.1"]);
    expect(problems).toEqual([
      { line: 2, message: 'role "boss" must be master or worker' },
      { line: 3, message: "needs at least an address and a role (master or worker)" },
      { line: 4, message: expect.stringContaining("port") },
      { line: 5, message: expect.stringContaining("too many fields") },
    ]);
  });

  it("parses 50 lines into 50 hosts with unique names", () => {
    const text = Array.from({ length: 50 }, (_, i) => `10.1.${Math.floor(i / 200)}.${(i % 200) + 1} ${i < 3 ? "master" : "worker"}`).join("\n");
    const { hosts } = parseHostLines(text);
    expect(hosts).toHaveLength(50);
    expect(new Set(hosts.map((h) => h.name)).size).toBe(50);
  });
});

describe("host CSV", () => {
  it("follows RFC 4180 quoting", () => {
    expect(parseCsv('a,"b,c","d ""e"""\r\n1,2,3\n')).toEqual([
      ["a", "b,c", 'd "e"'],
      ["1", "2", "3"],
    ]);
  });
  it("maps columns by header name in any order", () => {
    const { hosts, problems } = parseHostCsv("role,address,name,port,user,labels\nmaster,10.0.0.1,m1,2200,root,zone=a;rack=1\nworker,10.0.0.2,,,,\n");
    expect(problems).toEqual([]);
    expect(hosts).toEqual([
      { name: "m1", address: "10.0.0.1", role: "master", port: 2200, user: "root", labels: { zone: "a", rack: "1" } },
      { name: "worker-1", address: "10.0.0.2", role: "worker" },
    ]);
  });
  it("refuses a file without a header naming address and role", () => {
    expect(parseHostCsv("10.0.0.1,master\n").problems[0]?.message).toMatch(/header/);
  });
});

describe("pasting hosts twice, and mistyped addresses", () => {
  it("an address already in the list, or twice in the paste, is reported rather than added again", () => {
    const r = parseHostLines("10.0.0.1 master\n10.0.0.2 worker\n10.0.0.2 worker", ["master-1"], ["10.0.0.1"]);
    expect(r.hosts.map((h) => h.address)).toEqual(["10.0.0.2"]);
    expect(r.problems).toEqual([
      { line: 1, message: "10.0.0.1 is already in the list" },
      { line: 3, message: "10.0.0.2 is already in the list" },
    ]);
  });

  it("a dotted address with a number over 255 is not taken for a host name", () => {
    expect(parseHostLines("10.237.10.300 worker").problems).toEqual([{ line: 1, message: "10.237.10.300 is not a valid IPv4 address" }]);
  });
});

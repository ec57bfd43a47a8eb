import { describe, expect, it } from "vitest";
import { cidrContains, cidrsOverlap, nthAddress, parseCidr, type Cidr } from "./ip";
import { isDnsName, isIPv6 } from "./net-syntax";

const cidr = (t: string) => parseCidr(t) as Cidr;

describe("IPv4 networks", () => {
  it("derives the API service IP (base + 1) and DNS IP (base + 10)", () => {
    expect(nthAddress(cidr("10.3.0.0/24"), 1)).toBe("10.3.0.1");
    expect(nthAddress(cidr("10.96.0.0/12"), 10)).toBe("10.96.0.10");
  });
  it("knows containment and overlap at the edges", () => {
    expect(cidrContains(cidr("10.3.0.0/24"), "10.3.0.255")).toBe(true);
    expect(cidrContains(cidr("10.3.0.0/24"), "10.3.1.0")).toBe(false);
    expect(cidrsOverlap(cidr("10.0.0.0/8"), cidr("10.200.0.0/16"))).toBe(true);
    expect(cidrsOverlap(cidr("10.2.0.0/16"), cidr("10.3.0.0/16"))).toBe(false);
  });
});

describe("address syntax", () => {
  it("accepts IPv6 forms and refuses junk", () => {
    for (const ok of ["::1", "2001:db8::10", "fe80::1:2:3:4", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8"]) expect(isIPv6(ok), ok).toBe(true);
    for (const bad of ["1:2:3:4:5:6:7:8:9", "2001:::1", "abc", "12345::1"]) expect(isIPv6(bad), bad).toBe(false);
  });
  it("accepts DNS names, not IPs or shell text", () => {
    expect(isDnsName("api.example.com")).toBe(true);
    expect(isDnsName("10.0.0.1")).toBe(false);
    expect(isDnsName("10.237.10.300")).toBe(false);
    expect(isDnsName("host.123")).toBe(false);
    expect(isDnsName("3com.example")).toBe(true);
    expect(isDnsName("a;b")).toBe(false);
  });
});

"use client";
import type { CertificateDetails } from "@/lib/assets/cert-details";
import { useTimeZone } from "../time";
import { formatTime } from "../time-format";

export function CertificateDetailsView({ cert }: { cert: CertificateDetails }) {
  const zone = useTimeZone();
  const expiry = cert.daysLeft < 0 ? "text-red-700" : cert.daysLeft < 30 ? "text-amber-700" : "text-slate-700";
  const rows: [string, React.ReactNode][] = [
    ["Subject", cert.subject],
    ["Issuer", cert.issuer],
    ["SANs", cert.altNames.length > 0 ? cert.altNames.join(", ") : "—"],
    ["Valid", `${formatTime(cert.notBefore, zone)} → ${formatTime(cert.notAfter, zone)}`],
    ["Expires", <span key="e" className={expiry}>{cert.daysLeft < 0 ? `expired ${-cert.daysLeft} days ago` : `in ${cert.daysLeft} days`}</span>],
    ["Key", `${cert.keyType}${cert.isCa ? " · CA" : ""}`],
    ["Serial", cert.serialNumber],
    ["SHA-256", cert.fingerprintSha256],
  ];
  return (
    <dl className="grid grid-cols-6 gap-x-3 gap-y-1 text-xs" data-testid="certificate-details">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-slate-500">{k}</dt>
          <dd className="col-span-5 break-all font-mono">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

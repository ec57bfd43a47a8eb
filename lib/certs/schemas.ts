// Certificate expiry as the pages show it; browser-safe. One threshold: a certificate that ends within
// 30 days is a warning on the cluster page and in the cluster list.
export const EXPIRY_WARNING_DAYS = 30;

export type CertificateRow = {
  /** Where it was read: an asset path, a file on a host, or a TLS port on a host. */
  source: string;
  host: string | null;
  what: string;
  subject: string;
  issuer: string;
  serial: string;
  notAfter: string;
  daysLeft: number;
  warn: boolean;
};

export type AssetCertificates = { assetSetVersion: number | null; rows: CertificateRow[] };
export type LiveCertificates = { at: string; rows: CertificateRow[]; errors: { host: string; error: string }[] };

/** A cluster's alerts for the cluster list: a failing backup schedule, certificates close to their end. */
export type ClusterAlerts = Record<string, { backup?: string; certificates?: string }>;

export const certQueryKeys = {
  assets: (clusterId: string) => ["clusters", clusterId, "certificates"] as const,
  alerts: () => ["clusters", "alerts"] as const,
};

export const expiryText = (daysLeft: number) => (daysLeft < 0 ? `expired ${-daysLeft} days ago` : daysLeft === 0 ? "expires today" : `expires in ${daysLeft} day${daysLeft === 1 ? "" : "s"}`);

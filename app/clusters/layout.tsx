import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requirePageUser } from "../current-user";

export default async function ClustersLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser("/clusters");
  return (
    <AppShell user={{ username: user.username, displayName: user.displayName, role: user.role, csrfToken: user.csrfToken }}>{children}</AppShell>
  );
}

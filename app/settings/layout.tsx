import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requirePageUser, shellUser } from "../current-user";

export default async function Layout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  return <AppShell user={shellUser(user)}>{children}</AppShell>;
}

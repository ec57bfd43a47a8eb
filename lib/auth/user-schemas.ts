// Request bodies of the users API; browser-safe so the users page builds exactly what the server parses.
import { z } from "zod";
import { roles } from "./roles";

export const usernameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9._-]{1,31}$/, "must be 2–32 lower-case letters, digits, '.', '_' or '-', starting with a letter");
// Display names are shown (escaped) in the UI and audit log; control characters and angle brackets
// have no business in a person's name, so they are refused rather than stored.
export const displayNameSchema = z
  .string()
  .trim()
  .min(1, "is required")
  .max(64, "must be at most 64 characters")
  .regex(/^[^\p{Cc}\p{Cf}\p{Cs}<>]*$/u, "may not contain control characters or < >");
export const roleSchema = z.enum(roles);

export const createUserBody = z.strictObject({
  username: usernameSchema,
  displayName: displayNameSchema.optional(),
  role: roleSchema,
});
export const updateUserBody = z
  .strictObject({ role: roleSchema.optional(), disabled: z.boolean().optional(), displayName: displayNameSchema.optional() })
  .refine((b) => b.role !== undefined || b.disabled !== undefined || b.displayName !== undefined, "nothing to change");
export const resetPasswordBody = z.strictObject({});
export const userIdParams = z.strictObject({ id: z.string().regex(/^usr_[A-Za-z0-9_-]{16}$/) });

export type UserView = {
  id: string;
  username: string;
  displayName: string;
  role: (typeof roles)[number];
  disabled: boolean;
  createdAt: string;
  /** "oidc": signs in through the identity provider, which sets the role from its groups; no password. */
  provider: "local" | "oidc";
};

export const userQueryKeys = { users: () => ["users"] as const };

// The passwords of the users e2e/seed-ui.ts adds (a lead and a support engineer), for the specs.
export const seededPasswords = { lead: "e2e-lead-password", support: "e2e-support-password" };

-- The audit trail is append-only: the database itself refuses to change or remove a row, whatever
-- code (or a stray SQL console) asks. Prisma's schema language cannot express triggers, so this
-- migration is written by hand (SQLite's twin is 20261130060000_audit_append_only).
CREATE FUNCTION "AuditEvent_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'AuditEvent is append-only';
END;
$$;

CREATE TRIGGER "AuditEvent_no_update" BEFORE UPDATE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "AuditEvent_append_only"();

CREATE TRIGGER "AuditEvent_no_delete" BEFORE DELETE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "AuditEvent_append_only"();

-- TRUNCATE skips row triggers; refuse it too.
CREATE TRIGGER "AuditEvent_no_truncate" BEFORE TRUNCATE ON "AuditEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "AuditEvent_append_only"();

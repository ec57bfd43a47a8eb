-- The audit trail is append-only: the database itself refuses to change or remove a row, whatever
-- code (or a stray SQL console) asks. Prisma's schema language cannot express triggers, so this
-- migration is written by hand; `prisma migrate diff` does not see triggers and leaves them alone.
CREATE TRIGGER "AuditEvent_no_update" BEFORE UPDATE ON "AuditEvent"
BEGIN
  SELECT RAISE(ABORT, 'AuditEvent is append-only');
END;

CREATE TRIGGER "AuditEvent_no_delete" BEFORE DELETE ON "AuditEvent"
BEGIN
  SELECT RAISE(ABORT, 'AuditEvent is append-only');
END;

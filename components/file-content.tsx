"use client";
// A rendered or planned file's text, read in place: a scroll box with a copy button, or, for a secret
// (a private key, a token, a kubeconfig with credentials), a line saying it stays hidden.
import { CopyButton } from "./copy-button";

export function FileText({ path, content, sensitive, testId }: { path: string; content: string | null | undefined; sensitive: boolean; testId: string }) {
  if (sensitive || content == null)
    return (
      <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid={testId} data-hidden="true">
        {path} holds a secret: its content stays hidden here.{sensitive ? " Admins can download it with the asset set's private keys." : ""}
      </p>
    );
  return (
    <div className="relative" data-testid={testId}>
      <div className="absolute right-1 top-1">
        <CopyButton value={content} label={`the content of ${path}`} testId={`${testId}-copy`} />
      </div>
      <pre className="max-h-80 overflow-auto whitespace-pre rounded border border-slate-200 bg-slate-50 p-2 pr-16 font-mono text-xs text-slate-900" tabIndex={0} aria-label={`Content of ${path}`}>
        {content}
      </pre>
    </div>
  );
}

// The evidence a signed event keeps so that any desk can check it again (team/evidence.ts): stored
// beside the payload in team.events.evidence. Small JSON: only what the payload does not hold already.

/** A callback's evidence: the signature headers as received (the body is the event's payload, as received). */
export function callbackEvidence(headers: { hmac?: string | null; rsa?: string | null }): string {
  return JSON.stringify({ hmac: headers.hmac ?? null, rsa: headers.rsa ?? null });
}

/** A redirect's evidence: the query string of the captured URL, exactly as captured (it carries the signatures). */
export function redirectEvidence(url: string): string {
  return JSON.stringify({ query: new URL(url).search });
}

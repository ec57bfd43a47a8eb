// What every PostgreSQL session Bootdeck opens asks of the server (the `options` startup parameter).
//
// A machine that is powered off or cut off sends no FIN and no RST, so without this the server keeps
// its sessions for Linux's two hours: a worker's run locks (no other worker takes its runs over), and
// whatever its other sessions hold. With keepalives on the lock session only, one takeover in three
// still timed out; with them on every session, none did (an open transaction's row locks are the likely
// cause, not confirmed). The server probes a quiet session
// after 2 s, every second, and ends it when 3 probes go unanswered, or when data it sent stays
// unacknowledged for 5 s. Probes are answered by the client machine's kernel, so a busy process is never
// taken for a lost one; a network silent for 5 s costs its runs a takeover, which is safe (a replaced
// worker's writes are refused).
export const POSTGRES_SESSION_OPTIONS = "-c tcp_keepalives_idle=2 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 -c tcp_user_timeout=5000";

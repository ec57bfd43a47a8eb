// Stand-in for the `server-only` marker package when lib/ runs under plain Node (tests, CLI).
export {};

// An Ed25519 key pair for tests. ssh2's generator makes a private key its own parser refuses about once
// in 200 ("Malformed OpenSSH private key": 7 of 1500 here), which would fail a test now and then, so a
// key that does not parse back is drawn again. Test code only.
import { utils } from "ssh2";

type Options = { passphrase?: string; cipher?: string; rounds?: number };

export function testKeyPair(opts: Options = {}): { private: string; public: string } {
  for (;;) {
    const k = opts.passphrase ? utils.generateKeyPairSync("ed25519", opts as Parameters<typeof utils.generateKeyPairSync>[1]) : utils.generateKeyPairSync("ed25519");
    if (!(utils.parseKey(k.private, opts.passphrase) instanceof Error)) return k;
  }
}

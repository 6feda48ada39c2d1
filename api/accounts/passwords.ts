import { hash, verify } from "@node-rs/argon2";

// Argon2id at OWASP's minimum: m=19 MiB, t=2, p=1 (Algorithm.Argon2id = 2; a const enum, so the number).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, OPTIONS);
export const verifyPassword = (passwordHash: string, password: string) => verify(passwordHash, password).catch(() => false);

// Verified against when the account does not exist, so a miss costs what a hit costs.
let dummy: Promise<string> | undefined;
export const dummyHash = () => (dummy ??= hashPassword("not-a-real-password-0"));

export function passwordProblem(password: string, email?: string): string | null {
  if (password.length < 12) return "Use at least 12 characters.";
  if (password.length > 200) return "Use at most 200 characters.";
  if (email && password.toLowerCase().includes(email.split("@")[0].toLowerCase()) && email.split("@")[0].length >= 4)
    return "Do not use your email address in your password.";
  return null;
}

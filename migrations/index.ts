import { Foundation1764460800000 } from "./1764460800000-Foundation.js";

/** Every migration, in order. A new migration is added here and reviewed by hand. */
export const migrations = [Foundation1764460800000];

import { prepareTemplate } from "./db.js";

export default async function setup() {
  await prepareTemplate();
}

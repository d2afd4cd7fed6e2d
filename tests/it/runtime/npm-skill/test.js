// The fixture's `npm test`: the local dependency must have been installed by `npm ci`.
const greet = require("greet");
const text = greet("npm");
if (text !== "hello, npm") {
  console.error("unexpected greeting: " + text);
  process.exit(1);
}
console.log("npm test passed: " + text);

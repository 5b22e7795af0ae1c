/**
 * @module console/page/login
 * The sign-in page's script (bundled into dist/console/page/login.js, served as /login.js): posts the token,
 * keeps the session the console returns in sessionStorage (page/session.ts) and opens the console. A wrong
 * token, or too many (429), is said on the page.
 */
import { type StoredSession, storedSession, storeSession } from "./session.js";

const form = document.getElementById("login") as HTMLFormElement;
const problem = document.getElementById("login-error") as HTMLParagraphElement;

if (storedSession()) location.replace("/");

form.addEventListener("submit", (event) => {
  event.preventDefault();
  void signIn();
});

async function signIn(): Promise<void> {
  problem.textContent = "";
  const body = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (typeof value === "string") body.set(key, value);
  try {
    const response = await fetch("/login", { method: "POST", body, credentials: "omit", cache: "no-store" });
    const answer = (await response.json()) as StoredSession & { error?: string };
    if (!response.ok) {
      problem.textContent = answer.error ?? `Sign-in failed (${response.status}).`;
      return;
    }
    storeSession(answer);
    location.replace("/");
  } catch (error) {
    problem.textContent = `Sign-in failed: ${(error as Error).message}`;
  }
}

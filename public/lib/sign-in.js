// Signing in: a token typed into the token form, or one that single sign-on hands back in the URL
// fragment (never sent to a server).
import * as api from "./api.js";

/** Keeps a token single sign-on handed back and drops it from the address; shows the sign-in link when offered. */
export function takeSignIn({ tokenForm, ssoLink }) {
  const signedIn = new URLSearchParams(window.location.hash.slice(1)).get("sso_token");
  if (signedIn) {
    api.saveToken(signedIn);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  // The sign-in link shows in the token form when the server offers single sign-on.
  fetch("/auth/config")
    .then((response) => (response.ok ? response.json() : { sso: false }))
    .then((config) => {
      ssoLink.hidden = !config.sso;
      // Signed out of a server that offers single sign-on: offer it at once, not after the first refusal.
      if (config.sso && !api.hasToken()) tokenForm.hidden = false;
    })
    .catch(() => undefined);
}

/** Saves the token the form holds and calls `onSaved()`. */
export function listenForToken({ tokenForm, token }, onSaved) {
  tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    api.saveToken(token.value.trim());
    tokenForm.hidden = true;
    onSaved();
  });
}

// Sign-in, when the stack has a JWT issuer (GET sign-in.json names it): OpenID Connect
// authorization code + PKCE through oidc-client-ts (its built file, served beside the page and
// loaded only then). The access token goes out as a Bearer token; an expired one is refreshed
// with the refresh token, or the clinician is asked to sign in again. The tokens live in this
// tab's sessionStorage only.
"use strict";

const SIGNED_OUT = "Hãy đăng nhập để đặt câu hỏi.";

function loadLibrary() {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "oidc-client-ts.min.js";
    script.onload = resolve;
    script.onerror = reject;
    document.head.append(script);
  });
}

function accountBar() {
  const box = document.getElementById("account");
  const who = document.getElementById("who");
  const signIn = document.getElementById("sign-in");
  const signOut = document.getElementById("sign-out");
  return {
    show(user) {
      box.hidden = false;
      signIn.hidden = Boolean(user);
      signOut.hidden = !user;
      who.textContent = user ? (user.profile.name || user.profile.email || user.profile.sub) : SIGNED_OUT;
    },
    signIn,
    signOut,
  };
}

function userManager(config) {
  const here = `${location.origin}${location.pathname}`;
  return new oidc.UserManager({
    authority: config.issuer,
    client_id: config.client_id,
    redirect_uri: here,
    post_logout_redirect_uri: here,
    response_type: "code",
    scope: "openid profile email",
    // the stack's authorize endpoint wins over the discovery document's
    metadataSeed: config.authorize_url ? { authorization_endpoint: config.authorize_url } : {},
    userStore: new oidc.WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: false, // renewed when a request needs it (refresh token), never behind the user's back
  });
}

async function startSignIn() {
  const config = await (await fetch("sign-in.json")).json();
  if (!config.issuer) return null; // a public stack
  await loadLibrary();
  const manager = userManager(config);
  const bar = accountBar();
  const params = new URLSearchParams(location.search);
  if (params.has("code") && params.has("state")) {
    try {
      await manager.signinRedirectCallback();
    } finally {
      history.replaceState(null, "", location.pathname); // the code is used once
    }
  }
  let user = await manager.getUser();
  bar.show(user);
  bar.signIn.addEventListener("click", () => manager.signinRedirect());
  bar.signOut.addEventListener("click", async () => {
    await manager.removeUser();
    user = null;
    bar.show(null);
    document.dispatchEvent(new CustomEvent("duocthu:signed-out")); // the conversation goes too
  });

  async function renewed() {
    try {
      return await manager.signinSilent(); // the refresh token's grant, when the issuer gave one
    } catch (err) {
      await manager.removeUser();
      return null;
    }
  }

  return {
    // the access token for the next request; null asks the clinician to sign in
    async token() {
      user = await manager.getUser();
      if (user && user.expired) user = user.refresh_token ? await renewed() : null;
      bar.show(user);
      return user ? user.access_token : null;
    },
    // the API refused the token (401): ask again
    async expired() {
      await manager.removeUser();
      user = null;
      bar.show(null);
    },
  };
}

// app.js waits for this before its first request
window.duocthuAuth = startSignIn().catch((err) => {
  console.error("sign-in unavailable", err);
  return null;
});

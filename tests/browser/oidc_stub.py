"""A local OpenID Connect issuer for the sign-in tests, on a free loopback port: discovery, an
authorize endpoint that signs "BS. Lan" in at once (redirecting back with a code), and a token
endpoint that checks the PKCE verifier against the challenge and honours refresh tokens. Unsigned
tokens: the page never verifies them (API Gateway's JWT authorizer does)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

CLIENT_ID = "duocthu-page"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Issuer:
    url: str = ""
    codes: dict[str, dict[str, str]] = field(default_factory=dict)  # code -> the authorize request
    grants: list[str] = field(default_factory=list)  # the token endpoint's grant types, in order
    issued: list[str] = field(default_factory=list)  # access tokens, in order

    def id_token(self, nonce: str | None) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": CLIENT_ID, "sub": "clinician-1", "name": "BS. Lan", "iat": now}
        claims |= {"exp": now + 3600, **({"nonce": nonce} if nonce else {})}
        header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
        return f"{header}.{b64url(json.dumps(claims).encode())}."

    def tokens(self, nonce: str | None) -> dict[str, Any]:
        access = f"at-{len(self.issued) + 1}"
        self.issued.append(access)
        return {
            "access_token": access,
            "id_token": self.id_token(nonce),
            "refresh_token": f"rt-{len(self.issued)}",
            "token_type": "Bearer",
            "expires_in": 3600,
        }


def handler(issuer: Issuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def _send(
            self, status: int, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
        ) -> None:
            raw = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Headers", "authorization, content-type")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(raw)

        def do_OPTIONS(self) -> None:
            self._send(204)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path == "/.well-known/openid-configuration":
                self._send(
                    200,
                    {
                        "issuer": issuer.url,
                        "authorization_endpoint": f"{issuer.url}/authorize",
                        "token_endpoint": f"{issuer.url}/token",
                        "jwks_uri": f"{issuer.url}/jwks",
                        "response_types_supported": ["code"],
                        "code_challenge_methods_supported": ["S256"],
                    },
                )
            elif url.path == "/authorize":
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                assert query["client_id"] == CLIENT_ID and query["code_challenge_method"] == "S256"
                code = secrets.token_urlsafe(8)
                issuer.codes[code] = query
                back = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
                self._send(302, None, {"Location": back})
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:
            form = {
                k: v[0]
                for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()
            }
            issuer.grants.append(form.get("grant_type", ""))
            if form.get("grant_type") == "authorization_code":
                asked = issuer.codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "").encode()
                if not asked or b64url(hashlib.sha256(verifier).digest()) != asked["code_challenge"]:
                    self._send(400, {"error": "invalid_grant"})
                    return
                self._send(200, issuer.tokens(asked.get("nonce")))
            elif form.get("grant_type") == "refresh_token" and form.get("refresh_token", "").startswith(
                "rt-"
            ):
                self._send(200, issuer.tokens(None))
            else:
                self._send(400, {"error": "unsupported_grant_type"})

    return Handler


@contextmanager
def oidc_issuer() -> Iterator[Issuer]:
    issuer = Issuer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler(issuer))
    issuer.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        httpd.shutdown()
        httpd.server_close()

"""Who may call the worker (ASGI middleware, outermost): requests must name a local Host (when the
worker listens on loopback, as by default), carry no foreign Origin, and send the worker's token
as `Authorization: Bearer <token>` on every path but `GET /health` (a liveness probe that reveals
nothing secret). A web page can neither reach the API with a forged Host (DNS rebinding) nor post to
it from another origin, and another local user cannot call it without the token.

The token comes from `--api-key`, else `ENVACE_WORKER_API_KEY`, else is generated at start and
printed once on stderr (the supervisor sets the variable: it never appears in argv).
"""
from __future__ import annotations

import hmac
import ipaddress
import json
import secrets

ENV_VAR = "ENVACE_WORKER_API_KEY"
OPEN_PATHS = {"/health"}
LOCAL_NAMES = {"localhost", "127.0.0.1", "::1"}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _hostname(value: str) -> str:
    """`host[:port]` or `[v6]:port` → host, lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _origin_host(origin: str) -> str | None:
    """The host of an Origin header (`scheme://host[:port]`); None for `null` or garbage."""
    if "://" not in origin:
        return None
    return _hostname(origin.split("://", 1)[1].split("/", 1)[0])


class Guard:
    def __init__(self, app, token: str, bind_host: str = "127.0.0.1"):
        self.app, self.token = app, token.encode()
        self.allowed = set(LOCAL_NAMES)
        self.allowed.add(_hostname(bind_host))
        # Host is checked against DNS rebinding, an attack on loopback services; a worker bound to a
        # public address (with an explicit token) is reached under names it cannot know
        self.check_host = is_loopback(_hostname(bind_host))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _hostname(headers.get("host", ""))
        if self.check_host and host not in self.allowed:
            return await _deny(send, 403, "forbidden_host", f"Host {headers.get('host', '')!r} is not this worker")
        origin = headers.get("origin")
        if origin is not None and _origin_host(origin) not in self.allowed:
            return await _deny(send, 403, "forbidden_origin", f"requests from Origin {origin!r} are refused")
        if scope.get("path") in OPEN_PATHS and scope.get("method") in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        auth = headers.get("authorization", "")
        given = auth[7:].strip().encode() if auth[:7].lower() == "bearer " else b""
        if not hmac.compare_digest(given, self.token):
            return await _deny(send, 401, "unauthorized",
                               f"missing or wrong bearer token (the worker's --api-key / {ENV_VAR})")
        return await self.app(scope, receive, send)


async def _deny(send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message, "type": "invalid_request_error"}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *([(b"www-authenticate", b"Bearer")] if status == 401 else [])]})
    await send({"type": "http.response.body", "body": body})

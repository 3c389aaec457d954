"""Credentials are taken as meant or refused: one credential per call, JWTs that name
their key, carry numeric times within the lifetime limit and claims a store can keep."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from auth.authenticator import AmbiguousCredentialsError, credential_from
from auth.throttle import FailureThrottle, peer_address
from auth.tokens import TokenInvalid, TokenRules, TokenVerifier
from stores.rate_limits.base import Rate

ISSUER, AUDIENCE, SECRET = "https://issuer.example", "agentd", "s" * 40


@pytest.fixture(scope="module")
def rsa_keys() -> list[Any]:
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2)]


def _jwks(tmp_path: Path, keys: list[Any]) -> Path:
    entries = [
        {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(k.public_key())), "kid": f"k{i}",
         "alg": "RS256", "use": "sig"}
        for i, k in enumerate(keys)
    ]  # fmt: skip
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": entries}))
    return path


def _claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "svc", "tenant": "acme", "exp": now + 300}
    return {k: v for k, v in {**claims, **overrides}.items() if v is not None}


def _hs256(**overrides: Any) -> str:
    return jwt.encode(_claims(**overrides), SECRET, "HS256")


def _verifier(**rules: Any) -> TokenVerifier:
    return TokenVerifier(TokenRules(ISSUER, AUDIENCE, hs256_secret=SECRET, **rules))


def test_a_token_with_several_jwks_keys_must_name_its_key_exactly(
    tmp_path: Path, rsa_keys: list[Any]
) -> None:
    verifier = TokenVerifier(TokenRules(ISSUER, AUDIENCE, jwks_file=_jwks(tmp_path, rsa_keys)))
    signed_by_second = rsa_keys[1]
    good = jwt.encode(_claims(), signed_by_second, "RS256", headers={"kid": "k1"})
    assert verifier.verify(good).id == "svc"
    for header in ({"kid": ""}, {}, {"kid": "k1 "}, {"kid": "K1"}):
        token = jwt.encode(_claims(), signed_by_second, "RS256", headers=header)
        with pytest.raises(TokenInvalid):
            verifier.verify(token)


def test_one_jwks_key_may_be_used_without_a_kid(tmp_path: Path, rsa_keys: list[Any]) -> None:
    verifier = TokenVerifier(TokenRules(ISSUER, AUDIENCE, jwks_file=_jwks(tmp_path, rsa_keys[:1])))
    assert verifier.verify(jwt.encode(_claims(), rsa_keys[0], "RS256")).tenant == "acme"
    with pytest.raises(TokenInvalid):  # a kid given is still matched exactly
        verifier.verify(jwt.encode(_claims(), rsa_keys[0], "RS256", headers={"kid": ""}))


@pytest.mark.parametrize(
    "claims",
    [
        {"exp": str(int(time.time()) + 300)},
        {"exp": int(time.time()) + 2 * 86_400},
        {"exp": True},
        {"iat": "now"},
        {"nbf": [0]},
    ],
    ids=["exp as a string", "exp past the lifetime", "exp as a boolean", "iat text", "nbf list"],
)
def test_times_must_be_numbers_within_the_lifetime_limit(claims: dict[str, Any]) -> None:
    with pytest.raises(TokenInvalid):
        _verifier().verify(_hs256(**claims))


def test_the_lifetime_limit_is_configurable() -> None:
    week = int(time.time()) + 7 * 86_400
    assert _verifier(max_lifetime_seconds=8 * 86_400).verify(_hs256(exp=week)).id == "svc"
    with pytest.raises(TokenInvalid):
        _verifier().verify(_hs256(exp=week))


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "s" * 129},
        {"sub": "svc\x00"},
        {"sub": "svc\ud800"},
        {"sub": "a b"},
        {"tenant": "t" * 130},
        {"tenant": "acme\n"},
        {"roles": ["admin", "r" * 129]},
        {"roles": ["x"] * 33},
        {"roles": "admin"},
    ],
)
def test_claims_that_no_store_could_keep_whole_are_refused(claims: dict[str, Any]) -> None:
    try:
        token = _hs256(**claims)
    except UnicodeEncodeError:  # a lone surrogate cannot even be encoded by the client
        return
    with pytest.raises(TokenInvalid):
        _verifier().verify(token)


def test_ordinary_identities_pass() -> None:
    for sub in ("auth0|5f7c8ec7c33c6c004bbafe82", "alice@example.com", "system:sa:ns:gw"):
        assert _verifier().verify(_hs256(sub=sub, roles=["admin", "team/eu"])).id == sub


@pytest.mark.parametrize(
    "metadata",
    [
        [("authorization", "Bearer a"), ("authorization", "Bearer b")],
        [("authorization", "Bearer a"), ("x-api-key", "a")],
        [("x-api-key", "a"), ("x-api-key", "a")],
        [("authorization", "Bearer a"), ("authorization-bin", b"x"), ("authorization", "Basic x")],
    ],
)
def test_more_than_one_credential_is_ambiguous(metadata: list[tuple[str, Any]]) -> None:
    with pytest.raises(AmbiguousCredentialsError):
        credential_from(metadata)


def test_one_credential_is_found() -> None:
    assert credential_from([("x-trace", "1"), ("authorization", "Bearer abc")]) == "abc"
    assert credential_from([("x-api-key", " abc ")]) == "abc"
    assert credential_from([("authorization", "Basic abc")]) == ""
    assert credential_from([]) is None


def test_the_failure_throttle_refills_at_its_rate() -> None:
    now = [0.0]
    throttle = FailureThrottle(Rate(3, 60.0), clock=lambda: now[0])
    for _ in range(3):
        assert throttle.wait("10.0.0.7") == 0.0
        throttle.refused("10.0.0.7")
    assert throttle.wait("10.0.0.7") == pytest.approx(20.0)
    assert throttle.wait("10.0.0.8") == 0.0  # another address is not affected
    now[0] = 20.0
    assert throttle.wait("10.0.0.7") == 0.0


def test_peer_addresses_lose_their_port() -> None:
    assert peer_address("ipv4:10.0.0.7:51234") == "10.0.0.7"
    assert peer_address("ipv6:[::1]:51234") == "::1"
    assert peer_address("unix:/tmp/agentd.sock") == "unix:/tmp/agentd.sock"
    assert peer_address(None) == ""

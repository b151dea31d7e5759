"""Honest a2a-sdk 1.3.0 peer whose Agent Card is signed with the SDK's own signer (a2a-sdk[signing]).

Same agent as v03.py (the 0.3 compatibility is on, so the served card also carries the merged 0.3
top-level fields, which the signature does not cover). Two fresh keys are made at start and the
card gets one signature from each, through `a2a.utils.signing.create_agent_card_signer`:

  signatures[0]  RS256, kid "python-rsa-1"  (RSA 2048)
  signatures[1]  ES256, kid "python-ec-1"   (P-256), protected header jku = <base>/test/jwks.json

Test-only routes (keys are made per run, so a client learns them here, out of band):
  GET /test/jwks.json          the two public keys as a JWKS
  GET /test/rsa-public.pem     the RSA public key as PEM (SubjectPublicKeyInfo)
  GET /test/v03-card.json      a 0.3-shaped card signed over its served JSON (no signatures, empty
                               values dropped, the SDK's RFC 8785 canonicalizer) with the RSA key

Usage: signed.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from __future__ import annotations

import json

import jwt

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2a.utils._jcs import canonicalize
from a2a.utils.signing import _clean_empty, create_agent_card_signer
from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve

RSA_KID = 'python-rsa-1'
EC_KID = 'python-ec-1'


def public_jwk(algorithm, public_key, kid: str, alg: str) -> dict:
    jwk = json.loads(algorithm.to_jwk(public_key))
    jwk.update({'kid': kid, 'use': 'sig', 'alg': alg})
    return jwk


def v03_card(base: str) -> dict:
    """A 0.3 card (no supportedInterfaces), signed as served: what a 0.3-era signer covers."""
    card = {
        'name': 'python-signed-v03',
        'description': 'a 0.3 card signed over its served JSON',
        'url': base + '/a2a/jsonrpc',
        'preferredTransport': 'JSONRPC',
        'protocolVersion': '0.3.0',
        'version': '1.0.0',
        'capabilities': {'streaming': True, 'pushNotifications': False, 'stateTransitionHistory': True},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [{'id': 'echo', 'name': 'echo', 'description': 'echoes text', 'tags': ['test']}],
    }
    return card


def main() -> None:
    args = parse_args(__doc__)
    base = base_url(args)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    jwks = {
        'keys': [
            public_jwk(RSAAlgorithm, rsa_key.public_key(), RSA_KID, 'RS256'),
            public_jwk(ECAlgorithm, ec_key.public_key(), EC_KID, 'ES256'),
        ]
    }
    rsa_pem = rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-signed', base, both, with_v03_interface=True)
    create_agent_card_signer(rsa_key, {'alg': 'RS256', 'kid': RSA_KID, 'typ': 'JOSE'})(card)
    create_agent_card_signer(
        ec_key, {'alg': 'ES256', 'kid': EC_KID, 'typ': 'JOSE', 'jku': base + '/test/jwks.json'}
    )(card)

    legacy = v03_card(base)
    payload = canonicalize(_clean_empty(legacy)).encode('utf-8')
    compact = jwt.api_jws.encode(payload, rsa_key, algorithm='RS256', headers={'kid': RSA_KID, 'typ': 'JOSE'})
    protected, _, signature = compact.split('.')
    legacy['signatures'] = [{'protected': protected, 'signature': signature}]

    async def serve_jwks(_request: Request) -> JSONResponse:
        return JSONResponse(jwks)

    async def serve_pem(_request: Request) -> Response:
        return Response(rsa_pem, media_type='application/x-pem-file')

    async def serve_v03(_request: Request) -> JSONResponse:
        return JSONResponse(legacy)

    handler = build_handler(card, args, push_store=True, push_sender=True)
    app = build_app(card, handler, enable_v0_3_compat=True)
    # First, ahead of the SDK's routes (whose REST mount would otherwise answer these paths).
    app.router.routes[0:0] = (
        [
            Route('/test/jwks.json', serve_jwks, methods=['GET']),
            Route('/test/rsa-public.pem', serve_pem, methods=['GET']),
            Route('/test/v03-card.json', serve_v03, methods=['GET']),
        ]
    )
    serve(app, args)


if __name__ == '__main__':
    main()

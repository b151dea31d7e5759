"""Honest a2a-sdk 1.3.0 peer with the SDK's 0.3 compatibility switched on.

Same agent as honest.py; the JSON-RPC endpoint also answers the 0.3 methods (message/send,
message/stream, tasks/get, ...) with 0.3 shapes when a request carries no A2A-Version header
(or 0.3), and the card carries a 0.3 JSONRPC interface plus the merged 0.3 top-level fields.
Usage: v03.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve


def main() -> None:
    args = parse_args(__doc__)
    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-v03', base_url(args), both, with_v03_interface=True)
    handler = build_handler(card, args, push_store=True, push_sender=True)
    serve(build_app(card, handler, enable_v0_3_compat=True), args)


if __name__ == '__main__':
    main()

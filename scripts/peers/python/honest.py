"""Honest a2a-sdk 1.3.0 peer: claims streaming and push notifications, and does both.

Push callbacks are really POSTed (config store + sender), one per event.
Usage: honest.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve


def main() -> None:
    args = parse_args(__doc__)
    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-honest', base_url(args), both)
    handler = build_handler(card, args, push_store=True, push_sender=True)
    serve(build_app(card, handler), args)


if __name__ == '__main__':
    main()
